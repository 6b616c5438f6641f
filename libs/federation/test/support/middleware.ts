// Test support: the federation served from an Express app, for this library's tests over real HTTP.
// The blog itself serves it through the gateway's proxy and the social service's RPC handler. Not
// @fedify/express (G3: it writes its 406 after next() already answered, crashing a Nest app with
// ERR_HTTP_HEADERS_SENT, and has no body cap).
import { Readable, Transform, type TransformCallback } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { FEDERATION_MAX_BODY_BYTES } from '@blog/contracts';
import { INBOX_PATHS, type BlogFederation } from '../../src/federation.js';

export interface FederationMiddlewareOptions {
  /** Inbox POST bodies past this answer 413. Default 256 KB. */
  maxInboxBytes?: number;
}

/** The contracts' cap, the one the gateway and the social service apply. */
export const DEFAULT_MAX_INBOX_BYTES = FEDERATION_MAX_BODY_BYTES;

export function federationMiddleware(
  blog: BlogFederation,
  options: FederationMiddlewareOptions = {},
): RequestHandler {
  const max = options.maxInboxBytes ?? DEFAULT_MAX_INBOX_BYTES;
  return (req: Request, res: Response, next: NextFunction) => {
    const handle = async () => {
      // The site URL, not the Host header: signatures cover the target URI and ids are built from it.
      const url = new URL(req.originalUrl, blog.origin);
      const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
      const inbox = hasBody && INBOX_PATHS.test(url.pathname);
      if (inbox && Number(req.headers['content-length'] ?? 0) > max) return tooLarge(res);
      const headers = new Headers();
      for (const [key, value] of Object.entries(req.headers))
        for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value])
          headers.append(key, v);
      // Fedify answers 400 when the body fails mid-way: the flag turns that into our 413.
      let exceeded = false;
      const body = hasBody
        ? Readable.toWeb(inbox ? capped(req, max, () => (exceeded = true)) : req)
        : undefined;
      const request = new Request(url, {
        method: req.method,
        headers,
        body: body as unknown as ReadableStream<Uint8Array> & NodeReadableStream,
        duplex: 'half',
      } as RequestInit);
      let response: Response | null;
      try {
        response = (await blog.respond(request)) as unknown as Response | null;
      } catch (error) {
        if (exceeded) return tooLarge(res);
        throw error;
      }
      if (exceeded) return tooLarge(res);
      // The blog's own routes answer: pages for HTML, its 404, its 410 for a deleted post's page.
      if (!response) return next();
      return send(response as unknown as globalThis.Response, res);
    };
    handle().catch((error: unknown) => (res.headersSent ? res.destroy(error as Error) : next(error)));
  };
}

function tooLarge(res: Response): void {
  res.status(413).set('connection', 'close').json({ error: 'payload too large' });
}

async function send(response: globalThis.Response, res: Response): Promise<void> {
  res.status(response.status);
  response.headers.forEach((value, key) => res.setHeader(key, value));
  if (!response.body) {
    res.end();
    return;
  }
  const body = Readable.fromWeb(response.body as unknown as NodeReadableStream);
  await new Promise<void>((resolve, reject) => {
    body.on('error', reject);
    res.on('finish', resolve);
    res.on('close', resolve);
    body.pipe(res);
  });
}

/** The body, failing past `max` bytes (a chunked upload has no Content-Length to check first). */
function capped(req: Request, max: number, onExceeded: () => void): Readable {
  let seen = 0;
  const cap = new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) {
      seen += chunk.length;
      if (seen > max) {
        onExceeded();
        done(new Error('body too large'));
      } else done(null, chunk);
    },
  });
  req.on('error', (error) => cap.destroy(error));
  return req.pipe(cap);
}
