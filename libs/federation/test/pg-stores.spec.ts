import '../src/temporal.js';
import { testMessageQueue } from '@fedify/testing';
import { createTestDatabase, type TestDatabase } from '@blog/server-kit/testing';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { FedifyStores1765000000000, PgKvStore, PgMessageQueue } from '../src/pg-stores.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The Fedify stores on a real PostgreSQL, tables made by their migration. */
describe('PgKvStore and PgMessageQueue', () => {
  let db: TestDatabase;
  let pool: pg.Pool;

  beforeAll(async () => {
    db = await createTestDatabase('fedify_stores');
    const source = await new DataSource({ type: 'postgres', url: db.url }).initialize();
    const runner = source.createQueryRunner();
    await new FedifyStores1765000000000().up(runner);
    await runner.release();
    await source.destroy();
    pool = new pg.Pool({ connectionString: db.url, max: 8 });
  });
  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  });

  it('KV: get, set, overwrite, delete, and an expired key reads as absent', async () => {
    const kv = new PgKvStore(pool);
    expect(await kv.get(['a', 'b'])).toBeUndefined();
    await kv.set(['a', 'b'], { n: 1, s: 'x' });
    expect(await kv.get(['a', 'b'])).toEqual({ n: 1, s: 'x' });
    await kv.set(['a', 'b'], [1, 2]);
    expect(await kv.get(['a', 'b'])).toEqual([1, 2]);
    await kv.delete(['a', 'b']);
    expect(await kv.get(['a', 'b'])).toBeUndefined();
    await kv.set(['ttl'], 'soon gone', { ttl: Temporal.Duration.from({ milliseconds: 150 }) });
    expect(await kv.get(['ttl'])).toBe('soon gone');
    await sleep(300);
    expect(await kv.get(['ttl'])).toBeUndefined();
  });

  it('KV: list by prefix (whole key segments), and cas only when the value is the expected one', async () => {
    const kv = new PgKvStore(pool);
    await kv.set(['p', 'one'], 1);
    await kv.set(['p', 'two'], 2);
    await kv.set(['pq', 'three'], 3);
    const listed: [string[], unknown][] = [];
    for await (const e of kv.list(['p'])) listed.push([[...e.key], e.value]);
    expect(listed).toEqual([
      [['p', 'one'], 1],
      [['p', 'two'], 2],
    ]);
    expect(await kv.cas(['c'], 'wrong', 'x')).toBe(false);
    expect(await kv.get(['c'])).toBeUndefined();
    expect(await kv.cas(['c'], undefined, 'first')).toBe(true);
    expect(await kv.cas(['c'], 'other', 'second')).toBe(false);
    expect(await kv.get(['c'])).toBe('first');
    expect(await kv.cas(['c'], 'first', { v: 2 })).toBe(true);
    expect(await kv.get(['c'])).toEqual({ v: 2 });
    // Two callers expecting the key absent at once: exactly one wins.
    const both = await Promise.all([kv.cas(['race'], undefined, 'a'), kv.cas(['race'], undefined, 'b')]);
    expect(both.filter(Boolean)).toHaveLength(1);
  });

  it("passes Fedify's message queue suite with ordering keys", async () => {
    await pool.query('DELETE FROM fedify_mq');
    await testMessageQueue(
      () => new PgMessageQueue(pool, { pollMs: 100 }),
      async ({ controller }) => {
        controller.abort();
        await sleep(300); // the listeners' last poll ends before the pool closes
      },
      { testOrderingKey: true },
    );
  }, 120_000);

  it('a message whose worker died (lease ran out) is handled again: at least once', async () => {
    await pool.query('DELETE FROM fedify_mq');
    const queue = new PgMessageQueue(pool, { leaseMs: 200, pollMs: 50 });
    await queue.enqueue({ n: 1 });
    // A worker claims it and "crashes": the row keeps its lease, nobody deletes it.
    await pool.query(`UPDATE fedify_mq SET leased_until = now() + interval '200 milliseconds'`);
    const seen: unknown[] = [];
    const controller = new AbortController();
    const listening = queue.listen((m) => void seen.push(m), { signal: controller.signal });
    await sleep(100);
    expect(seen).toEqual([]);
    await sleep(400);
    expect(seen).toEqual([{ n: 1 }]);
    controller.abort();
    await listening;
    expect(await queue.getDepth()).toEqual({ queued: 0, ready: 0, delayed: 0 });
  });
});
