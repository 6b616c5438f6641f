// Fedify's KvStore and MessageQueue on the `pg` driver the blog already uses (@fedify/postgres needs
// another driver, does not type-check against Fedify 2 and loses a message on a crash: design G4).
import type {
  KvKey,
  KvStore,
  KvStoreListEntry,
  KvStoreSetOptions,
  MessageQueue,
  MessageQueueEnqueueOptions,
  MessageQueueListenOptions,
} from '@fedify/fedify';
import type { Pool, PoolClient } from 'pg';
import type { MigrationInterface, QueryRunner } from 'typeorm';

export const FEDIFY_KV_TABLE = 'fedify_kv';
export const FEDIFY_MQ_TABLE = 'fedify_mq';
const CHANNEL = 'fedify_mq';

/**
 * The stores' tables, in the schema on the owning service's search_path (listed among its migrations).
 * The KV table is UNLOGGED: caches and idempotency marks, cheap to lose in a crash; the queue is logged,
 * so deliveries survive a restart.
 */
export class FedifyStores1765000000000 implements MigrationInterface {
  name = 'FedifyStores1765000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE UNLOGGED TABLE ${FEDIFY_KV_TABLE} (key text[] PRIMARY KEY, value jsonb NOT NULL, expires timestamptz)`,
    );
    await q.query(
      `CREATE INDEX ${FEDIFY_KV_TABLE}_expires_idx ON ${FEDIFY_KV_TABLE} (expires) WHERE expires IS NOT NULL`,
    );
    await q.query(`
      CREATE TABLE ${FEDIFY_MQ_TABLE} (
        id bigserial PRIMARY KEY,
        message jsonb NOT NULL,
        run_at timestamptz NOT NULL DEFAULT now(),
        ordering_key text,
        leased_until timestamptz
      )`);
    await q.query(`CREATE INDEX ${FEDIFY_MQ_TABLE}_run_at_idx ON ${FEDIFY_MQ_TABLE} (run_at, id)`);
    await q.query(
      `CREATE INDEX ${FEDIFY_MQ_TABLE}_ordering_idx ON ${FEDIFY_MQ_TABLE} (ordering_key, id) WHERE ordering_key IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE ${FEDIFY_MQ_TABLE}`);
    await q.query(`DROP TABLE ${FEDIFY_KV_TABLE}`);
  }
}

const ms = (d: { total(unit: 'millisecond'): number } | undefined): number =>
  d ? Math.max(0, d.total('millisecond')) : 0;

const UPSERT = `INSERT INTO ${FEDIFY_KV_TABLE} (key, value, expires)
  VALUES ($1, $2, CASE WHEN $3::float8 IS NULL THEN NULL ELSE now() + $3::float8 * interval '1 millisecond' END)
  ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, expires = EXCLUDED.expires`;
const LIVE = '(expires IS NULL OR expires > now())';

export class PgKvStore implements KvStore {
  constructor(private readonly pool: Pool) {}

  async get<T = unknown>(key: KvKey): Promise<T | undefined> {
    const r = await this.pool.query(`SELECT value FROM ${FEDIFY_KV_TABLE} WHERE key = $1 AND ${LIVE}`, [key]);
    return r.rows[0]?.value as T | undefined;
  }

  async set(key: KvKey, value: unknown, options?: KvStoreSetOptions): Promise<void> {
    await this.pool.query(UPSERT, [key, JSON.stringify(value), options?.ttl ? ms(options.ttl) : null]);
  }

  async delete(key: KvKey): Promise<void> {
    await this.pool.query(`DELETE FROM ${FEDIFY_KV_TABLE} WHERE key = $1`, [key]);
  }

  async cas(key: KvKey, expected: unknown, next: unknown, options?: KvStoreSetOptions): Promise<boolean> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      // Locks the row when it exists; an absent key is claimed by the insert's own conflict below.
      const r = await client.query(
        `SELECT value FROM ${FEDIFY_KV_TABLE} WHERE key = $1 AND ${LIVE} FOR UPDATE`,
        [key],
      );
      if (JSON.stringify(r.rows[0]?.value) !== JSON.stringify(expected)) {
        await client.query('ROLLBACK');
        return false;
      }
      if (r.rows.length === 0) {
        // Two callers expecting "absent": the first insert wins, the other sees a conflict.
        await client.query(`DELETE FROM ${FEDIFY_KV_TABLE} WHERE key = $1 AND NOT ${LIVE}`, [key]);
        const inserted = await client.query(
          `INSERT INTO ${FEDIFY_KV_TABLE} (key, value, expires)
           VALUES ($1, $2, CASE WHEN $3::float8 IS NULL THEN NULL ELSE now() + $3::float8 * interval '1 millisecond' END)
           ON CONFLICT (key) DO NOTHING RETURNING key`,
          [key, JSON.stringify(next), options?.ttl ? ms(options.ttl) : null],
        );
        await client.query('COMMIT');
        return inserted.rows.length === 1;
      }
      await client.query(UPSERT, [key, JSON.stringify(next), options?.ttl ? ms(options.ttl) : null]);
      await client.query('COMMIT');
      return true;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async *list(prefix?: KvKey): AsyncIterable<KvStoreListEntry> {
    const r = await this.pool.query(
      `SELECT key, value FROM ${FEDIFY_KV_TABLE}
       WHERE key[1:cardinality($1::text[])] = $1::text[] AND ${LIVE} ORDER BY key`,
      [prefix ?? []],
    );
    for (const row of r.rows as { key: string[]; value: unknown }[])
      yield { key: row.key as unknown as KvKey, value: row.value };
  }
}

export interface PgMessageQueueOptions {
  /** A claimed message not finished within this is claimed again (a crashed worker). Default 5 min. */
  leaseMs?: number;
  /** Polling for delayed messages and missed notifications. Default 1 s. */
  pollMs?: number;
}

/**
 * At-least-once: a message is claimed with a lease and deleted after its handler ran; a crash leaves
 * it to be claimed again when the lease ends (receivers drop a repeated activity by its id). Messages
 * with the same ordering key run one at a time, in enqueue order. Fedify retries by enqueueing again
 * with a delay (nativeRetrial false), so a failed handler's message is deleted too.
 */
export class PgMessageQueue implements MessageQueue {
  readonly nativeRetrial = false;
  private readonly leaseMs: number;
  private readonly pollMs: number;

  constructor(
    private readonly pool: Pool,
    options: PgMessageQueueOptions = {},
  ) {
    this.leaseMs = options.leaseMs ?? 5 * 60_000;
    this.pollMs = options.pollMs ?? 1000;
  }

  async enqueue(message: unknown, options?: MessageQueueEnqueueOptions): Promise<void> {
    await this.enqueueMany([message], options);
  }

  async enqueueMany(messages: readonly unknown[], options?: MessageQueueEnqueueOptions): Promise<void> {
    if (messages.length === 0) return;
    await this.pool.query(
      `INSERT INTO ${FEDIFY_MQ_TABLE} (message, run_at, ordering_key)
       SELECT m, now() + $2::float8 * interval '1 millisecond', $3
       FROM unnest($1::jsonb[]) WITH ORDINALITY AS t(m, n) ORDER BY n`,
      [messages.map((m) => JSON.stringify(m)), ms(options?.delay), options?.orderingKey ?? null],
    );
    await this.pool.query(`SELECT pg_notify($1, '')`, [CHANNEL]);
  }

  private async claim(): Promise<{ id: string; message: unknown } | undefined> {
    // An ordered message waits while an earlier one of its key exists (running, failed-and-delayed or due).
    const r = await this.pool.query(
      `UPDATE ${FEDIFY_MQ_TABLE} SET leased_until = now() + $1::float8 * interval '1 millisecond' WHERE id = (
         SELECT m.id FROM ${FEDIFY_MQ_TABLE} m
         WHERE m.run_at <= now() AND (m.leased_until IS NULL OR m.leased_until < now())
           AND (m.ordering_key IS NULL OR NOT EXISTS (
             SELECT 1 FROM ${FEDIFY_MQ_TABLE} o WHERE o.ordering_key = m.ordering_key AND o.id < m.id))
         ORDER BY m.run_at, m.id FOR UPDATE SKIP LOCKED LIMIT 1)
       RETURNING id, message`,
      [this.leaseMs],
    );
    return r.rows[0] as { id: string; message: unknown } | undefined;
  }

  async listen(
    handler: (message: any) => Promise<void> | void, // eslint-disable-line @typescript-eslint/no-explicit-any
    options: MessageQueueListenOptions = {},
  ): Promise<void> {
    const { signal } = options;
    let wake: () => void = () => undefined;
    let listener: PoolClient | undefined;
    try {
      listener = await this.pool.connect();
      listener.on('notification', () => wake());
      await listener.query(`LISTEN ${CHANNEL}`);
      while (!signal?.aborted) {
        const job = await this.claim();
        if (job) {
          try {
            await handler(job.message);
          } finally {
            await this.pool.query(`DELETE FROM ${FEDIFY_MQ_TABLE} WHERE id = $1`, [job.id]);
          }
          continue;
        }
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            signal?.removeEventListener('abort', done);
            resolve();
          };
          const timer = setTimeout(done, this.pollMs);
          wake = done;
          signal?.addEventListener('abort', done, { once: true });
        });
      }
    } finally {
      if (listener) {
        await listener.query(`UNLISTEN ${CHANNEL}`).catch(() => undefined);
        listener.release();
      }
    }
  }

  async getDepth(): Promise<{ queued: number; ready: number; delayed: number }> {
    const r = await this.pool.query(
      `SELECT count(*)::int AS queued, count(*) FILTER (WHERE run_at <= now())::int AS ready FROM ${FEDIFY_MQ_TABLE}`,
    );
    const { queued, ready } = r.rows[0] as { queued: number; ready: number };
    return { queued, ready, delayed: queued - ready };
  }
}
