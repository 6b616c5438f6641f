import { createHash } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

interface Entry {
  body: Buffer;
  etag: string;
  headers: Record<string, string>;
  storedAt: number;
}

/** Headers a cached answer keeps besides its body. */
const KEPT_HEADERS = ['x-total-count'];

/**
 * A short-lived cache of public GET answers (post lists, posts, the site config) with
 * ETags: repeated reads skip the services entirely and If-None-Match gets a 304. Requests
 * with an Authorization header (the admin sees unprocessed media) bypass it. A write
 * through this gateway clears it; other replicas and background processing are seen
 * within `ttlMs`.
 */
export class PublicCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 2000,
    private readonly paths = /^\/api\/(posts|site)(\/|$)/,
  ) {}

  clear(): void {
    this.entries.clear();
  }

  middleware() {
    return (req: Request, res: Response, next: NextFunction) => {
      if (req.method !== 'GET' || req.headers.authorization || !this.paths.test(req.path)) return next();
      const key = req.originalUrl;
      const hit = this.entries.get(key);
      if (hit && Date.now() - hit.storedAt < this.ttlMs) return this.reply(req, res, hit);
      const json = res.json.bind(res);
      res.json = (body: unknown) => {
        if (res.statusCode !== 200) return json(body);
        const entry = this.entry(body, res);
        if (this.ttlMs > 0) this.store(key, entry);
        this.reply(req, res, entry);
        return res;
      };
      next();
    };
  }

  private entry(body: unknown, res: Response): Entry {
    const buffer = Buffer.from(JSON.stringify(body));
    const headers: Record<string, string> = {};
    for (const name of KEPT_HEADERS) {
      const value = res.getHeader(name);
      if (value !== undefined) headers[name] = String(value);
    }
    const etag = `W/"${createHash('sha1').update(buffer).digest('base64url')}"`;
    return { body: buffer, etag, headers, storedAt: Date.now() };
  }

  private store(key: string, entry: Entry) {
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.delete(key);
    this.entries.set(key, entry);
  }

  private reply(req: Request, res: Response, entry: Entry) {
    res.setHeader('ETag', entry.etag);
    res.setHeader('Cache-Control', 'no-cache');
    for (const [name, value] of Object.entries(entry.headers)) res.setHeader(name, value);
    const tags = (req.headers['if-none-match'] ?? '').split(',').map((t) => t.trim());
    if (tags.includes(entry.etag) || tags.includes('*')) {
      res.status(304).end();
      return;
    }
    res.status(200).type('application/json').end(entry.body);
  }
}
