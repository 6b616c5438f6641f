/**
 * The inbox's cheap checks, done before any JSON-LD work or remote fetch: the gateway refuses
 * with them first, and the federation applies them again before it verifies a signature. Plain
 * byte and string work, bounded by the body cap; nothing here allocates per JSON value.
 */

/** Inbox bodies with more JSON values than this are refused: a real activity has a few hundred. */
export const FEDERATION_MAX_JSON_VALUES = 10_000;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

export type JsonShapeRefusal = 'too deep' | 'too many values';

/**
 * Whether JSON text opens more than `maxDepth` arrays or objects inside each other, or holds
 * more than `maxValues` values, read byte by byte (no parse: a UTF-8 sequence never holds these
 * ASCII bytes). The values are counted as commas plus containers plus one, which is exact for
 * valid JSON with no empty containers and an upper bound otherwise. Text that is not JSON is
 * left to the parser to refuse.
 */
export function jsonShapeRefusal(
  body: Uint8Array,
  maxDepth: number,
  maxValues: number,
): JsonShapeRefusal | null {
  let depth = 0;
  let values = 1;
  let inString = false;
  for (let i = 0; i < body.length; i++) {
    const byte = body[i]!;
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) inString = true;
    else if (byte === COMMA) {
      if (++values > maxValues) return 'too many values';
    } else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
      if (++depth > maxDepth) return 'too deep';
      if (++values > maxValues) return 'too many values';
    } else if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) depth--;
  }
  return null;
}

/** A signature header's claim: whose key, under which spec. Nothing here is verified yet. */
export interface SignatureClaim {
  keyId: string;
  spec: 'draft-cavage' | 'rfc9421';
}

/** Only this much of a signature header is read (the gateway caps any header at 8 KB). */
const MAX_SIGNATURE_HEADER = 8192;
/** `name="value"` pairs of a draft-cavage Signature header, comma-separated. */
const CAVAGE_PARAM = /^\s*([A-Za-z]+)\s*=\s*(?:"([^"]*)"|(\d+))\s*$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
/** An RFC 9421 Signature member: `label=:base64:`. */
const RFC9421_SIGNATURE = /^\s*([A-Za-z0-9_.*-]{1,64})\s*=\s*:([A-Za-z0-9+/]+={0,2}):\s*$/;
/** An RFC 9421 Signature-Input member: `label=("@method" …);keyid="…";…`. */
const RFC9421_INPUT =
  /^\s*([A-Za-z0-9_.*-]{1,64})\s*=\s*\(([^()]*)\)((?:\s*;\s*[A-Za-z0-9_.*-]+=(?:"[^"]*"|\d+))*)\s*$/;
const RFC9421_KEYID = /;\s*keyid="([^"]+)"/;

const httpUrl = (value: string): boolean => {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== '';
  } catch {
    return false;
  }
};

/** A draft-cavage `Signature` header with a keyId (an http(s) URL) and a base64 signature; else null. */
function cavageClaim(header: string): SignatureClaim | null {
  const params = new Map<string, string>();
  for (const part of header.split(',')) {
    const m = CAVAGE_PARAM.exec(part);
    if (!m) return null;
    params.set(m[1]!.toLowerCase(), m[2] ?? m[3]!);
  }
  const keyId = params.get('keyid');
  const signature = params.get('signature');
  if (!keyId || !httpUrl(keyId) || !signature || !BASE64.test(signature)) return null;
  return { keyId, spec: 'draft-cavage' };
}

/** RFC 9421: a Signature-Input member with a keyid, and a Signature member of the same label. */
function rfc9421Claim(input: string, signature: string): SignatureClaim | null {
  const signed = new Set<string>();
  for (const part of signature.split(',')) {
    const m = RFC9421_SIGNATURE.exec(part);
    if (m) signed.add(m[1]!);
  }
  // Members are split at commas outside parentheses and quotes (a component list has none).
  for (const part of input.split(/,(?![^(]*\))/)) {
    const m = RFC9421_INPUT.exec(part);
    if (!m || !signed.has(m[1]!)) continue;
    const keyId = RFC9421_KEYID.exec(m[3]!)?.[1];
    if (keyId && httpUrl(keyId)) return { keyId, spec: 'rfc9421' };
  }
  return null;
}

/**
 * The claim of a request's signature headers when they are well-formed (draft-cavage
 * `Signature`, or RFC 9421 `Signature-Input` with `Signature`); null when there are none or they
 * do not parse. `header` reads one header by its lower-case name.
 */
export function signatureClaim(header: (name: string) => string | null | undefined): SignatureClaim | null {
  const signature = header('signature');
  if (!signature || signature.length > MAX_SIGNATURE_HEADER) return null;
  const input = header('signature-input');
  if (input) return input.length > MAX_SIGNATURE_HEADER ? null : rfc9421Claim(input, signature);
  return cavageClaim(signature);
}

/** The lower-case host of a signature claim's key: the remote server it says it comes from. */
export function claimedServer(claim: SignatureClaim | null): string | null {
  return claim ? new URL(claim.keyId).hostname.toLowerCase() : null;
}

/**
 * Whether a parsed inbox body carries an FEP-8b32 object integrity proof naming a verification
 * method: such a body may come without an HTTP signature.
 */
export function carriesProof(json: unknown): boolean {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return false;
  const proofs = (json as { proof?: unknown }).proof;
  return (Array.isArray(proofs) ? proofs : [proofs]).some(
    (p) =>
      typeof p === 'object' &&
      p !== null &&
      typeof (p as { verificationMethod?: unknown }).verificationMethod === 'string' &&
      httpUrl((p as { verificationMethod: string }).verificationMethod),
  );
}
