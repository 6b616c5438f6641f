import { createHash } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { CompressibleText, responseEncoding } from './compression.js';

interface Entry {
  /** Compressed once per encoding, on first demand, for every later reader. */
  body: CompressibleText;
  etag: string;
  headers: Record<string, string>;
  storedAt: number;
}

type Waiter = (entry: Entry | null) => void;

const PRUNE_EVERY_MS = 60_000;

/** Headers a cached answer keeps besides its body. */
const KEPT_HEADERS = ['x-total-count'];

/**
 * A short-lived cache of public GET answers (post lists, posts, the site config) with
 * ETags: repeated reads skip the services and If-None-Match gets a 304. One request at a
 * time refreshes an expired answer while the others get the previous one (for at most
 * `staleMs`) or wait for it, so a burst never turns into a burst of identical service calls.
 * Requests with an Authorization header (the admin sees unprocessed media) bypass it. A
 * write through this gateway clears it; other replicas and background processing show
 * within `ttlMs`. When the service fails (5xx, a broker restart), the last good answer is
 * served instead, for up to `staleIfErrorMs` (stale-if-error, marked `X-Cache: stale`).
 */
export class PublicCache {
  private readonly entries = new Map<string, Entry>();
  private readonly refreshing = new Map<string, Waiter[]>();
  private readonly values = new Map<string, { value: Promise<unknown>; storedAt: number }>();
  /** The last good answer and value of each key, for stale-if-error; a write does not clear them. */
  private readonly lastGood = new Map<string, Entry>();
  private readonly lastGoodValues = new Map<string, { value: unknown; storedAt: number }>();
  private generation = 0;
  /** Answers served stale because the service failed (for logs and benchmarks). */
  staleServed = 0;

  private readonly staleMs: number;
  private readonly staleIfErrorMs: number;
  private readonly maxEntries: number;
  private readonly paths: RegExp;

  constructor(
    private readonly ttlMs: number,
    options: {
      /** How old an answer may be that is served while one request refreshes it. */
      staleMs?: number;
      /** How old an answer may be that is served when the service fails. */
      staleIfErrorMs?: number;
      maxEntries?: number;
      paths?: RegExp;
    } = {},
  ) {
    this.staleMs = options.staleMs ?? ttlMs * 5;
    this.staleIfErrorMs = options.staleIfErrorMs ?? 60_000;
    this.maxEntries = options.maxEntries ?? 2000;
    this.paths = options.paths ?? /^\/api\/(posts|site)(\/|$)/;
    setInterval(() => this.prune(), PRUNE_EVERY_MS).unref();
  }

  /** How many answers and values it holds, last good ones included. */
  get size(): number {
    return this.entries.size + this.values.size + this.lastGood.size + this.lastGoodValues.size;
  }

  /**
   * Drops what can no longer be served: answers past `staleMs`, values past the TTL, last good
   * ones past stale-if-error. Run every minute, so a quiet blog does not hold the pages a
   * crawler asked for (up to `maxEntries` of each kind) until the next request replaces them.
   */
  prune(now = Date.now()): void {
    const dropOlder = (map: Map<string, { storedAt: number }>, ms: number) => {
      for (const [key, { storedAt }] of map) if (now - storedAt > ms) map.delete(key);
    };
    dropOlder(this.entries, this.staleMs);
    dropOlder(this.values, this.ttlMs);
    dropOlder(this.lastGood, this.staleIfErrorMs);
    dropOlder(this.lastGoodValues, this.staleIfErrorMs);
  }

  clear(): void {
    this.entries.clear();
    this.values.clear();
    this.generation++;
  }

  /**
   * The same rule for what the gateway builds from public reads (pages, the feed): a value
   * is computed once, shared by whoever asks meanwhile, kept for the TTL unless `keep` says
   * otherwise, and dropped by a write.
   */
  memo<T>(key: string, compute: () => Promise<T>, keep: (value: T) => boolean = () => true): Promise<T> {
    if (this.ttlMs === 0) return compute();
    const hit = this.values.get(key);
    if (hit && Date.now() - hit.storedAt < this.ttlMs) return hit.value as Promise<T>;
    const computing = compute();
    const entry = { value: this.orLastGood(key, computing, keep), storedAt: Date.now() };
    this.values.delete(key);
    if (this.values.size >= this.maxEntries) this.values.delete(this.values.keys().next().value!);
    this.values.set(key, entry);
    const drop = () => {
      if (this.values.get(key) === entry) this.values.delete(key);
    };
    // Kept only when the computation itself was good: a last good value stands in once, not for the TTL.
    computing.then((value) => !keep(value) && drop(), drop);
    return entry.value as Promise<T>;
  }

  /** The computed value, remembered when good; the last good one instead when it fails or is not worth keeping. */
  private orLastGood<T>(key: string, computing: Promise<T>, keep: (value: T) => boolean): Promise<unknown> {
    const fallback = () => {
      const last = this.lastGoodValues.get(key);
      if (!last || Date.now() - last.storedAt > this.staleIfErrorMs) return null;
      this.staleServed++;
      return last;
    };
    return computing.then(
      (value) => {
        if (keep(value)) {
          remember(this.lastGoodValues, key, { value, storedAt: Date.now() }, this.maxEntries);
          return value;
        }
        return fallback()?.value ?? value;
      },
      (error: unknown) => {
        const last = fallback();
        if (last) return last.value;
        throw error;
      },
    );
  }

  middleware() {
    return (req: Request, res: Response, next: NextFunction) => {
      if (req.method !== 'GET' || req.headers.authorization || !this.paths.test(req.path)) {
        return next();
      }
      const key = req.originalUrl;
      const entry = this.entries.get(key);
      const age = entry ? Date.now() - entry.storedAt : Infinity;
      if (entry && age < this.ttlMs) return this.reply(req, res, entry);
      const waiters = this.refreshing.get(key);
      if (waiters) {
        if (entry && age < this.staleMs) return this.reply(req, res, entry);
        waiters.push((fresh) => (fresh ? this.reply(req, res, fresh) : next()));
        return;
      }
      this.lead(key, res);
      next();
    };
  }

  /** This request refreshes `key`; whoever waits gets its answer (or runs on its own if it fails). */
  private lead(key: string, res: Response) {
    const waiters: Waiter[] = [];
    this.refreshing.set(key, waiters);
    const generation = this.generation;
    let settled = false;
    const settle = (entry: Entry | null, fresh = true) => {
      if (settled) return;
      settled = true;
      this.refreshing.delete(key);
      if (entry && fresh && this.ttlMs > 0 && generation === this.generation) this.store(key, entry);
      for (const waiter of waiters) waiter(entry);
    };
    const json = res.json.bind(res);
    res.json = (body: unknown) => {
      if (res.statusCode !== 200) {
        // The service failed: the last good answer, if young enough, rather than an error page.
        const last = res.statusCode >= 500 ? this.lastGood.get(key) : undefined;
        if (last && this.ttlMs > 0 && Date.now() - last.storedAt <= this.staleIfErrorMs) {
          this.staleServed++;
          settle(last, false);
          this.reply(res.req, res, last);
          return res;
        }
        settle(null);
        return json(body);
      }
      const entry = this.entry(body, res);
      settle(entry);
      this.reply(res.req, res, entry);
      return res;
    };
    res.on('close', () => settle(null));
  }

  private entry(body: unknown, res: Response): Entry {
    const buffer = Buffer.from(JSON.stringify(body));
    const headers: Record<string, string> = {};
    for (const name of KEPT_HEADERS) {
      const value = res.getHeader(name);
      if (value !== undefined) headers[name] = String(value);
    }
    const etag = `W/"${createHash('sha1').update(buffer).digest('base64url')}"`;
    return { body: new CompressibleText(buffer), etag, headers, storedAt: Date.now() };
  }

  private store(key: string, entry: Entry) {
    remember(this.lastGood, key, entry, this.maxEntries);
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(key, entry);
  }

  private reply(req: Request, res: Response, entry: Entry) {
    res.vary('Accept-Encoding');
    if (Date.now() - entry.storedAt > this.ttlMs) res.setHeader('X-Cache', 'stale');
    res.setHeader('ETag', entry.etag);
    res.setHeader('Cache-Control', 'no-cache');
    for (const [name, value] of Object.entries(entry.headers)) res.setHeader(name, value);
    const tags = (req.headers['if-none-match'] ?? '').split(',').map((t) => t.trim());
    if (tags.includes(entry.etag) || tags.includes('*')) {
      res.status(304).end();
      return;
    }
    res.status(200).type('application/json');
    const encoding = responseEncoding(req, res, entry.body.size);
    if (!encoding) {
      res.end(entry.body.text);
      return;
    }
    res.setHeader('Content-Encoding', encoding);
    res.end(entry.body.as(encoding));
  }
}

/** Sets `key` as the newest entry of a bounded map (the oldest goes past `max`). */
function remember<V>(map: Map<string, V>, key: string, value: V, max: number) {
  map.delete(key);
  if (map.size >= max) map.delete(map.keys().next().value!);
  map.set(key, value);
}
