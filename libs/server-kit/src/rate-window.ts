import type { DataSource, MigrationInterface, QueryRunner } from 'typeorm';
import { RpcError } from './rpc-error.js';

/** The table a service keeps its windows in, in the schema on its search_path. */
const TABLE = 'rate_windows';

/** The migration of every service that limits with a RateWindow (listed among its own migrations). */
export class RateWindows1764800000000 implements MigrationInterface {
  name = 'RateWindows1764800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE ${TABLE} (
        key text PRIMARY KEY,
        hits int NOT NULL,
        window_started_at timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX ${TABLE}_started_idx ON ${TABLE} (window_started_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE ${TABLE}`);
  }
}

/** At most `max` hits per key in a fixed window of `windowSeconds` that starts at the key's first hit. */
export interface RateLimit {
  max: number;
  windowSeconds: number;
}

/**
 * Fixed-window counters kept in PostgreSQL, so they survive a restart and every replica shares
 * them. A hit is counted atomically (one INSERT … ON CONFLICT) before the work it guards, so
 * parallel tries on several replicas cannot slip past the limit. `now` is the clock (tests
 * move it); the database's own clock is not used.
 */
export class RateWindow {
  constructor(
    private readonly db: DataSource,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts one hit; throws 429 (`message`, Retry-After in seconds) once the window's allowance is used up. */
  async admit(key: string, limit: RateLimit, message: string): Promise<void> {
    const rows: { hits: number; ends_at: Date }[] = await this.db.query(
      `INSERT INTO ${TABLE} AS w (key, hits, window_started_at) VALUES ($1, 1, $3)
       ON CONFLICT (key) DO UPDATE SET
         hits = CASE WHEN w.window_started_at <= $3::timestamptz - make_interval(secs => $2) THEN 1 ELSE w.hits + 1 END,
         window_started_at = CASE WHEN w.window_started_at <= $3::timestamptz - make_interval(secs => $2) THEN $3 ELSE w.window_started_at END
       RETURNING hits, window_started_at + make_interval(secs => $2) AS ends_at`,
      [key, limit.windowSeconds, new Date(this.now())],
    );
    const row = rows[0]!;
    if (row.hits > limit.max) throw RpcError.tooManyRequests(message, this.secondsUntil(row.ends_at));
  }

  /** When the key's window ends if its allowance is used up (the next hit would be refused); else null. */
  async blockedUntil(key: string, limit: RateLimit): Promise<Date | null> {
    const rows: { hits: number; ends_at: Date }[] = await this.db.query(
      `SELECT hits, window_started_at + make_interval(secs => $2) AS ends_at FROM ${TABLE} WHERE key = $1`,
      [key, limit.windowSeconds],
    );
    const row = rows[0];
    return row && row.hits >= limit.max && row.ends_at.getTime() > this.now() ? row.ends_at : null;
  }

  async reset(key: string): Promise<void> {
    await this.db.query(`DELETE FROM ${TABLE} WHERE key = $1`, [key]);
  }

  /** Removes every key that starts with `prefix` and ends with `suffix`: e.g. one account's windows from every address. */
  async resetMatching(prefix: string, suffix: string): Promise<void> {
    await this.db.query(
      `DELETE FROM ${TABLE}
       WHERE starts_with(key, $1) AND right(key, length($2)) = $2 AND length(key) >= length($1) + length($2)`,
      [prefix, suffix],
    );
  }

  /** Windows older than `windowSeconds` count for nothing; keeps the table small. */
  async purgeOlderThan(windowSeconds: number): Promise<void> {
    await this.db.query(
      `DELETE FROM ${TABLE} WHERE window_started_at <= $2::timestamptz - make_interval(secs => $1)`,
      [windowSeconds, new Date(this.now())],
    );
  }

  private secondsUntil(end: Date): number {
    return Math.max(1, Math.ceil((end.getTime() - this.now()) / 1000));
  }
}
