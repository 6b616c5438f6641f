import { STATS_LIVE_MINUTES, VISITOR_KEY_HEX } from '@blog/contracts';
import { Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';

// ioredis loads only where the store is in Redis (one process keeps it in memory).
const require = createRequire(import.meta.url);

/**
 * Where the day's salt and the day's visitor keys live: never in PostgreSQL (so never in a
 * backup), only here, and only until shortly after their day (UTC) is over. In memory for one
 * posts process (`npm start`: a restart forgets the day's visitors, who are then counted once
 * more); in Redis, shared by every replica, when REDIS_URL is set.
 */
export interface VisitorStore {
  /** The salt of `day` (the same for every replica); a day already over gets a one-off salt no one keeps. */
  salt(day: string): Promise<string>;
  /** Records each (day, scope, visitor); true where it is the first time that day. */
  firstSeen(entries: readonly VisitorEntry[]): Promise<boolean[]>;
  /** The visitors seen at `at`, for the site and their post ("visitors right now"). */
  touch(entries: readonly LiveEntry[]): Promise<void>;
  /** Distinct visitors seen since `since` (ms), of the site or of one post. */
  live(since: number, postId?: number): Promise<number>;
  close(): Promise<void>;
}

/** `scope` is '' for the whole site, else a path: a visitor is counted once per day in each. */
export interface VisitorEntry {
  day: string;
  scope: string;
  visitor: string;
}
export interface LiveEntry {
  visitor: string;
  postId: number | null;
  at: number;
}

/** A late batch (sent just after midnight) still finds its day's salt and keys for this long. */
export const DAY_GRACE_MS = 2 * 60_000;
const LIVE_MS = STATS_LIVE_MINUTES * 60_000;
const PRUNE_EVERY_MS = 10_000;

/** When a day's salt and keys are forgotten: the end of that UTC day plus the grace. */
export const forgetAt = (day: string) => Date.parse(`${day}T00:00:00Z`) + 86_400_000 + DAY_GRACE_MS;
/** The key as held: its first VISITOR_KEY_HEX digits, as gateways send it (one not yet upgraded sends all 64). */
const short = (visitor: string) =>
  visitor.length === VISITOR_KEY_HEX ? visitor : visitor.slice(0, VISITOR_KEY_HEX);
const newSalt = () => randomBytes(32).toString('hex');

/** Keys one process holds at most (about 100 MB); past it a day's new keys are not counted as visitors. */
export const MEMORY_MAX_KEYS = 1_000_000;

export class MemoryVisitorStore implements VisitorStore {
  private readonly logger = new Logger(MemoryVisitorStore.name);
  private readonly salts = new Map<string, string>();
  /** Day, then scope, to the visitors' short keys. */
  private readonly seen = new Map<string, Map<string, Set<string>>>();
  private readonly recent = new Map<string, Map<string, number>>();
  private keys = 0;
  private prunedAt = 0;

  constructor(
    private readonly now: () => number = Date.now,
    private readonly maxKeys = MEMORY_MAX_KEYS,
  ) {}

  async salt(day: string): Promise<string> {
    this.forgetPastDays();
    if (forgetAt(day) <= this.now()) return newSalt();
    let salt = this.salts.get(day);
    if (!salt) this.salts.set(day, (salt = newSalt()));
    return salt;
  }

  async firstSeen(entries: readonly VisitorEntry[]): Promise<boolean[]> {
    this.forgetPastDays();
    const now = this.now();
    // A batch's entries share a day or two: its sets are looked up when the day changes, not per entry.
    let day = '';
    let gone = false;
    let scopes: Map<string, Set<string>> | undefined;
    // A view's entries (the site, its path) come one after the other: its short key is made once.
    let visitor = '';
    let key = '';
    return entries.map((entry) => {
      if (entry.day !== day) {
        day = entry.day;
        gone = forgetAt(day) <= now;
        scopes = this.seen.get(day);
      }
      if (gone) return true;
      if (entry.visitor !== visitor) key = short((visitor = entry.visitor));
      let set = scopes?.get(entry.scope);
      if (set?.has(key)) return false;
      if (this.keys >= this.maxKeys) {
        // A flood from very many addresses: memory stays bounded, the day's visitors stop growing.
        if (this.keys++ === this.maxKeys)
          this.logger.warn(`visitor keys: ${this.maxKeys} held, new ones not counted today`);
        return false;
      }
      if (!set) {
        if (!scopes) this.seen.set(day, (scopes = new Map()));
        scopes.set(entry.scope, (set = new Set()));
      }
      set.add(key);
      this.keys++;
      return true;
    });
  }

  async touch(entries: readonly LiveEntry[]): Promise<void> {
    const site = this.recentOf('');
    let postId: number | null = null;
    let post = site;
    for (const entry of entries) {
      const key = short(entry.visitor);
      seenAt(site, key, entry.at);
      if (entry.postId === null) continue;
      if (entry.postId !== postId) post = this.recentOf(String((postId = entry.postId)));
      seenAt(post, key, entry.at);
    }
    // Old entries go every few seconds, not on each batch (live() reads only recent ones).
    if (this.now() - this.prunedAt < PRUNE_EVERY_MS) return;
    this.prunedAt = this.now();
    const old = this.now() - LIVE_MS;
    for (const [scope, map] of this.recent) {
      for (const [visitor, at] of map) if (at <= old) map.delete(visitor);
      if (!map.size) this.recent.delete(scope);
    }
  }

  async live(since: number, postId?: number): Promise<number> {
    let n = 0;
    for (const at of this.recent.get(postId === undefined ? '' : String(postId))?.values() ?? [])
      if (at > since) n++;
    return n;
  }

  async close(): Promise<void> {}

  /** The last minutes' visitors of `scope` ('' the site, else a post id), made on first use. */
  private recentOf(scope: string): Map<string, number> {
    let map = this.recent.get(scope);
    if (!map) this.recent.set(scope, (map = new Map()));
    return map;
  }

  private forgetPastDays(): void {
    const now = this.now();
    for (const day of this.salts.keys()) if (forgetAt(day) <= now) this.salts.delete(day);
    for (const [day, scopes] of this.seen)
      if (forgetAt(day) <= now) {
        for (const set of scopes.values()) this.keys -= set.size;
        this.seen.delete(day);
      }
    if (!this.seen.size) this.keys = 0;
  }
}

/** Keeps the latest time `key` was seen. */
function seenAt(map: Map<string, number>, key: string, at: number): void {
  const seen = map.get(key);
  if (seen === undefined || seen < at) map.set(key, at);
}

/**
 * The same in Redis: `stats:salt:<day>` (SET NX), one SET of keys per day and scope, both
 * expiring at forgetAt(day); a sorted set per scope of the last minutes' visitors.
 */
export class RedisVisitorStore implements VisitorStore {
  private readonly logger = new Logger(RedisVisitorStore.name);
  private readonly redis: Redis;

  constructor(
    url: string,
    private readonly prefix = 'stats:',
    private readonly now: () => number = Date.now,
  ) {
    const { Redis: RedisClient } = require('ioredis') as typeof import('ioredis');
    this.redis = new RedisClient(url, { maxRetriesPerRequest: 2, lazyConnect: false });
    let lastLogged = 0;
    this.redis.on('error', (error: Error) => {
      if (Date.now() - lastLogged < 60_000) return;
      lastLogged = Date.now();
      this.logger.warn(`redis: ${error.message} (views wait in the gateway until it is back)`);
    });
  }

  async salt(day: string): Promise<string> {
    const until = forgetAt(day);
    if (until <= this.now()) return newSalt();
    const key = `${this.prefix}salt:${day}`;
    await this.redis.set(key, newSalt(), 'PXAT', until, 'NX');
    const salt = await this.redis.get(key);
    return salt ?? newSalt();
  }

  async firstSeen(entries: readonly VisitorEntry[]): Promise<boolean[]> {
    // A day already over has no set any more: its visitors are new (and nothing is kept).
    const now = this.now();
    const kept = entries.filter(({ day }) => forgetAt(day) > now);
    if (!kept.length) return entries.map(() => true);
    const pipeline = this.redis.pipeline();
    const expiring = new Map<string, number>();
    for (const { day, scope, visitor } of kept) {
      const key = `${this.prefix}visitors:${day}:${scope}`;
      pipeline.sadd(key, short(visitor));
      expiring.set(key, forgetAt(day));
    }
    for (const [key, until] of expiring) pipeline.pexpireat(key, until);
    const results = (await pipeline.exec()) ?? [];
    let i = 0;
    return entries.map(({ day }) => {
      if (forgetAt(day) <= now) return true;
      const [error, added] = results[i++]!;
      if (error) throw error;
      return added === 1;
    });
  }

  async touch(entries: readonly LiveEntry[]): Promise<void> {
    if (!entries.length) return;
    const pipeline = this.redis.pipeline();
    const scopes = new Set<string>();
    for (const { visitor, postId, at } of entries)
      for (const scope of postId === null ? ['site'] : ['site', `post:${postId}`]) {
        pipeline.zadd(`${this.prefix}live:${scope}`, 'GT', at, short(visitor));
        scopes.add(scope);
      }
    for (const scope of scopes) {
      pipeline.zremrangebyscore(`${this.prefix}live:${scope}`, '-inf', this.now() - LIVE_MS);
      pipeline.pexpire(`${this.prefix}live:${scope}`, 2 * LIVE_MS);
    }
    for (const [error] of (await pipeline.exec()) ?? []) if (error) throw error;
  }

  async live(since: number, postId?: number): Promise<number> {
    return this.redis.zcount(
      `${this.prefix}live:${postId === undefined ? 'site' : `post:${postId}`}`,
      `(${since}`,
      '+inf',
    );
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
