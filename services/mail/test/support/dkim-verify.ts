import { createHash, createVerify, type KeyObject } from 'node:crypto';

/**
 * Checks a message's DKIM-Signature (rsa-sha256, relaxed/relaxed as nodemailer signs) with
 * the public key, as a receiving server would (RFC 6376): the body hash, then the signature
 * over the signed headers and the signature header with its b= emptied. Returns why not, or null.
 */
export function dkimProblem(raw: string, publicKey: KeyObject): string | null {
  const message = raw.replace(/\r?\n/g, '\r\n');
  const split = message.indexOf('\r\n\r\n');
  const head = message.slice(0, split + 2);
  const body = message.slice(split + 4);
  // Header fields, unfolded later; continuation lines start with whitespace.
  const fields: string[] = [];
  for (const line of head.split('\r\n')) {
    if (!line) continue;
    if (/^[ \t]/.test(line) && fields.length) fields[fields.length - 1] += `\r\n${line}`;
    else fields.push(line);
  }
  const signature = fields.find((f) => /^dkim-signature:/i.test(f));
  if (!signature) return 'no DKIM-Signature header';
  const value = signature.slice(signature.indexOf(':') + 1);
  const tags = Object.fromEntries(
    value
      .replace(/\s+/g, '')
      .split(';')
      .filter(Boolean)
      .map((tag) => [tag.slice(0, tag.indexOf('=')), tag.slice(tag.indexOf('=') + 1)]),
  ) as Record<string, string>;
  if (tags.a !== 'rsa-sha256') return `algorithm ${tags.a}`;
  if (tags.c !== 'relaxed/relaxed') return `canonicalization ${tags.c}`;

  const relaxedBody =
    body
      .split('\r\n')
      .map((line) => line.replace(/[ \t]+/g, ' ').replace(/ $/, ''))
      .join('\r\n')
      .replace(/(\r\n)*$/, '') + '\r\n';
  const bodyHash = createHash('sha256')
    .update(relaxedBody === '\r\n' ? '' : relaxedBody)
    .digest('base64');
  if (bodyHash !== tags.bh) return 'body hash mismatch';

  const relaxedHeader = (field: string) => {
    const colon = field.indexOf(':');
    return `${field.slice(0, colon).trim().toLowerCase()}:${field
      .slice(colon + 1)
      .replace(/\r\n/g, '')
      .replace(/[ \t]+/g, ' ')
      .trim()}`;
  };
  const used = new Set<number>();
  const signed: string[] = [];
  for (const name of tags.h!.split(':')) {
    for (let i = fields.length - 1; i >= 0; i--) {
      if (used.has(i)) continue;
      if (fields[i]!.slice(0, fields[i]!.indexOf(':')).trim().toLowerCase() === name.toLowerCase()) {
        used.add(i);
        signed.push(`${relaxedHeader(fields[i]!)}\r\n`);
        break;
      }
    }
  }
  const withoutB = relaxedHeader(signature)
    .replace(/b=[^;]*$/, 'b=')
    .replace(/(;\s*b=)[^;]*/, '$1');
  const verifier = createVerify('RSA-SHA256');
  verifier.update(signed.join('') + withoutB);
  return verifier.verify(publicKey, tags.b!, 'base64') ? null : 'signature does not verify';
}
