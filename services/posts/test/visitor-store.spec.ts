/**
 * The two VisitorStores (memory for one process, Redis for replicas) keep the same promises:
 * one salt per day shared by every caller, gone once its day (plus a short grace) is over, and
 * a day already over never gets a kept salt; a visitor is new once per day and scope; the
 * visitors of the last minutes per site and post. Redis is a real one (startTestRedis), two
 * stores on it stand for two replicas; the clock is injected.
 */
import { startTestRedis, type TestRedis } from '@blog/server-kit/testing';
import { Redis } from 'ioredis';
import {
  DAY_GRACE_MS,
  forgetAt,
  MemoryVisitorStore,
  RedisVisitorStore,
  type VisitorStore,
} from '../src/stats/visitor-store.js';

const key = (c: string) => c.repeat(64);

describe.each(['memory', 'redis'] as const)('visitor store (%s)', (kind) => {
  let redis: TestRedis | undefined;
  const clock = { now: Date.parse('2030-06-01T12:00:00Z') };
  let stores: VisitorStore[] = [];
  /** Two handles on the same store: two replicas (in memory, one process has one). */
  let a: VisitorStore;
  let b: VisitorStore;

  beforeAll(async () => {
    if (kind === 'redis') redis = await startTestRedis();
  }, 120_000);
  afterAll(async () => {
    await redis?.close();
  });
  beforeEach(async () => {
    clock.now = Date.parse('2030-06-01T12:00:00Z');
    if (kind === 'redis') {
      const admin = new Redis(redis!.url);
      await admin.flushall();
      admin.disconnect();
      const prefix = `t${Math.random().toString(36).slice(2)}:`;
      stores = [
        new RedisVisitorStore(redis!.url, prefix, () => clock.now),
        new RedisVisitorStore(redis!.url, prefix, () => clock.now),
      ];
    } else {
      const one = new MemoryVisitorStore(() => clock.now);
      stores = [one, one];
    }
    [a, b] = stores as [VisitorStore, VisitorStore];
  });
  afterEach(async () => {
    for (const store of new Set(stores)) await store.close();
  });

  it('gives every caller the same salt for a day, a new one the next day, and forgets it after the day', async () => {
    const salt = await a.salt('2030-06-01');
    expect(salt).toMatch(/^[0-9a-f]{64}$/);
    expect(await b.salt('2030-06-01')).toBe(salt);
    const next = await a.salt('2030-06-02');
    expect(next).not.toBe(salt);
    // Just after midnight a late batch still finds its day's salt...
    clock.now = Date.parse('2030-06-02T00:00:30Z');
    expect(await b.salt('2030-06-01')).toBe(salt);
    // ...but not once the grace is over: every ask then gets a fresh salt no one keeps.
    clock.now = Date.parse('2030-06-02T00:00:00Z') + DAY_GRACE_MS + 1;
    const late = await a.salt('2030-06-01');
    expect(late).not.toBe(salt);
    expect(await b.salt('2030-06-01')).not.toBe(late);
    expect(await b.salt('2030-06-02')).toBe(next);
    if (kind === 'redis') {
      // Redis forgets them by itself at the end of their day plus the grace (its own clock
      // cannot be moved, so the expiry times are read).
      const admin = new Redis(redis!.url);
      try {
        const keys = await admin.keys('*');
        expect(keys.filter((k) => k.includes(':salt:')).sort()).toEqual([
          expect.stringMatching(/:salt:2030-06-01$/),
          expect.stringMatching(/:salt:2030-06-02$/),
        ]);
        for (const k of keys) expect([k, await admin.pexpiretime(k)]).toEqual([k, forgetAt(k.slice(-10))]);
      } finally {
        admin.disconnect();
      }
    }
  });

  it('says a visitor is new once per day and scope, whichever replica asks', async () => {
    expect(
      await a.firstSeen([
        { day: '2030-06-01', scope: '', visitor: key('a') },
        { day: '2030-06-01', scope: '/x', visitor: key('a') },
        { day: '2030-06-01', scope: '', visitor: key('a') },
      ]),
    ).toEqual([true, true, false]);
    expect(
      await b.firstSeen([
        { day: '2030-06-01', scope: '', visitor: key('a') },
        { day: '2030-06-01', scope: '/y', visitor: key('a') },
        { day: '2030-06-01', scope: '', visitor: key('b') },
        { day: '2030-06-02', scope: '', visitor: key('a') },
      ]),
    ).toEqual([false, true, true, true]);
    // Once the day is over its set is gone: a late view of it counts its visitor again.
    clock.now = Date.parse('2030-06-03T00:00:00Z') + DAY_GRACE_MS + 1;
    expect(await a.firstSeen([{ day: '2030-06-01', scope: '', visitor: key('a') }])).toEqual([true]);
    expect(await a.firstSeen([])).toEqual([]);
    if (kind === 'redis') {
      const admin = new Redis(redis!.url);
      try {
        const keys = (await admin.keys('*')).filter((k) => k.includes(':visitors:'));
        expect(keys).toHaveLength(4);
        for (const k of keys) {
          const day = /:visitors:(\d{4}-\d{2}-\d{2}):/.exec(k)![1]!;
          expect([k, await admin.pexpiretime(k)]).toEqual([k, forgetAt(day)]);
        }
      } finally {
        admin.disconnect();
      }
    }
  });

  it('counts the visitors of the last minutes, of the site and of one post', async () => {
    const t = clock.now;
    await a.touch([
      { visitor: key('a'), postId: 7, at: t - 60_000 },
      { visitor: key('b'), postId: null, at: t - 10_000 },
      { visitor: key('a'), postId: 8, at: t - 5_000 },
    ]);
    await b.touch([{ visitor: key('c'), postId: 7, at: t - 10 * 60_000 }]);
    expect(await a.live(t - 5 * 60_000)).toBe(2);
    expect(await b.live(t - 5 * 60_000, 7)).toBe(1);
    expect(await b.live(t - 5 * 60_000, 8)).toBe(1);
    expect(await b.live(t - 30_000)).toBe(2);
    expect(await a.live(t - 5 * 60_000, 9)).toBe(0);
  });
});

describe('visitor store (memory) under a flood', () => {
  it('holds at most its bound of keys: past it new visitors are not counted, and the next day starts over', async () => {
    let now = Date.parse('2030-06-01T12:00:00Z');
    const store = new MemoryVisitorStore(() => now, 3);
    const seen = await store.firstSeen(
      ['a', 'b', 'c', 'd', 'e'].map((c) => ({ day: '2030-06-01', scope: '', visitor: key(c) })),
    );
    expect(seen).toEqual([true, true, true, false, false]);
    // Known keys are still known.
    expect(await store.firstSeen([{ day: '2030-06-01', scope: '', visitor: key('a') }])).toEqual([false]);
    now = Date.parse('2030-06-02T00:00:00Z') + DAY_GRACE_MS + 1;
    expect(await store.firstSeen([{ day: '2030-06-02', scope: '', visitor: key('d') }])).toEqual([true]);
  });
});
