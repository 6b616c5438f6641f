/**
 * Visit statistics through the real gateway and services: one visitor per address and
 * browser per day (a hash with the day's salt), two views counted as two; DNT, Sec-GPC, bots,
 * the admin and paths that are no page count nothing; no address or browser string is found
 * in any table or in the logs; a new day counts the same reader as a new visitor (clock
 * injected); a flood from one address (3,000 beacons, each its own browser) is answered 204
 * and counts at most the per-address limits; a dump of the whole database after the day has
 * turned holds no visitor key and no salt; views sent while the posts service is down are
 * counted once it is back. With REDIS_URL (a real Redis) the day's salt and visitor keys
 * outlive a posts service restart, so nobody is counted twice.
 */
import {
  VIEWS_PER_ADDRESS_PER_MINUTE,
  VISITORS_PER_ADDRESS_PER_DAY,
  type PostView,
  type StatsReport,
} from '@blog/contracts';
import { freePort, startTestRedis, type TestRedis } from '@blog/server-kit/testing';
import { Redis } from 'ioredis';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import pg from 'pg';
import { ViewCounter } from '../src/stats/view-counter.js';
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

  /** A second gateway on the same services whose clock the test sets. */
  async function clockedGateway(start: Date, flushMs = 50) {
    const clock = { now: start };
    const port = await freePort();
    const app = await createGateway(
      loadGatewayConfig({ ...stack.env, PORT: String(port), VIEW_FLUSH_MS: String(flushMs) }),
      stack.env,
      { clock: () => clock.now },
    );
    return { app, clock, base: `http://127.0.0.1:${port}` };
  }
  const forgetDays = (from: string) =>
    Promise.all([
      db.query(`DELETE FROM posts.view_days WHERE day >= $1`, [from]),
      db.query(`DELETE FROM posts.view_day_facets WHERE day >= $1`, [from]),
    ]);

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
          const response = await beacon(
            post.url!,
            { 'x-forwarded-for': address, 'user-agent': browser(i) },
            other.base,
          );
          return response.status;
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

const run = promisify(execFile);

/**
 * The whole database as a backup holds it: `pg_dump` when one as new as the server is here
 * (PG_DUMP, or Debian's /usr/lib/postgresql/<major>/bin). pg_dump refuses a newer server, and
 * the embedded PostgreSQL 18 of the tests ships none, so otherwise every table's rows as
 * pg_dump writes them (COPY ... TO STDOUT, text format), schema by schema.
 */
async function dumpDatabase(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const major = Number((await client.query(`SHOW server_version_num`)).rows[0].server_version_num) / 10000;
    const candidates = [process.env.PG_DUMP, `/usr/lib/postgresql/${Math.floor(major)}/bin/pg_dump`];
    const pgDump = candidates.find((file) => file && existsSync(file));
    if (pgDump) return (await run(pgDump, ['-d', url], { maxBuffer: 512 * 1024 * 1024 })).stdout;
    const tables = (
      await client.query(
        `SELECT table_schema, table_name FROM information_schema.tables
         WHERE table_schema NOT IN ('pg_catalog', 'information_schema') AND table_type = 'BASE TABLE'
         ORDER BY 1, 2`,
      )
    ).rows as { table_schema: string; table_name: string }[];
    let dump = '';
    for (const { table_schema, table_name } of tables) {
      dump += `COPY "${table_schema}"."${table_name}" FROM stdin;\n`;
      // COPY's text format, row by row: tab-separated columns, \N for null.
      const { rows } = await client.query({
        text: `SELECT * FROM "${table_schema}"."${table_name}"`,
        rowMode: 'array',
      });
      for (const row of rows as unknown[][])
        dump += `${row.map((v) => (v === null ? '\\N' : v instanceof Date ? v.toISOString() : Buffer.isBuffer(v) ? `\\\\x${v.toString('hex')}` : typeof v === 'object' ? JSON.stringify(v) : String(v))).join('\t')}\n`;
      dump += '\\.\n\n';
    }
    return dump;
  } finally {
    await client.end();
  }
}

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
