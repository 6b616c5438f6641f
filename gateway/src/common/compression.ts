import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import { brotliCompressSync, constants, createBrotliCompress, createGzip, gzipSync } from 'node:zlib';
import type { Writable } from 'node:stream';

export type Encoding = 'br' | 'gzip';

/** Below this a compressed body saves less than its headers cost. */
const MIN_SIZE = 1024;
/**
 * Quality 11 is for build time. 5 packs a rendered 30-card section page (90 KB) into 13.8 KB
 * where 4 made 14.8 KB: under the 14.6 KB a new connection's first round trip carries, which
 * saves a phone a round trip before the first paint, for about 1 ms more per compression
 * (once per cached answer and encoding). A 64 KiB window: brotli's default (4 MiB) sets up 10
 * MB of tables for each answer, mapped afresh each time (the servers map blocks of 256 KiB and
 * more on their own, scripts/lib/server-runtime-env.mjs): 6.5 ms of CPU a page where this costs
 * 3.5, for the same size (a rendered page: 12,795 bytes against 12,813).
 */
const BROTLI_DYNAMIC = {
  params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_LGWIN]: 16 },
};

/**
 * The encoding to send among `available`: brotli before gzip whatever the order in the
 * header (browsers list gzip first, and a plain negotiation would then pick it), never one
 * the client refuses with q=0.
 */
export function pickEncoding(
  header: string | undefined,
  available: readonly Encoding[] = ['br', 'gzip'],
): Encoding | null {
  const q = new Map<string, number>();
  for (const part of (header ?? '').split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const weight = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)).find(Boolean);
    q.set(name, weight ? Number(weight[1]) : 1);
  }
  const accepts = (name: Encoding) => (q.get(name) ?? q.get('*') ?? 0) > 0;
  return (['br', 'gzip'] as const).find((name) => available.includes(name) && accepts(name)) ?? null;
}

/** The encoding for this answer of `size` bytes (Vary set, as the answer depends on the header). */
export function responseEncoding(req: Request, res: Response, size: number): Encoding | null {
  res.vary('Accept-Encoding');
  return size >= MIN_SIZE ? pickEncoding(req.headers['accept-encoding']) : null;
}

export function compress(body: string | Buffer, encoding: Encoding): Buffer {
  return encoding === 'br' ? brotliCompressSync(body, BROTLI_DYNAMIC) : gzipSync(body);
}

/**
 * A generated answer kept for many readers (a cached page or API answer): compressed once per
 * encoding, when first asked.
 */
export class CompressibleText {
  readonly size: number;
  private readonly encoded: Partial<Record<Encoding, Buffer>> = {};
  private readonly etags: Partial<Record<Encoding | 'identity', string>> = {};
  private bytes?: Buffer;

  constructor(readonly text: string | Buffer) {
    this.size = typeof text === 'string' ? Buffer.byteLength(text) : text.length;
  }

  as(encoding: Encoding): Buffer {
    return (this.encoded[encoding] ??= compress(this.text, encoding));
  }

  /** The answer's body: the text's UTF-8 bytes, or its compressed twin; each made once. */
  body(encoding: Encoding | null | undefined): Buffer {
    if (encoding) return this.as(encoding);
    return (this.bytes ??= typeof this.text === 'string' ? Buffer.from(this.text) : this.text);
  }

  /** The ETag Express gives that body (the etag package's weak form), made once. */
  etag(encoding: Encoding | null | undefined): string {
    return (this.etags[encoding ?? 'identity'] ??= weakEtag(this.body(encoding)));
  }
}

/** etag's `W/"<length in hex>-<27 characters of the SHA-1 in base64>"`, as Express sends it. */
function weakEtag(body: Buffer): string {
  if (body.length === 0) return 'W/"0-2jmj7l5rSw0yVb/vlWAYkK/YBwk"';
  const hash = createHash('sha1').update(body).digest('base64').substring(0, 27);
  return `W/"${body.length.toString(16)}-${hash}"`;
}

/**
 * Sends a generated text answer (a page, a feed), compressed when the client takes it. Goes
 * through res.send, which answers If-None-Match with 304. A cached page's text is sent on every
 * read: its bytes and ETag are made once (converting and hashing 60 KB on each read took a
 * fifth of the gateway's CPU per cached page).
 */
export function sendText(req: Request, res: Response, body: string | CompressibleText, type: string): void {
  res.type(type);
  const text = typeof body === 'string' ? new CompressibleText(body) : body;
  const encoding = responseEncoding(req, res, text.size);
  if (encoding) res.setHeader('Content-Encoding', encoding);
  res.setHeader('ETag', text.etag(encoding));
  res.send(text.body(encoding));
}

/** A streamed answer (the sitemap) through a compressor when the client takes one. */
export function compressedStream(req: Request, res: Response): Writable {
  res.vary('Accept-Encoding');
  const encoding = pickEncoding(req.headers['accept-encoding']);
  if (!encoding) return res;
  res.setHeader('Content-Encoding', encoding);
  const compressor = encoding === 'br' ? createBrotliCompress(BROTLI_DYNAMIC) : createGzip();
  compressor.pipe(res);
  return compressor;
}
