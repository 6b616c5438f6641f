/**
 * Visit statistics counted by a second gateway whose clock the test sets: a new day counts the
 * same reader as a new visitor; a flood from one address (3,000 beacons, each its own browser)
 * is answered 204 and counts at most the per-address limits; more views than one batch holds
 * go over in one flush.
 */
import { VIEWS_PER_ADDRESS_PER_MINUTE, VISITORS_PER_ADDRESS_PER_DAY, type PostView } from '@blog/contracts';
import { ViewCounter } from '../src/stats/view-counter.js';
import { BROWSER, useStatsStack } from './support/stats-stack.js';

describe('visit statistics on a set clock', () => {
  const rig = useStatsStack();
  const { beacon, stats, settled, clockedGateway, forgetDays, logs } = rig;
  let post: PostView;
  beforeAll(() => ({ post } = rig));

  it('counts the same reader as a new visitor on a new day (the clock injected)', async () => {
    const other = await clockedGateway(new Date('2030-03-04T23:59:58.000Z'));
    try {
      await beacon(post.url!, {}, other.base);
      const first = await settled((s) => s.days[0]!.views === 1, '2030-03-04', '2030-03-04');
      expect(first.days).toEqual([{ date: '2030-03-04', views: 1, visitors: 1 }]);
      await beacon(post.url!, {}, other.base);
      await settled((s) => s.days[0]!.views === 2, '2030-03-04', '2030-03-04');
      other.clock.now = new Date('2030-03-05T00:00:01.000Z');
      await beacon(post.url!, {}, other.base);
      const both = await settled((s) => s.days[1]!.views === 1, '2030-03-04', '2030-03-05');
      expect(both.days).toEqual([
        { date: '2030-03-04', views: 2, visitors: 1 },
        { date: '2030-03-05', views: 1, visitors: 1 },
      ]);
    } finally {
      await other.app.close();
      await forgetDays('2030-01-01');
    }
  });

  it('answers a flood from one address with 204 and counts at most its limits', async () => {
    // A clock stopped in one minute, so the per-minute limit is exact.
    const other = await clockedGateway(new Date('2031-05-06T12:00:10.000Z'));
    const counter = other.app.get(ViewCounter);
    const flood = (address: string, browser: (i: number) => string, n: number) =>
      Promise.all(
        Array.from({ length: n }, async (_, i) => {
          // 250 connections at once: on a busy machine the odd one is reset before the server
          // reads it (ECONNRESET); sent again, as a browser's beacon would be on the next page.
          for (let attempt = 1; ; attempt++) {
            try {
              const response = await beacon(
                post.url!,
                { 'x-forwarded-for': address, 'user-agent': browser(i) },
                other.base,
              );
              return response.status;
            } catch (error) {
              if (attempt === 3) throw error;
            }
          }
        }),
      );
    try {
      // The finding: 3,000 beacons from one address, each with its own browser string.
      const statuses: number[] = [];
      for (let i = 0; i < 3000; i += 250)
        statuses.push(...(await flood('198.51.100.9', (j) => `${BROWSER} flood/${i + j}`, 250)));
      expect(statuses.filter((s) => s !== 204)).toEqual([]);
      const day = '2031-05-06';
      await settled((s) => s.days[0]!.views >= VISITORS_PER_ADDRESS_PER_DAY, day, day);
      await new Promise((r) => setTimeout(r, 300)); // a few more flushes: nothing else comes
      const report = await stats(day, day);
      expect(report.days[0]!.views).toBeLessThanOrEqual(VIEWS_PER_ADDRESS_PER_MINUTE);
      expect(report.days[0]!.visitors).toBeLessThanOrEqual(VISITORS_PER_ADDRESS_PER_DAY);
      // Each beacon a new browser: the first 50 count, then none (the visitor cap comes first).
      expect(report.days[0]).toEqual({
        date: day,
        views: VISITORS_PER_ADDRESS_PER_DAY,
        visitors: VISITORS_PER_ADDRESS_PER_DAY,
      });
      expect(counter.dropped()).toEqual({
        rate: 0,
        visitors: 3000 - VISITORS_PER_ADDRESS_PER_DAY,
        queueFull: 0,
      });
      // One browser from another address, 100 times in the minute: the first 60 count.
      expect(new Set(await flood('198.51.100.10', () => BROWSER, 100))).toEqual(new Set([204]));
      const after = await settled(
        (s) => s.days[0]!.views === VISITORS_PER_ADDRESS_PER_DAY + VIEWS_PER_ADDRESS_PER_MINUTE,
        day,
        day,
      );
      expect(after.days[0]!.visitors).toBe(VISITORS_PER_ADDRESS_PER_DAY + 1);
      expect(counter.dropped().rate).toBe(100 - VIEWS_PER_ADDRESS_PER_MINUTE);
      // The next minute, that address counts again.
      other.clock.now = new Date('2031-05-06T12:01:00.000Z');
      expect((await beacon(post.url!, { 'x-forwarded-for': '198.51.100.10' }, other.base)).status).toBe(204);
      await settled(
        (s) => s.days[0]!.views === VISITORS_PER_ADDRESS_PER_DAY + VIEWS_PER_ADDRESS_PER_MINUTE + 1,
        day,
        day,
      );
      expect(logs.join('')).toMatch(/views not counted: \d+ over the per-address rate/);
    } finally {
      await other.app.close();
      await forgetDays('2031-01-01');
    }
  }, 60_000);

  it('hands more views than one batch holds over in one flush', async () => {
    // No timer flush during the test: the one flush below must take them all.
    const other = await clockedGateway(new Date('2033-01-02T10:00:00.000Z'), 3_600_000);
    try {
      const n = 2500;
      for (let i = 0; i < n; i += 250)
        await Promise.all(
          Array.from({ length: 250 }, (_, j) =>
            beacon(post.url!, { 'x-forwarded-for': `10.9.${(i + j) >> 8}.${(i + j) & 255}` }, other.base),
          ),
        );
      const counter = other.app.get(ViewCounter);
      expect(counter.waitingCount()).toBe(n);
      await counter.flush();
      expect(counter.waitingCount()).toBe(0);
      expect((await stats('2033-01-02', '2033-01-02')).days[0]).toEqual({
        date: '2033-01-02',
        views: n,
        visitors: n,
      });
    } finally {
      await other.app.close();
      await forgetDays('2033-01-01');
    }
  }, 60_000);
});
