import express, { type NextFunction, type Request, type Response } from 'express';
import { existsSync, readdirSync } from 'node:fs';
import { extname, join, resolve, sep } from 'node:path';
import { pickEncoding, type Encoding } from './compression.js';

/** Served by the API controllers and the uploads middleware, never a page. */
export const API_PATHS = /^\/(api|uploads)(\/|$)/;
const SUFFIX: Record<Encoding, string> = { br: '.br', gzip: '.gz' };

/**
 * The build's files by URL path, with the encodings it precompressed each in
 * (web/vite.config.ts): the build never changes while the gateway runs.
 */
function buildFiles(root: string): Map<string, Encoding[]> {
  const files = new Set(readdirSync(root, { recursive: true, encoding: 'utf8' }));
  const found = new Map<string, Encoding[]>();
  for (const file of files) {
    const encodings = (['br', 'gzip'] as const).filter((e) => files.has(file + SUFFIX[e]));
    found.set(`/${file.split(sep).join('/')}`, encodings);
  }
  return found;
}

/** The URL path as a file name (percent-decoded); null when it does not decode. */
function decodedPath(path: string): string | null {
  try {
    return decodeURIComponent(path);
  } catch {
    return null;
  }
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
  const variants = buildFiles(root);
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
    const decoded = decodedPath(req.path);
    const available = decoded === null ? undefined : variants.get(decoded);
    // A page, not a file of the build: no look on the disk (a stat on every page read).
    if (!available) return next();
    if (available.length === 0) return files(req, res, next);
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
