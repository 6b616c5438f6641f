import {
  IDEMPOTENCY_TTL_HOURS,
  IdempotencyErrors,
  isSameRequest,
  type IdempotencyRequest,
  type IdempotentAnswer,
  type StoredIdempotentAnswer,
} from '@blog/contracts';
import type { DataSource, EntityManager, MigrationInterface, QueryRunner } from 'typeorm';
import { RpcError } from './rpc-error.js';

/** The table every service that takes keyed writes keeps in its own schema. */
const TABLE = 'idempotency_keys';
const FRESH = `created_at >= now() - interval '${IDEMPOTENCY_TTL_HOURS} hours'`;
const PURGE_EVERY_MS = 60 * 60 * 1000;

/**
 * The migration of every service that takes keyed writes: its key table, in the schema on
 * its search_path (posts and media list it among their own migrations).
 */
export class IdempotencyKeys1764300000000 implements MigrationInterface {
  name = 'IdempotencyKeys1764300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE ${TABLE} (
        key text PRIMARY KEY,
        fingerprint text NOT NULL,
        answer jsonb,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX ${TABLE}_created_idx ON ${TABLE} (created_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE ${TABLE}`);
  }
}

/**
 * Keyed writes, done once. The key's row is inserted in the write's own transaction and the
 * answer saved with it, so a key is remembered exactly when its write was committed. A second
 * request with the key while the first is still in its transaction waits on the row's lock
 * (PostgreSQL's INSERT … ON CONFLICT), then gets the first answer; one with another
 * fingerprint gets 422. Keys are forgotten after IDEMPOTENCY_TTL_HOURS.
 */
export class IdempotencyLedger {
  private lastPurge = 0;

  constructor(private readonly db: DataSource) {}

  /** A write in its own transaction; with the client's key, done once per key. */
  write<T>(
    request: IdempotencyRequest | undefined,
    work: (manager: EntityManager) => Promise<T>,
  ): Promise<IdempotentAnswer<T>> {
    if (request) return this.once(request, work);
    return this.db.transaction(work).then((answer) => ({ answer, replayed: false }));
  }

  async once<T>(
    request: IdempotencyRequest,
    write: (manager: EntityManager) => Promise<T>,
  ): Promise<IdempotentAnswer<T>> {
    this.purgeNowAndThen();
    return this.db.transaction(async (manager) => {
      await manager.query(`DELETE FROM ${TABLE} WHERE key = $1 AND NOT (${FRESH})`, [request.key]);
      const claimed: unknown[] = await manager.query(
        `INSERT INTO ${TABLE} (key, fingerprint) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING RETURNING key`,
        [request.key, request.fingerprint],
      );
      if (claimed.length === 0) {
        const [first] = await this.rows<T>(manager, request.key);
        if (!first) throw RpcError.conflict(IdempotencyErrors.inProgress);
        if (!isSameRequest(first, request.fingerprint))
          throw RpcError.unprocessable(IdempotencyErrors.reused);
        return { answer: first.answer, replayed: true };
      }
      const answer = await write(manager);
      await manager.query(`UPDATE ${TABLE} SET answer = $2 WHERE key = $1`, [
        request.key,
        JSON.stringify(answer ?? null),
      ]);
      return { answer, replayed: false };
    });
  }

  /** The key's stored answer, or null when the key is new (or forgotten). */
  async answerOf<T>(key: string): Promise<StoredIdempotentAnswer<T> | null> {
    const [row] = await this.rows<T>(this.db.manager, key);
    return row ?? null;
  }

  /** Deletes keys past their time; returns how many went. */
  async purge(): Promise<number> {
    const [, affected] = (await this.db.query(`DELETE FROM ${TABLE} WHERE NOT (${FRESH})`)) as [
      unknown,
      number,
    ];
    return affected ?? 0;
  }

  private rows<T>(manager: EntityManager, key: string): Promise<StoredIdempotentAnswer<T>[]> {
    return manager.query(`SELECT fingerprint, answer FROM ${TABLE} WHERE key = $1 AND ${FRESH}`, [key]);
  }

  /** At most once an hour per process, in the background: the table stays a day's keys. */
  private purgeNowAndThen(): void {
    if (Date.now() - this.lastPurge < PURGE_EVERY_MS) return;
    this.lastPurge = Date.now();
    this.purge().catch(() => (this.lastPurge = 0));
  }
}
