/**
 * Visit statistics through the real gateway and services: one visitor per address and
 * browser per day (a hash with the day's salt), two views counted as two; DNT, Sec-GPC, bots,
 * the admin and paths that are no page count nothing; no address or browser string is found
 * in any table or in the logs; a dump of the whole database after the day has turned holds no
 * visitor key and no salt; views sent while the posts service is down are counted once it is back.
 */
import type pg from 'pg';
import type { PostView } from '@blog/contracts';
import { dumpDatabase } from './support/database-dump.js';
import { ADDRESS, BROWSER, OTHER_BROWSER, today, useStatsStack } from './support/stats-stack.js';
import { api, type TestStack } from './support/test-stack.js';

describe('visit statistics', () => {
  const rig = useStatsStack();
  const { beacon, stats, settled, clockedGateway, forgetDays, logs } = rig;
  let stack: TestStack;
  let admin: string;
  let db: pg.Client;
  let post: PostView;
  beforeAll(() => ({ stack, admin, db, post } = rig));

  it('counts one visitor and two views for the same address and browser; another browser is another visitor', async () => {
    for (const headers of [{}, {}, { 'user-agent': OTHER_BROWSER, 'cf-ipcountry': 'DE' }])
      expect((await beacon(post.url!, headers)).status).toBe(204);
    const report = await settled((s) => s.days[0]!.views === 3);
    expect(report.days).toEqual([{ date: today(), views: 3, visitors: 2 }]);
    expect(report.topPosts).toEqual([
      { postId: post.id, title: 'Counted post', url: post.url, views: 3, visitors: 2 },
    ]);
    expect(report.referrers).toEqual([{ host: 'news.example.org', views: 3 }]);
    expect(report.devices).toEqual([
      { device: 'phone', views: 1 },
      { device: 'tablet', views: 0 },
      { device: 'desktop', views: 2 },
    ]);
    expect(report.countries).toEqual([{ country: 'DE', views: 1 }]);
    expect(report.live).toBe(2);
    // A page that is not a post counts for the site, not for a post.
    expect((await beacon('/garage')).status).toBe(204);
    await settled((s) => s.days[0]!.views === 4);
    // One post's own figures: the page view above is not among them.
    const own = await stats(today(), today(), `&postId=${post.id}`);
    expect(own.days[0]).toEqual({ date: today(), views: 3, visitors: 2 });
    expect(own.referrers).toEqual([{ host: 'news.example.org', views: 3 }]);
    expect(own.devices.map((d) => d.views)).toEqual([1, 0, 2]);
    expect(own.countries).toEqual([{ country: 'DE', views: 1 }]);
    expect(own.live).toBe(2);
    expect((await stats()).referrers).toEqual([{ host: 'news.example.org', views: 4 }]);
    // The admin's post list: each post's views in the last 30 days.
    expect((await api(stack, `/api/admin/stats/recent?ids=${post.id},99999`, { token: admin })).json).toEqual(
      {
        [post.id]: 3,
      },
    );
  });

  it('counts nothing for DNT, Sec-GPC, a bot, the admin, or a path that is no page', async () => {
    const before = (await stats()).days[0]!.views;
    const refused: [string, Record<string, string>][] = [
      [post.url!, { dnt: '1' }],
      [post.url!, { 'sec-gpc': '1' }],
      [
        post.url!,
        { 'user-agent': 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)' },
      ],
      [post.url!, { authorization: `Bearer ${admin}` }],
      ['/admin', {}],
      ['/login', {}],
      ['/no/such/page/here', {}],
      ['/garage/automobiles/car-one/not-a-post', {}],
    ];
    for (const [path, headers] of refused)
      expect([path, (await beacon(path, headers)).status]).toEqual([path, 204]);
    // A real view after them: once it shows, the refused ones would have too.
    await beacon('/about');
    const after = await settled((s) => s.days[0]!.views === before + 1);
    expect(after.days[0]!.views).toBe(before + 1);
  });

  it('answers 400 to a malformed beacon and to a wrong range; the stats are for admins', async () => {
    expect((await beacon('', {}, stack.baseUrl, '{"path": 5}')).status).toBe(400);
    expect((await beacon('', {}, stack.baseUrl, '{"referrer": "x"}')).status).toBe(400);
    expect((await beacon('', {}, stack.baseUrl, 'not json')).status).toBe(400);
    expect(
      (await api(stack, `/api/admin/stats?from=2026-02-02&to=2026-02-01`, { token: admin })).status,
    ).toBe(400);
    expect(
      (await api(stack, `/api/admin/stats?from=2024-01-01&to=2025-01-02`, { token: admin })).status,
    ).toBe(400);
    expect(
      (await api(stack, `/api/admin/stats?from=2024-01-01&to=2024-12-31`, { token: admin })).status,
    ).toBe(200);
    expect((await api(stack, `/api/admin/stats?from=2024-01-01`, { token: admin })).status).toBe(400);
    expect((await api(stack, `/api/admin/stats?from=${today()}&to=${today()}`)).status).toBe(401);
  });

  it('stores no address and no browser string, in any table or in the logs', async () => {
    const tables = (
      await db.query(
        `SELECT table_schema, table_name FROM information_schema.tables
         WHERE table_schema NOT IN ('pg_catalog', 'information_schema') AND table_type = 'BASE TABLE'`,
      )
    ).rows as { table_schema: string; table_name: string }[];
    expect(tables.length).toBeGreaterThan(10);
    for (const { table_schema, table_name } of tables) {
      const { rows } = await db.query(
        `SELECT count(*)::int AS n FROM "${table_schema}"."${table_name}" t
         WHERE t::text LIKE $1 OR t::text LIKE $2 OR t::text LIKE $3 OR t::text LIKE $4`,
        [`%${ADDRESS}%`, '%StatsTestBrowser%', '%OtherStatsBrowser%', '%/some/page?id=7%'],
      );
      expect([table_schema, table_name, rows[0].n]).toEqual([table_schema, table_name, 0]);
    }
    const printed = logs.join('');
    expect(printed.length).toBeGreaterThan(0);
    for (const secret of [ADDRESS, 'StatsTestBrowser', 'OtherStatsBrowser', 'some/page?id=7'])
      expect([secret, printed.includes(secret)]).toEqual([secret, false]);
  });

  it('leaves no visitor key and no salt in a dump of the whole database once the day has turned', async () => {
    const other = await clockedGateway(new Date('2032-07-08T23:59:50.000Z'));
    const { StatsService } = await import('../../services/posts/src/stats/stats.service.js');
    const service = stack.services.posts.get(StatsService);
    // The visitor keys as the posts service gets them, to look for in the dump.
    const keys: string[] = [];
    const record = service.record.bind(service);
    service.record = (batch) => {
      keys.push(...batch.views.map((v) => v.visitor));
      return record(batch);
    };
    try {
      for (const browser of [BROWSER, OTHER_BROWSER])
        await beacon(post.url!, { 'user-agent': browser }, other.base);
      await settled((s) => s.days[0]!.visitors === 2, '2032-07-08', '2032-07-08');
      const salt = await service.salt('2032-07-08');
      other.clock.now = new Date('2032-07-09T00:00:05.000Z');
      await beacon(post.url!, {}, other.base);
      await settled((s) => s.days[1]!.views === 1, '2032-07-08', '2032-07-09');
      const dump = await dumpDatabase(stack.env.DATABASE_URL!);
      expect(dump.length).toBeGreaterThan(10_000);
      // The totals are there...
      expect(dump).toMatch(/2032-07-08[^\n]*\t2\t2\n/);
      // ...but no visitor key, no 64-hex string, no salt (hex, or as bytea), and no table that held them.
      expect(keys).toHaveLength(3);
      for (const key of keys) expect(key).toMatch(/^[0-9a-f]{16}$/);
      for (const key of keys) expect(dump.includes(key)).toBe(false);
      expect(dump.match(/(?<![0-9a-f])[0-9a-f]{64}(?![0-9a-f])/g)).toBeNull();
      expect(dump.includes(salt)).toBe(false);
      expect(dump).not.toMatch(/view_salts|page_views/);
    } finally {
      service.record = record;
      await other.app.close();
      await forgetDays('2032-01-01');
    }
  });

  it('loses nothing when the posts service is down: the batch goes again once it is back', async () => {
    const before = (await stats()).days[0]!.views;
    await stack.services.posts.close();
    try {
      for (let i = 0; i < 5; i++)
        expect((await beacon('/about', { 'user-agent': `${OTHER_BROWSER} ${i}` })).status).toBe(204);
      await new Promise((r) => setTimeout(r, 400)); // several flushes fail meanwhile
    } finally {
      await stack.restartPosts();
    }
    const after = await settled((s) => s.days[0]!.views >= before + 5);
    expect(after.days[0]!.views).toBe(before + 5);
    await new Promise((r) => setTimeout(r, 300));
    expect((await stats()).days[0]!.views).toBe(before + 5);
  });
});
