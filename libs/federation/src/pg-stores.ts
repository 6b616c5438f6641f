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
/** The social service's two queues on the one table: inbox work, and outbound delivery with fanout. */
export const FEDIFY_INBOX_QUEUE = 'inbox';
export const FEDIFY_OUTBOX_QUEUE = 'outbox';

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

/**
 * Two queues on one table (a `queue` column), each message tagged with its remote host, and a
 * fair turn per host (`fair_at`). Rows written by an older replica during a rollout name no queue:
 * a trigger puts them on the queue their Fedify type belongs to (host unknown, so no turn).
 * The older index on (run_at, id) stays for those replicas until they are gone.
 */
export class FedifyQueues1765400000000 implements MigrationInterface {
  name = 'FedifyQueues1765400000000';

  async up(q: QueryRunner): Promise<void> {
    const t = FEDIFY_MQ_TABLE;
    await q.query(
      `ALTER TABLE ${t} ADD COLUMN queue text, ADD COLUMN host text, ADD COLUMN fair_at timestamptz`,
    );
    await q.query(`
      CREATE FUNCTION ${t}_fill() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.queue IS NULL THEN
          NEW.queue := CASE WHEN NEW.message->>'type' = 'inbox' THEN '${FEDIFY_INBOX_QUEUE}' ELSE '${FEDIFY_OUTBOX_QUEUE}' END;
        END IF;
        NEW.fair_at := coalesce(NEW.fair_at, NEW.run_at);
        RETURN NEW;
      END $$`);
    await q.query(`UPDATE ${t} SET queue = CASE WHEN message->>'type' = 'inbox' THEN '${FEDIFY_INBOX_QUEUE}'
      ELSE '${FEDIFY_OUTBOX_QUEUE}' END, fair_at = run_at`);
    await q.query(`ALTER TABLE ${t} ALTER COLUMN queue SET NOT NULL, ALTER COLUMN fair_at SET NOT NULL`);
    await q.query(`CREATE TRIGGER ${t}_fill BEFORE INSERT ON ${t} FOR EACH ROW EXECUTE FUNCTION ${t}_fill()`);
    // The claim's scan, a host's last turn at enqueue, and the hosts at their cap (leased rows only).
    await q.query(`CREATE INDEX ${t}_claim_idx ON ${t} (queue, fair_at, id)`);
    await q.query(`CREATE INDEX ${t}_host_idx ON ${t} (queue, host, fair_at) WHERE host IS NOT NULL`);
    await q.query(
      `CREATE INDEX ${t}_leased_idx ON ${t} (queue, host) WHERE host IS NOT NULL AND leased_until IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    const t = FEDIFY_MQ_TABLE;
    await q.query(`DROP TRIGGER ${t}_fill ON ${t}`);
    await q.query(`DROP FUNCTION ${t}_fill()`);
    await q.query(`DROP INDEX ${t}_claim_idx, ${t}_host_idx, ${t}_leased_idx`);
    await q.query(`ALTER TABLE ${t} DROP COLUMN queue, DROP COLUMN host, DROP COLUMN fair_at`);
  }
}

const ms = (d: { total(unit: 'millisecond'): number } | undefined): number =>
  d ? Math.max(0, d.total('millisecond')) : 0;

const UPSERT = `INSERT INTO ${FEDIFY_KV_TABLE} (key, value, expires)
  VALUES ($1, $2, CASE WHEN $3::float8 IS NULL THEN NULL ELSE now() + $3::float8 * interval '1 millisecond' END)
  ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, expires = EXCLUDED.expires`;
const LIVE = '(expires IS NULL OR expires > now())';
/**
 * The statements every inbox activity runs (its idempotency mark read and written, its queueing
 * and its delete), prepared once per connection by name: PostgreSQL then neither parses nor plans
 * them again each time.
 */
const KV_GET = {
  name: 'fedify_kv_get',
  text: `SELECT value FROM ${FEDIFY_KV_TABLE} WHERE key = $1 AND ${LIVE}`,
};
const KV_SET = { name: 'fedify_kv_set', text: UPSERT };

export class PgKvStore implements KvStore {
  constructor(private readonly pool: Pool) {}

  async get<T = unknown>(key: KvKey): Promise<T | undefined> {
    const r = await this.pool.query({ ...KV_GET, values: [key] });
    return r.rows[0]?.value as T | undefined;
  }

  async set(key: KvKey, value: unknown, options?: KvStoreSetOptions): Promise<void> {
    await this.pool.query({
      ...KV_SET,
      values: [key, JSON.stringify(value), options?.ttl ? ms(options.ttl) : null],
    });
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

/**
 * The remote server a Fedify message is about: an outbox message's inbox host, an inbox message's
 * actor host (`activity.actor`: an id, an object with one, or a list of either, the first taken).
 * Anything else (a fanout, another shape) is no server's, and waits for no server's turn.
 */
export function fedifyMessageHost(message: unknown): string | null {
  if (typeof message !== 'object' || message === null) return null;
  const m = message as { type?: unknown; inbox?: unknown; activity?: unknown };
  let url: unknown = null;
  if (m.type === 'outbox') url = m.inbox;
  else if (m.type === 'inbox' && typeof m.activity === 'object' && m.activity !== null) {
    const actor = (m.activity as { actor?: unknown }).actor;
    const first = Array.isArray(actor) ? actor[0] : actor;
    url = typeof first === 'object' && first !== null ? (first as { id?: unknown }).id : first;
  }
  if (typeof url !== 'string' || !URL.canParse(url)) return null;
  const { protocol, host } = new URL(url);
  return (protocol === 'https:' || protocol === 'http:') && host ? host : null;
}

/**
 * Makes its statement's transaction commit without waiting for the disk (synchronous_commit off
 * for that transaction; a value in a deleted row's RETURNING, evaluated for each row). For a
 * claim's lease and a finished message's delete only: a crash may lose those, and the message then
 * runs again, as after any crash mid-way (at-least-once); what its handler stored was committed
 * before, waiting for the disk. Each flush not waited for is milliseconds a worker stood still.
 */
const ASYNC_COMMIT = `set_config('synchronous_commit', 'off', true)`;

export interface PgMessageQueueOptions {
  /** Which queue of the table this is; queues sharing the table never see each other's messages. Default 'default'. */
  name?: string;
  /** Handlers running at once in this process. Default 4. */
  workers?: number;
  /** Messages of one host in flight at once, across every process. Default 1. */
  perHost?: number;
  /**
   * Each further message of a host already waiting takes its turn this much later (virtual time):
   * a new host's message goes ahead of another host's backlog. Default 1 s.
   */
  turnMs?: number;
  /** The remote host a message is about (null: none). Default: fedifyMessageHost. */
  hostOf?: (message: unknown) => string | null;
  /** A claim or a handler that failed; the queue goes on. */
  onError?: (error: Error) => void;
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
 *
 * Fair share: up to `workers` handlers run at once, but no host has more than `perHost` in flight
 * (counted from live leases, so across replicas) while others wait, and claims go by turn (`fair_at`),
 * so a server that floods the queue waits behind its own messages, not everyone's. Claims of a queue
 * take turns under an advisory lock: the host count a claim reads cannot race another claim.
 */
export class PgMessageQueue implements MessageQueue {
  readonly nativeRetrial = false;
  readonly name: string;
  readonly workers: number;
  readonly perHost: number;
  private readonly turnMs: number;
  private readonly hostOf: (message: unknown) => string | null;
  private readonly onError?: (error: Error) => void;
  private readonly leaseMs: number;
  private readonly pollMs: number;

  constructor(
    private readonly pool: Pool,
    options: PgMessageQueueOptions = {},
  ) {
    this.name = options.name ?? 'default';
    this.workers = Math.max(1, Math.floor(options.workers ?? 4));
    this.perHost = Math.max(1, Math.floor(options.perHost ?? 1));
    this.turnMs = options.turnMs ?? 1000;
    this.hostOf = options.hostOf ?? fedifyMessageHost;
    this.onError = options.onError;
    this.leaseMs = options.leaseMs ?? 5 * 60_000;
    this.pollMs = options.pollMs ?? 1000;
    if (!/^[a-z][a-z0-9_-]*$/.test(this.name)) throw new Error(`a queue's name is [a-z0-9_-]: ${this.name}`);
    const queue = `'${this.name}'`;
    // An ordered message waits while an earlier one of its key exists (running, failed-and-delayed
    // or due); a message waits while its host has perHost leases live.
    this.claimSql = `SET LOCAL synchronous_commit = off;
      SELECT pg_advisory_xact_lock(hashtext('${FEDIFY_MQ_TABLE}'), hashtext(${queue}));
      UPDATE ${FEDIFY_MQ_TABLE} SET leased_until = now() + ${Number(this.leaseMs)} * interval '1 millisecond' WHERE id = (
        SELECT m.id FROM ${FEDIFY_MQ_TABLE} m
        WHERE m.queue = ${queue} AND m.run_at <= now() AND (m.leased_until IS NULL OR m.leased_until < now())
          AND (m.host IS NULL OR m.host NOT IN (
            SELECT b.host FROM ${FEDIFY_MQ_TABLE} b
            WHERE b.queue = ${queue} AND b.host IS NOT NULL AND b.leased_until >= now()
            GROUP BY b.host HAVING count(*) >= ${Number(this.perHost)}))
          AND (m.ordering_key IS NULL OR NOT EXISTS (
            SELECT 1 FROM ${FEDIFY_MQ_TABLE} o
            WHERE o.queue = ${queue} AND o.ordering_key = m.ordering_key AND o.id < m.id))
        ORDER BY m.fair_at, m.id FOR UPDATE SKIP LOCKED LIMIT 1)
      RETURNING id, message`;
  }

  async enqueue(message: unknown, options?: MessageQueueEnqueueOptions): Promise<void> {
    await this.enqueueMany([message], options);
  }

  async enqueueMany(messages: readonly unknown[], options?: MessageQueueEnqueueOptions): Promise<void> {
    if (messages.length === 0) return;
    // The k-th message of a host in this batch: one turn after the one before it, and k turns after
    // the last turn its host already has among due messages (a delayed retry does not push it back).
    // The insert and the wake-up in one statement (the notification goes out at its commit).
    await this.pool.query({
      name: 'fedify_mq_enqueue',
      text: `WITH t AS (
         SELECT m, h, n, now() + $3::float8 * interval '1 millisecond' AS run_at,
                row_number() OVER (PARTITION BY h ORDER BY n) AS k
         FROM unnest($1::jsonb[], $2::text[]) WITH ORDINALITY AS t(m, h, n)),
       inserted AS (
         INSERT INTO ${FEDIFY_MQ_TABLE} (queue, message, run_at, ordering_key, host, fair_at)
         SELECT $4, t.m, t.run_at, $5, t.h, CASE WHEN t.h IS NULL THEN t.run_at ELSE greatest(
             t.run_at + (t.k - 1) * $6::float8 * interval '1 millisecond',
             (SELECT max(f.fair_at) FROM ${FEDIFY_MQ_TABLE} f
              WHERE f.queue = $4 AND f.host = t.h AND f.run_at <= now()) + t.k * $6::float8 * interval '1 millisecond')
           END
         FROM t ORDER BY t.n
         RETURNING 1)
       SELECT pg_notify($7, $4) WHERE EXISTS (SELECT 1 FROM inserted)`,
      values: [
        messages.map((m) => JSON.stringify(m)),
        messages.map((m) => this.hostOf(m)),
        ms(options?.delay),
        this.name,
        options?.orderingKey ?? null,
        this.turnMs,
        CHANNEL,
      ],
    });
  }

  /**
   * One round trip: the lock and the claim sent as one simple query, which PostgreSQL runs as one
   * transaction (the lock held to its end), each statement with its own snapshot, so the UPDATE
   * sees every lease the previous claim of this queue committed. Without parameters (the simple
   * protocol takes none): the queue's name is checked in the constructor, the rest are numbers.
   * Its commit does not wait for the disk (see ASYNC_COMMIT).
   */
  private readonly claimSql: string;

  private async claim(): Promise<{ id: string; message: unknown } | undefined> {
    const results = (await this.pool.query(this.claimSql)) as unknown as { rows: unknown[] }[];
    return results[2]?.rows[0] as { id: string; message: unknown } | undefined;
  }

  /** Runs one claimed message, then deletes it; wakes the host's waiting messages in other processes. */
  private async run(
    job: { id: string; message: unknown },
    handler: (message: any) => Promise<void> | void, // eslint-disable-line @typescript-eslint/no-explicit-any
  ): Promise<void> {
    try {
      await handler(job.message);
    } catch (error) {
      this.onError?.(error as Error);
    } finally {
      await this.pool
        .query({
          name: 'fedify_mq_done',
          text: `WITH d AS (DELETE FROM ${FEDIFY_MQ_TABLE} WHERE id = $1 RETURNING queue, host, ${ASYNC_COMMIT})
           SELECT pg_notify($2, d.queue) FROM d WHERE d.host IS NOT NULL AND EXISTS (
             SELECT 1 FROM ${FEDIFY_MQ_TABLE} w
             WHERE w.queue = d.queue AND w.host = d.host AND w.run_at <= now() AND w.id <> $1)`,
          values: [job.id, CHANNEL],
        })
        .catch((error: unknown) => this.onError?.(error as Error)); // the lease runs out: claimed again
    }
  }

  async listen(
    handler: (message: any) => Promise<void> | void, // eslint-disable-line @typescript-eslint/no-explicit-any
    options: MessageQueueListenOptions = {},
  ): Promise<void> {
    const { signal } = options;
    // A wake-up that comes while a claim is on its way is kept: that claim's snapshot may predate it.
    let poked: boolean;
    let wake: () => void = () => undefined;
    const poke = () => {
      poked = true;
      wake();
    };
    const onNotification = (n: { payload?: string }) => {
      if (!n.payload || n.payload === this.name) poke();
    };
    let listener: PoolClient | undefined;
    // A dropped LISTEN connection (PostgreSQL restarted) would end the process unheard: it is
    // reported once, given up, and opened again at the next turn; meanwhile the claims poll.
    let listenerLost = false;
    const openListener = async () => {
      const client = await this.pool.connect();
      client.on('error', (error: Error) => {
        if (client !== listener || listenerLost) return; // an earlier one's, or the socket's after the notice
        this.onError?.(error);
        listenerLost = true;
        poke();
      });
      client.on('notification', onNotification);
      try {
        await client.query(`LISTEN ${CHANNEL}`);
      } catch (error) {
        client.release(true);
        throw error;
      }
      return client;
    };
    const running = new Set<Promise<void>>();
    try {
      listener = await openListener();
      while (!signal?.aborted) {
        if (listenerLost) {
          listener?.release(true);
          listener = await openListener().catch((error: unknown) => {
            this.onError?.(error as Error);
            return undefined;
          });
          listenerLost = listener === undefined;
        }
        poked = false;
        if (running.size < this.workers) {
          const job = await this.claim().catch((error: unknown) => {
            this.onError?.(error as Error);
            return undefined;
          });
          if (job) {
            const done: Promise<void> = this.run(job, handler).finally(() => {
              running.delete(done);
              poke(); // a free worker, and perhaps a host under its cap again
            });
            running.add(done);
            continue;
          }
        }
        if (poked || signal?.aborted) continue; // an abort during the claim has fired already
        // A full house waits for a handler to finish; an empty claim polls for delayed messages.
        await new Promise<void>((resolve) => {
          const settle = () => {
            clearTimeout(timer);
            signal?.removeEventListener('abort', settle);
            wake = () => undefined;
            resolve();
          };
          const timer = setTimeout(settle, this.pollMs);
          wake = settle;
          signal?.addEventListener('abort', settle, { once: true });
        });
      }
      // Shutdown: the messages in hand finish (the caller bounds how long it waits).
      await Promise.all(running);
    } finally {
      if (listener && listenerLost) listener.release(true);
      else if (listener) {
        await listener.query(`UNLISTEN ${CHANNEL}`).catch(() => undefined);
        listener.removeAllListeners('notification'); // the pool hands this connection out again
        listener.removeAllListeners('error');
        listener.release();
      }
    }
  }

  async getDepth(): Promise<{ queued: number; ready: number; delayed: number }> {
    const r = await this.pool.query(
      `SELECT count(*)::int AS queued, count(*) FILTER (WHERE run_at <= now())::int AS ready
       FROM ${FEDIFY_MQ_TABLE} WHERE queue = $1`,
      [this.name],
    );
    const { queued, ready } = r.rows[0] as { queued: number; ready: number };
    return { queued, ready, delayed: queued - ready };
  }
}
