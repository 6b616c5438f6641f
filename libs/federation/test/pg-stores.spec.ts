import '../src/temporal.js';
import { testMessageQueue } from '@fedify/testing';
import { createTestDatabase, type TestDatabase } from '@blog/server-kit/testing';
import pg from 'pg';
import { DataSource } from 'typeorm';
import {
  fedifyMessageHost,
  FedifyQueues1765400000000,
  FedifyStores1765000000000,
  PgKvStore,
  PgMessageQueue,
} from '../src/pg-stores.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const until = async (check: () => boolean, ms = 20_000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await sleep(10);
  }
};
/** A promise the test lets go of when it chooses. */
const latch = () => {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
};
/** Messages in Fedify's shapes, about a remote host. */
const inboxFrom = (host: string, n: number) => ({
  type: 'inbox',
  n,
  activity: { id: `https://${host}/activities/${n}`, type: 'Create', actor: `https://${host}/users/a` },
});
const outboxTo = (host: string, n: number) => ({ type: 'outbox', n, inbox: `https://${host}/inbox` });

/** The Fedify stores on a real PostgreSQL, tables made by their migration. */
describe('PgKvStore and PgMessageQueue', () => {
  let db: TestDatabase;
  let pool: pg.Pool;

  beforeAll(async () => {
    db = await createTestDatabase('fedify_stores');
    const source = await new DataSource({ type: 'postgres', url: db.url }).initialize();
    const runner = source.createQueryRunner();
    await new FedifyStores1765000000000().up(runner);
    await new FedifyQueues1765400000000().up(runner);
    await runner.release();
    await source.destroy();
    pool = new pg.Pool({ connectionString: db.url, max: 16 });
    // An idle connection the server ends (its backend signalled, seen once on a busy CI machine)
    // is dropped by the pool, as the services' pools do, instead of ending the test run unheard.
    pool.on('error', (error) => console.warn(`test pool: idle connection lost: ${error.message}`));
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

  it('a message whose worker died (lease ran out) is handled again, not before: at least once', async () => {
    await pool.query('DELETE FROM fedify_mq');
    const queue = new PgMessageQueue(pool, { leaseMs: 300, pollMs: 50 });
    await queue.enqueue({ n: 1 });
    // A worker claims it and "crashes": the row keeps its lease, nobody deletes it.
    const { rows } = await pool.query(
      `UPDATE fedify_mq SET leased_until = now() + interval '300 milliseconds'
       RETURNING extract(epoch FROM leased_until) * 1000 AS until`,
    );
    const leaseEnds = Number(rows[0].until);
    const seen: { m: unknown; at: number }[] = [];
    const controller = new AbortController();
    const listening = queue.listen((m) => void seen.push({ m, at: Date.now() }), {
      signal: controller.signal,
    });
    await until(() => seen.length > 0);
    expect(seen.map((s) => s.m)).toEqual([{ n: 1 }]);
    expect(seen[0]!.at).toBeGreaterThanOrEqual(leaseEnds - 5); // the same clock; a few ms of rounding
    controller.abort();
    await listening;
    expect(await queue.getDepth()).toEqual({ queued: 0, ready: 0, delayed: 0 });
  });

  it('tags a message with the remote server it is about: an outbox inbox, an inbox actor, else none', () => {
    expect(fedifyMessageHost(outboxTo('a.example:8443', 1))).toBe('a.example:8443');
    expect(fedifyMessageHost(inboxFrom('B.Example', 1))).toBe('b.example');
    const actor = (a: unknown) => fedifyMessageHost({ type: 'inbox', activity: { actor: a } });
    expect(actor({ id: 'https://c.example/u', type: 'Person' })).toBe('c.example');
    expect(actor(['https://d.example/u', 'https://e.example/u'])).toBe('d.example');
    expect(actor('https://f.example:443/u')).toBe('f.example');
    expect(actor('not a url')).toBeNull();
    expect(actor('urn:uuid:1')).toBeNull();
    expect(actor(undefined)).toBeNull();
    expect(fedifyMessageHost({ type: 'fanout', inboxes: {} })).toBeNull();
    expect(fedifyMessageHost('Hello, world!')).toBeNull();
  });

  it('runs as many handlers at once as it has workers, never more', async () => {
    await pool.query('DELETE FROM fedify_mq');
    const queue = new PgMessageQueue(pool, { workers: 4, pollMs: 50 });
    const held = latch();
    let active = 0;
    let most = 0;
    let done = 0;
    const controller = new AbortController();
    const listening = queue.listen(
      async () => {
        most = Math.max(most, ++active);
        await held.opened;
        active--;
        done++;
      },
      { signal: controller.signal },
    );
    // No host: the fair share does not apply, only the workers.
    await queue.enqueueMany(Array.from({ length: 10 }, (_, n) => ({ n })));
    await until(() => active === 4);
    await sleep(200); // a fifth claim, if the queue made one, would have started by now
    expect([active, most]).toEqual([4, 4]);
    expect(await queue.getDepth()).toEqual({ queued: 10, ready: 10, delayed: 0 });
    held.open();
    await until(() => done === 10);
    expect(most).toBe(4);
    controller.abort();
    await listening;
  });

  it('runs messages of one ordering key one at a time, in enqueue order, beside others', async () => {
    await pool.query('DELETE FROM fedify_mq');
    const queue = new PgMessageQueue(pool, { workers: 4, pollMs: 50 });
    const order: number[] = [];
    let keyed = 0;
    let overlapped = false;
    const others: number[] = [];
    const controller = new AbortController();
    const listening = queue.listen(
      async (m: { key?: string; n: number }) => {
        if (!m.key) return void others.push(m.n);
        if (++keyed > 1) overlapped = true;
        order.push(m.n);
        await sleep(20);
        keyed--;
      },
      { signal: controller.signal },
    );
    for (let n = 1; n <= 6; n++) {
      await queue.enqueue({ key: 'k', n }, { orderingKey: 'k' });
      await queue.enqueue({ n: 100 + n });
    }
    await until(() => order.length === 6 && others.length === 6);
    expect(order).toEqual([1, 2, 3, 4, 5, 6]);
    expect(overlapped).toBe(false);
    controller.abort();
    await listening;
  });

  it("a host with 30 slow messages holds one worker; another host's message is handled at once", async () => {
    await pool.query('DELETE FROM fedify_mq');
    const queue = new PgMessageQueue(pool, { workers: 4, pollMs: 50 });
    const slow = latch();
    let floodActive = 0;
    let floodMost = 0;
    let floodStarted = 0;
    let floodDone = 0;
    let honestAt: { floodActive: number; floodStarted: number } | undefined;
    const controller = new AbortController();
    const listening = queue.listen(
      async (m: ReturnType<typeof inboxFrom>) => {
        if (m.activity.actor.startsWith('https://honest.example/')) {
          honestAt = { floodActive, floodStarted };
          return;
        }
        floodStarted++;
        floodMost = Math.max(floodMost, ++floodActive);
        await slow.opened;
        floodActive--;
        floodDone++;
      },
      { signal: controller.signal },
    );
    await queue.enqueueMany(Array.from({ length: 30 }, (_, n) => inboxFrom('flood.example', n)));
    await until(() => floodActive === 1);
    await sleep(200); // three workers are free: a second flood message, if claimed, would run now
    expect(floodStarted).toBe(1);
    await queue.enqueue(inboxFrom('honest.example', 1));
    await until(() => honestAt !== undefined);
    expect(honestAt).toEqual({ floodActive: 1, floodStarted: 1 });
    const { rows } = await pool.query(`SELECT DISTINCT host FROM fedify_mq ORDER BY host`);
    expect(rows).toEqual([{ host: 'flood.example' }]);
    slow.open();
    await until(() => floodDone === 30);
    expect(floodMost).toBe(1);
    expect(await queue.getDepth()).toEqual({ queued: 0, ready: 0, delayed: 0 });
    controller.abort();
    await listening;
  });

  it("takes hosts by turn: a second host's messages go ahead of the first host's backlog", async () => {
    await pool.query('DELETE FROM fedify_mq');
    // One worker, and a turn far longer than the test, so that the order does not depend on timing.
    const queue = new PgMessageQueue(pool, { workers: 1, turnMs: 3_600_000, pollMs: 50 });
    await queue.enqueueMany([1, 2, 3, 4, 5].map((n) => outboxTo('a.example', n)));
    await queue.enqueue(outboxTo('b.example', 1));
    await queue.enqueue(outboxTo('b.example', 2));
    const seen: string[] = [];
    const controller = new AbortController();
    const listening = queue.listen(
      (m: ReturnType<typeof outboxTo>) => void seen.push(`${new URL(m.inbox).host}#${m.n}`),
      { signal: controller.signal },
    );
    await until(() => seen.length === 7);
    expect(seen).toEqual([
      'a.example#1',
      'b.example#1',
      'a.example#2',
      'b.example#2',
      'a.example#3',
      'a.example#4',
      'a.example#5',
    ]);
    controller.abort();
    await listening;
  });

  it("a crashed worker's message counts against its host until its lease runs out", async () => {
    await pool.query('DELETE FROM fedify_mq');
    const queue = new PgMessageQueue(pool, { workers: 4, leaseMs: 300, pollMs: 50 });
    await queue.enqueue(outboxTo('a.example', 1));
    await queue.enqueue(outboxTo('a.example', 2));
    const { rows } = await pool.query(
      `UPDATE fedify_mq SET leased_until = now() + interval '300 milliseconds'
       WHERE id = (SELECT min(id) FROM fedify_mq) RETURNING extract(epoch FROM leased_until) * 1000 AS until`,
    );
    const leaseEnds = Number(rows[0].until);
    const seen: { n: number; at: number }[] = [];
    const controller = new AbortController();
    const listening = queue.listen(
      (m: ReturnType<typeof outboxTo>) => void seen.push({ n: m.n, at: Date.now() }),
      { signal: controller.signal },
    );
    await until(() => seen.length === 2);
    // The first is claimed again once its lease ends, and the second waits its turn behind it.
    expect(seen.map((s) => s.n)).toEqual([1, 2]);
    expect(seen[0]!.at).toBeGreaterThanOrEqual(leaseEnds - 5);
    controller.abort();
    await listening;
  });

  it('its LISTEN connection dropped (PostgreSQL restarted), it reports that, listens again and goes on', async () => {
    await pool.query('DELETE FROM fedify_mq');
    const errors: Error[] = [];
    // A poll an hour apart: only a notification can bring the message below in time.
    const queue = new PgMessageQueue(pool, {
      name: 'outbox',
      pollMs: 3_600_000,
      onError: (e) => errors.push(e),
    });
    const seen: number[] = [];
    const controller = new AbortController();
    const running = queue.listen((m: { n: number }) => void seen.push(m.n), { signal: controller.signal });
    const LISTENERS = `FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%' AND pid <> pg_backend_pid()`;
    const listening = async (what: string) => {
      for (
        const end = Date.now() + 20_000;
        (await pool.query(`SELECT pid ${LISTENERS}`)).rows.length === 0;
      ) {
        if (Date.now() > end) throw new Error(`the queue never listened ${what}`);
        await sleep(10);
      }
    };
    await listening('');
    await pool.query(`SELECT pg_terminate_backend(pid) ${LISTENERS}`);
    await until(() => errors.length > 0);
    expect(errors[0]!.message).toMatch(/terminat/);
    // Listening again: a message enqueued now is handled at once.
    await listening('again');
    await queue.enqueue(outboxTo('b.example', 1));
    await until(() => seen.length === 1, 10_000);
    expect(seen).toEqual([1]);
    controller.abort();
    await running;
  });

  it('two queues share the table: each handles and counts its own messages only', async () => {
    await pool.query('DELETE FROM fedify_mq');
    const inbox = new PgMessageQueue(pool, { name: 'inbox', pollMs: 50 });
    const outbox = new PgMessageQueue(pool, { name: 'outbox', pollMs: 50 });
    await inbox.enqueue(inboxFrom('a.example', 1));
    await inbox.enqueue(inboxFrom('a.example', 2), { delay: Temporal.Duration.from({ hours: 1 }) });
    await outbox.enqueue(outboxTo('b.example', 1));
    expect(await inbox.getDepth()).toEqual({ queued: 2, ready: 1, delayed: 1 });
    expect(await outbox.getDepth()).toEqual({ queued: 1, ready: 1, delayed: 0 });
    const seen: string[] = [];
    const controller = new AbortController();
    const listening = outbox.listen((m: { type: string }) => void seen.push(m.type), {
      signal: controller.signal,
    });
    await until(() => seen.length === 1);
    await sleep(200);
    expect(seen).toEqual(['outbox']);
    expect(await inbox.getDepth()).toEqual({ queued: 2, ready: 1, delayed: 1 });
    expect(await outbox.getDepth()).toEqual({ queued: 0, ready: 0, delayed: 0 });
    controller.abort();
    await listening;
  });

  it('a row an older replica writes (no queue named) goes to the queue of its Fedify type', async () => {
    await pool.query('DELETE FROM fedify_mq');
    await pool.query(
      `INSERT INTO fedify_mq (message, run_at, ordering_key) VALUES ($1, now(), NULL), ($2, now(), NULL)`,
      [JSON.stringify(inboxFrom('a.example', 1)), JSON.stringify(outboxTo('b.example', 1))],
    );
    const { rows } = await pool.query(
      `SELECT queue, host, fair_at = run_at AS turn FROM fedify_mq ORDER BY id`,
    );
    expect(rows).toEqual([
      { queue: 'inbox', host: null, turn: true },
      { queue: 'outbox', host: null, turn: true },
    ]);
    const inbox = new PgMessageQueue(pool, { name: 'inbox', pollMs: 50 });
    const seen: unknown[] = [];
    const controller = new AbortController();
    const listening = inbox.listen((m) => void seen.push(m), { signal: controller.signal });
    await until(() => seen.length === 1);
    expect(seen).toEqual([inboxFrom('a.example', 1)]);
    controller.abort();
    await listening;
    await pool.query('DELETE FROM fedify_mq');
  });

  it('stopping waits for the messages in hand, and they are finished (deleted)', async () => {
    await pool.query('DELETE FROM fedify_mq');
    const queue = new PgMessageQueue(pool, { workers: 3, pollMs: 50 });
    const held = latch();
    let active = 0;
    let finished = 0;
    const controller = new AbortController();
    const listening = queue.listen(
      async () => {
        active++;
        await held.opened;
        finished++;
      },
      { signal: controller.signal },
    );
    await queue.enqueueMany([1, 2, 3, 4, 5].map((n) => ({ n })));
    await until(() => active === 3);
    controller.abort();
    let stopped = false;
    void listening.then(() => (stopped = true));
    await sleep(200);
    expect(stopped).toBe(false);
    held.open();
    await listening;
    expect(finished).toBe(3);
    // The two never claimed stay for the next start.
    expect(await queue.getDepth()).toEqual({ queued: 2, ready: 2, delayed: 0 });
  });
});
