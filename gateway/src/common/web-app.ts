import express, { type NextFunction, type Request, type Response } from 'express';
import { existsSync, readdirSync } from 'node:fs';
import { extname, join, resolve, sep } from 'node:path';
import { pickEncoding, type Encoding } from './compression.js';

/** Served by the API controllers and the uploads middleware, never a page. */
export const API_PATHS = /^\/(api|uploads)(\/|$)/;
const SUFFIX: Record<Encoding, string> = { br: '.br', gzip: '.gz' };

/** Which files the build precompressed (web/vite.config.ts), by URL path: the build never changes. */
function precompressed(root: string): Map<string, Encoding[]> {
  const files = new Set(readdirSync(root, { recursive: true, encoding: 'utf8' }));
  const found = new Map<string, Encoding[]>();
  for (const file of files) {
    const encodings = (['br', 'gzip'] as const).filter((e) => files.has(file + SUFFIX[e]));
    if (encodings.length > 0) found.set(`/${file.split(sep).join('/')}`, encodings);
  }
  return found;
}

/**
 * Serves the files of the built web app in the embedded mode: hashed assets cached for a
 * year, the rest revalidated; the build's .br or .gz twin when the client takes it. Other
 * GETs go on to the page routes (the app shell with each page's tags).
 */
export function webAppMiddleware(dist: string) {
  const root = resolve(dist);
  if (!existsSync(join(root, 'index.html')))
    throw new Error(`WEB_DIST has no index.html: ${root} (run npm run build)`);
  const cacheControl = (path: string) =>
    path.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache';
  const variants = precompressed(root);
  const files = express.static(root, {
    index: false,
    setHeaders(res, path) {
      res.setHeader(
        'Cache-Control',
        cacheControl(
          `/${path
            .slice(root.length + 1)
            .split(sep)
            .join('/')}`,
        ),
      );
    },
  });
  return (req: Request, res: Response, next: NextFunction) => {
    if (API_PATHS.test(req.path) || (req.method !== 'GET' && req.method !== 'HEAD')) return next();
    // The bare shell has no page's tags (as nginx does): the home page is the one to load.
    if (req.path === '/index.html') return res.redirect(301, '/');
    const available = variants.get(req.path);
    if (!available) return files(req, res, next);
    res.vary('Accept-Encoding');
    const encoding = pickEncoding(req.headers['accept-encoding'], available);
    if (!encoding) return files(req, res, next);
    // The type of the file itself, not of its .br/.gz twin.
    res.type(extname(req.path));
    res.setHeader('Content-Encoding', encoding);
    res.setHeader('Cache-Control', cacheControl(req.path));
    res.sendFile(join(root, req.path + SUFFIX[encoding]), { cacheControl: false }, (error) => {
      if (error && !res.headersSent) next(error);
    });
  };
}
