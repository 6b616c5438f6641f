/**
 * Visit statistics with REDIS_URL (a real Redis), the replicas' topology: the day's salt and
 * visitor keys outlive a posts service restart, so nobody is counted twice.
 */
import type { StatsReport } from '@blog/contracts';
import { startTestRedis, type TestRedis } from '@blog/server-kit/testing';
import { Redis } from 'ioredis';
import { ADDRESS, BROWSER, today } from './support/stats-stack.js';
import { ADMIN, api, loginAs, startTestStack, type TestStack } from './support/test-stack.js';

describe('visit statistics with REDIS_URL (the replicas’ topology)', () => {
  let redis: TestRedis;
  let stack: TestStack;
  let admin: string;

  beforeAll(async () => {
    redis = await startTestRedis();
    stack = await startTestStack({ VIEW_FLUSH_MS: '50', REDIS_URL: redis.url });
    admin = await loginAs(stack, ADMIN.username, ADMIN.password);
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    await redis?.close();
  });

  it('keeps the day’s visitors in Redis: a posts service restart counts nobody twice', async () => {
    const views = async () =>
      (
        (await api(stack, `/api/admin/stats?from=${today()}&to=${today()}`, { token: admin }))
          .json as unknown as StatsReport
      ).days[0]!;
    const send = () =>
      fetch(`${stack.baseUrl}/api/views`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': ADDRESS, 'user-agent': BROWSER },
        body: JSON.stringify({ path: '/about' }),
      });
    const until = async (n: number) => {
      for (const deadline = Date.now() + 10_000; Date.now() < deadline;) {
        if ((await views()).views === n) return;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`never ${n} views: ${JSON.stringify(await views())}`);
    };
    await send();
    await until(1);
    await stack.services.posts.close();
    await stack.restartPosts();
    await send();
    await until(2);
    expect(await views()).toEqual({ date: today(), views: 2, visitors: 1 });
    // The salt and the day's keys are in Redis, with an expiry.
    const client = new Redis(redis.url);
    try {
      const keys = await client.keys('stats:*');
      expect(keys).toEqual(expect.arrayContaining([`stats:salt:${today()}`, `stats:visitors:${today()}:`]));
      for (const key of keys) expect([key, (await client.pttl(key)) > 0]).toEqual([key, true]);
    } finally {
      client.disconnect();
    }
  });
});
