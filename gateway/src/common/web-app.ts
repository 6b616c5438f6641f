import express, { type NextFunction, type Request, type Response } from 'express';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

const API_PATHS = /^\/(api|uploads)(\/|$)/;

/**
 * Serves the built web app in the embedded mode: hashed assets cached for a year, and
 * index.html (never cached) for every other GET so client-side routes load.
 */
export function webAppMiddleware(dist: string) {
  const root = resolve(dist);
  const index = join(root, 'index.html');
  if (!existsSync(index)) throw new Error(`WEB_DIST has no index.html: ${root} (run npm run build)`);
  const assets = express.static(root, {
    index: false,
    setHeaders(res, path) {
      res.setHeader(
        'Cache-Control',
        path.includes('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache',
      );
    },
  });
  return (req: Request, res: Response, next: NextFunction) => {
    if (API_PATHS.test(req.path) || (req.method !== 'GET' && req.method !== 'HEAD')) return next();
    assets(req, res, () => {
      res.setHeader('Cache-Control', 'no-cache');
      res.sendFile(index);
    });
  };
}
