/**
 * Visit statistics through the real gateway and services: one visitor per address and
 * browser per day (a hash with the day's salt), two views counted as two; DNT, Sec-GPC, bots,
 * the admin and paths that are no page count nothing; no address or browser string is found
 * in any table or in the logs; the salt changes at midnight (clock injected) and the old one
 * is gone; folding raw views into daily totals keeps the totals; views sent while the posts
 * service is down are counted once it is back.
 */
import type { PostView, StatsReport } from '@blog/contracts';
import { freePort } from '@blog/server-kit/testing';
import pg from 'pg';
import { createGateway, loadGatewayConfig } from '../src/index.js';
import { fields, multipart } from './support/media-fixtures.js';
import { ADMIN, api, loginAs, startTestStack, type TestStack } from './support/test-stack.js';

const ADDRESS = '203.0.113.77';
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) StatsTestBrowser/123.4';
const OTHER_BROWSER =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Mobile/15E148 OtherStatsBrowser/9';
const today = () => new Date().toISOString().slice(0, 10);

describe('visit statistics', () => {
  let stack: TestStack;
  let admin: string;
  let db: pg.Client;
  let post: PostView;
  const logs: string[] = [];
  const write = {
    out: process.stdout.write.bind(process.stdout),
    err: process.stderr.write.bind(process.stderr),
  };

  const beacon = (path: string, headers: Record<string, string> = {}, base = stack.baseUrl, body?: string) =>
    fetch(`${base}/api/views`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-forwarded-for': ADDRESS,
        'user-agent': BROWSER,
        ...headers,
      },
      body: body ?? JSON.stringify({ path, referrer: 'https://news.example.org/some/page?id=7' }),
    });
  const stats = async (from = today(), to = today(), extra = '') =>
    (await api(stack, `/api/admin/stats?from=${from}&to=${to}${extra}`, { token: admin }))
      .json as unknown as StatsReport;
  /** The totals once the gateway has handed its batch over. */
  const settled = async (check: (s: StatsReport) => boolean, from?: string, to?: string) => {
    let last: StatsReport | undefined;
    for (const deadline = Date.now() + 10_000; Date.now() < deadline;) {
      last = await stats(from, to);
      if (check(last)) return last;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`stats never settled: ${JSON.stringify(last)}`);
  };

  beforeAll(async () => {
    // Everything the processes print is kept, to look for the address and browser in it.
    process.stdout.write = ((chunk: unknown, ...rest: unknown[]) => {
      logs.push(String(chunk));
      return (write.out as (...a: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof process.stdout.write;
    process.stderr.write = ((chunk: unknown, ...rest: unknown[]) => {
      logs.push(String(chunk));
      return (write.err as (...a: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof process.stderr.write;
    stack = await startTestStack({ VIEW_FLUSH_MS: '50', LOG_LEVEL: 'debug' });
    admin = await loginAs(stack, ADMIN.username, ADMIN.password);
    db = new pg.Client({ connectionString: stack.env.DATABASE_URL });
    await db.connect();
    const { body, contentType } = multipart(
      fields({
        title: 'Counted post',
        content: 'Read me.',
        category: 'Garage',
        submenu1: 'Automobiles',
        submenu2: 'Car One',
      }),
    );
    post = (await (
      await fetch(`${stack.baseUrl}/api/posts`, {
        method: 'POST',
        headers: { 'content-type': contentType, authorization: `Bearer ${admin}` },
        body,
      })
    ).json()) as PostView;
  }, 60_000);
  afterAll(async () => {
    process.stdout.write = write.out;
    process.stderr.write = write.err;
    await db?.end();
    await stack?.stop();
  });

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
    // One post's own figures.
    expect((await stats(today(), today(), `&postId=${post.id}`)).days[0]).toEqual({
      date: today(),
      views: 3,
      visitors: 2,
    });
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

  it('changes the salt at midnight and deletes the old one (the clock injected)', async () => {
    let now = new Date('2030-03-04T23:59:58.000Z');
    const port = await freePort();
    const other = await createGateway(
      loadGatewayConfig({ ...stack.env, PORT: String(port), VIEW_FLUSH_MS: '50' }),
      stack.env,
      { clock: () => now },
    );
    try {
      const base = `http://127.0.0.1:${port}`;
      await beacon(post.url!, {}, base);
      const first = await settled((s) => s.days[0]!.views === 1, '2030-03-04', '2030-03-04');
      expect(first.days).toEqual([{ date: '2030-03-04', views: 1, visitors: 1 }]);
      const saltsBefore = (await db.query(`SELECT day::text FROM posts.view_salts ORDER BY day`)).rows;
      expect(saltsBefore.map((r) => r.day)).toContain('2030-03-04');
      now = new Date('2030-03-05T00:00:01.000Z');
      await beacon(post.url!, {}, base);
      await settled((s) => s.days[1]!.views === 1, '2030-03-04', '2030-03-05');
      // The same address and browser: a new key on the new day, which cannot be linked to the old one.
      const keys = (
        await db.query(
          `SELECT day::text, visitor FROM posts.page_views WHERE day IN ('2030-03-04', '2030-03-05') ORDER BY day`,
        )
      ).rows as { day: string; visitor: string }[];
      expect(keys).toHaveLength(2);
      expect(keys[0]!.visitor).not.toBe(keys[1]!.visitor);
      expect((await db.query(`SELECT day::text FROM posts.view_salts`)).rows.map((r) => r.day)).toEqual([
        '2030-03-05',
      ]);
    } finally {
      await other.close();
      await db.query(`DELETE FROM posts.page_views WHERE day >= '2030-01-01'`);
    }
  });

  it('folds views older than 30 days into daily totals without changing the totals', async () => {
    // Forty days ago: 5 views by 3 visitors of the post and 2 of /about, from two devices and a referrer.
    const old = new Date(Date.now() - 40 * 86_400_000);
    const day = old.toISOString().slice(0, 10);
    const rows: [string, number | null, string, string | null, string, string | null][] = [
      [post.url!, post.id, 'a'.repeat(64), 'search.example', 'desktop', 'FR'],
      [post.url!, post.id, 'a'.repeat(64), 'search.example', 'desktop', 'FR'],
      [post.url!, post.id, 'b'.repeat(64), null, 'phone', null],
      [post.url!, post.id, 'c'.repeat(64), 'search.example', 'phone', 'FR'],
      [post.url!, post.id, 'c'.repeat(64), null, 'phone', null],
      ['/about', null, 'a'.repeat(64), null, 'desktop', 'FR'],
      ['/about', null, 'd'.repeat(64), 'other.example', 'tablet', null],
    ];
    for (const [path, postId, visitor, referrer, device, country] of rows)
      await db.query(
        `INSERT INTO posts.page_views (at, day, path, post_id, visitor, referrer_host, device, country)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [old, day, path, postId, visitor, referrer, device, country],
      );
    const before = await stats(day, day);
    expect(before.days).toEqual([{ date: day, views: 7, visitors: 4 }]);
    const { StatsService } = await import('../../services/posts/src/stats/stats.service.js');
    await stack.services.posts.get(StatsService).fold();
    expect(
      (await db.query(`SELECT count(*)::int AS n FROM posts.page_views WHERE day = $1`, [day])).rows[0].n,
    ).toBe(0);
    const after = await stats(day, day);
    expect({ ...after, live: 0 }).toEqual({ ...before, live: 0 });
    // Folding again changes nothing.
    await stack.services.posts.get(StatsService).fold();
    expect(await stats(day, day)).toEqual(after);
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
