import { createHash } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import { ErrorText } from '@blog/contracts';
import { isPrivateKey, isValidKey, RangeNotSatisfiableError, type ObjectStorage } from '@blog/server-kit';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { etagMatches, parseRange } from './range.js';

const PREFIX = '/uploads/';
const CACHE_FOREVER = 'public, max-age=31536000, immutable';
/** Types a browser shows inline without running anything; everything else is a download. */
const INLINE_TYPE = /^(image\/(?!svg)|video\/|audio\/)/i;

export interface UploadsMiddlewareOptions {
  /** Told about storage failures (a 500 was sent, or a stream broke after the headers). */
  onError?: (error: unknown, req: Request) => void;
}

/** Strong ETag from the key and size: keys are never reused for other content. */
export function uploadEtag(key: string, size: number): string {
  const digest = createHash('sha256').update(`${key}\n${size}`).digest('base64url').slice(0, 22);
  return `"${size.toString(36)}-${digest}"`;
}

/**
 * The key a request path names, or null when it names none that may be served: anything
 * percent-encoded (no valid key needs it, so `%2e%2e` and `%2f` never get decoded into a
 * traversal), backslashes, `.`/`..`/empty segments, and keys under `private/`.
 */
export function publicKeyFromPath(path: string): string | null {
  if (!path.startsWith(PREFIX)) return null;
  const key = path.slice(PREFIX.length);
  if (key.includes('%') || key.includes('\\') || !isValidKey(key) || isPrivateKey(key)) return null;
  return key;
}

function notFound(res: Response): void {
  res.status(404).json({ error: ErrorText.notFound });
}

function isPrematureClose(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | null)?.code === 'ERR_STREAM_PREMATURE_CLOSE';
}

/**
 * Serves GET and HEAD `/uploads/<key>` from object storage; other paths and methods go
 * to `next()`. Mount it on the app itself (not under a path): it reads `req.originalUrl`.
 *
 * - 404 `{"error":"Not found"}` for missing, invalid, traversal and `private/` keys.
 * - Content-Type as stored, `X-Content-Type-Options: nosniff`; types other than
 *   image/video/audio (and SVG) are sent as attachments under a `sandbox` CSP.
 * - `Accept-Ranges: bytes`; one `Range` → 206 + Content-Range; malformed or unsatisfiable
 *   → 416 with `Content-Range: bytes *\/size`; `If-Range` with another ETag → full body.
 * - `ETag` from key + size, `If-None-Match` → 304, cached for a year as immutable.
 * - `Cross-Origin-Resource-Policy: cross-origin`, so images show in the digest e-mail.
 * - The body is streamed; a client that goes away destroys the storage stream.
 */
export function uploadsMiddleware(
  storage: ObjectStorage,
  options: UploadsMiddlewareOptions = {},
): RequestHandler {
  const report = (error: unknown, req: Request) => {
    if (!isPrematureClose(error)) options.onError?.(error, req);
  };

  return async (req: Request, res: Response, next: NextFunction) => {
    const path = (req.originalUrl || req.url).split('?')[0];
    if (path !== '/uploads' && !path.startsWith(PREFIX)) return next();
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const key = publicKeyFromPath(path);
    if (!key) return notFound(res);

    try {
      const stat = await storage.stat(key);
      if (!stat) return notFound(res);
      const etag = uploadEtag(key, stat.size);
      res.setHeader('ETag', etag);
      res.setHeader('Cache-Control', CACHE_FOREVER);
      res.setHeader('Accept-Ranges', 'bytes');
      res.setHeader('X-Content-Type-Options', 'nosniff');
      res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
      if (etagMatches(req.header('if-none-match'), etag)) {
        res.status(304).end();
        return;
      }

      const ifRange = req.header('if-range');
      const rangeHeader = ifRange === undefined || ifRange.trim() === etag ? req.header('range') : undefined;
      const range = parseRange(rangeHeader, stat.size);
      if (range.kind === 'unsatisfiable') {
        res.setHeader('Content-Range', `bytes */${stat.size}`);
        res.status(416).json({ error: 'Range not satisfiable' });
        return;
      }

      const sendHeaders = (size: number, contentType: string, span?: { start: number; end: number }) => {
        res.setHeader('Content-Type', contentType);
        if (!INLINE_TYPE.test(contentType)) {
          res.setHeader('Content-Disposition', 'attachment');
          res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
        }
        if (span) {
          res.status(206);
          res.setHeader('Content-Range', `bytes ${span.start}-${span.end}/${size}`);
          res.setHeader('Content-Length', String(span.end - span.start + 1));
        } else {
          res.status(200);
          res.setHeader('Content-Length', String(size));
        }
      };

      const span = range.kind === 'range' ? { start: range.start, end: range.end } : undefined;
      if (req.method === 'HEAD') {
        sendHeaders(stat.size, stat.contentType, span);
        res.end();
        return;
      }

      let object;
      try {
        object = await storage.get(key, span);
      } catch (error) {
        if (!(error instanceof RangeNotSatisfiableError)) throw error;
        res.setHeader('Content-Range', `bytes */${error.size}`);
        res.status(416).json({ error: 'Range not satisfiable' });
        return;
      }
      if (!object) return notFound(res);
      const { body } = object;
      if (object.size !== stat.size) res.setHeader('ETag', uploadEtag(key, object.size));
      sendHeaders(object.size, object.contentType, object.range);
      res.on('close', () => {
        if (!res.writableFinished) body.destroy();
      });
      await pipeline(body, res).catch((error) => {
        body.destroy();
        if (!res.destroyed) res.destroy();
        report(error, req);
      });
    } catch (error) {
      report(error, req);
      if (res.headersSent) {
        res.destroy();
        return;
      }
      for (const header of [
        'ETag',
        'Cache-Control',
        'Accept-Ranges',
        'Content-Range',
        'Content-Disposition',
        'Content-Type',
        'Content-Length',
      ]) {
        res.removeHeader(header);
      }
      res.status(500).json({ error: ErrorText.internal });
    }
  };
}
