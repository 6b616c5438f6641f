// Visit statistics benchmark: beacons sent as fast as the gateway answers a cached post read
// (both measured in this run) are all counted, none lost; the ingestion rate, the beacon's
// latency (p50, p99) and the gateway's CPU per 1,000 beacons; the beacon's cost on a page
// (its bytes on the wire, main-thread time of sendBeacon in Chromium); and the Stats tab's
// query time over a year of data for 10,000 posts.
import autocannon from 'autocannon';
import pg from 'pg';
import { chromium } from 'playwright-core';
import { seedPosts } from '../seed.mjs';
import { cpuTicks, loadCost, signInToken, stackPids } from './measure.mjs';
import { startSeedableStack } from './stack.mjs';

const ADMIN = { username: 'benchadmin', password: 'bench-password-123' };
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const READER =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const day = (offset) => new Date(Date.now() - offset * 86_400_000).toISOString().slice(0, 10);

async function statsViews(baseUrl, token) {
  const response = await fetch(`${baseUrl}/api/admin/stats?from=${day(0)}&to=${day(0)}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return (await response.json()).days[0].views;
}

/** Beacons at the cached read's rate for SECONDS; then every one answered 204 must be in the stats. */
async function ingestion(stack, token, pid, path, rate) {
  const before = await statsViews(stack.baseUrl, token);
  const ticks = await cpuTicks(pid);
  const result = await new Promise((resolve, reject) =>
    autocannon(
      {
        url: `${stack.baseUrl}/api/views`,
        method: 'POST',
        connections: 20,
        duration: SECONDS,
        // The rate the gateway answered cached post reads at, in this run.
        overallRate: rate,
        headers: { 'content-type': 'application/json', 'user-agent': READER },
        body: JSON.stringify({ path, referrer: 'https://news.example.org/' }),
      },
      (error, r) => (error ? reject(error) : resolve(r)),
    ),
  );
  const used = (await cpuTicks(pid)) - ticks;
  const sent = result['2xx'];
  let counted = 0;
  for (const deadline = Date.now() + 30_000; Date.now() < deadline;) {
    counted = (await statsViews(stack.baseUrl, token)) - before;
    if (counted >= sent) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    beaconsPerSecond: Math.round(result.requests.average),
    answered204: sent,
    counted,
    // Requests still in flight when autocannon stopped are counted but not in its 2xx figure.
    lost: Math.max(0, sent - counted),
    latencyMs: { p50: result.latency.p50, p99: result.latency.p99 },
    gatewayCpuMsPer1000: Math.round(((used * 10) / result.requests.total) * 1000 * 10) / 10,
    non2xx: result.non2xx,
  };
}

/** The beacon in a real page: its request's bytes and sendBeacon's main-thread time. */
async function pageCost(baseUrl, path) {
  const browser = await chromium.launch({
    executablePath: process.env.CHROME_PATH ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
  try {
    const context = await browser.newContext({ userAgent: READER });
    const page = await context.newPage();
    const beacons = [];
    page.on('request', (request) => {
      if (request.url().endsWith('/api/views')) beacons.push(request);
    });
    await page.goto(`${baseUrl}${path}`);
    await page.waitForTimeout(500);
    const request = beacons[0];
    const sizes = request ? await request.sizes() : null;
    // One call at a time, as the page makes it (a burst would hit the browser's beacon quota).
    const mainThreadMs = await page.evaluate(async () => {
      /* global location, navigator -- this function runs in the page */
      const times = [];
      for (let i = 0; i < 30; i++) {
        const started = performance.now();
        const body = new Blob([JSON.stringify({ path: location.pathname, referrer: document.referrer })], {
          type: 'application/json',
        });
        navigator.sendBeacon('/api/does-not-count', body);
        times.push(performance.now() - started);
        await new Promise((r) => setTimeout(r, 20));
      }
      times.sort((a, b) => a - b);
      return times[Math.floor(times.length / 2)];
    });
    return {
      beaconSentOnLoad: beacons.length,
      requestBytes: sizes ? sizes.requestHeadersSize + sizes.requestBodySize : null,
      bodyBytes: await page.evaluate(
        () => new Blob([JSON.stringify({ path: location.pathname, referrer: document.referrer })]).size,
      ),
      mainThreadMsPerBeacon: Math.round(mainThreadMs * 1000) / 1000,
    };
  } finally {
    await browser.close();
  }
}

/** A year of data: 365 folded days over 10,000 posts plus 30 days of raw views; the Stats query's time. */
async function yearQuery(stack, token) {
  const db = new pg.Client({ connectionString: stack.databaseUrl });
  await db.connect();
  try {
    await db.query(`
      INSERT INTO posts.view_days (day, path, post_id, views, visitors)
      SELECT d::date, '/p/' || p.id, p.id, 1 + (p.id + extract(doy FROM d)::int) % 20, 1 + (p.id + extract(doy FROM d)::int) % 12
      FROM generate_series(current_date - 365, current_date - 31, interval '1 day') d
      JOIN posts.posts p ON p.id % 5 = extract(dow FROM d)::int % 5`);
    await db.query(`
      INSERT INTO posts.view_days (day, path, post_id, views, visitors)
      SELECT day, '', NULL, sum(views), sum(visitors) FROM posts.view_days GROUP BY day`);
    await db.query(`
      INSERT INTO posts.view_day_facets (day, kind, value, views)
      SELECT d::date, k.kind, k.value, 100 + extract(doy FROM d)::int
      FROM generate_series(current_date - 365, current_date - 31, interval '1 day') d
      CROSS JOIN (VALUES ('device', 'phone'), ('device', 'desktop'), ('device', 'tablet'), ('referrer', 'news.example.org'),
        ('referrer', 'search.example'), ('country', 'DE'), ('country', 'FR')) AS k(kind, value)`);
    await db.query(`
      INSERT INTO posts.page_views (at, day, path, post_id, visitor, referrer_host, device, country)
      SELECT d + (n || ' minutes')::interval, d::date, '/p/' || p.id, p.id, md5(n::text || p.id) || md5(p.id::text || n),
             CASE WHEN n % 3 = 0 THEN 'news.example.org' END, (ARRAY['phone','desktop','tablet'])[1 + n % 3], 'DE'
      FROM generate_series(current_date - 30, current_date, interval '1 day') d
      CROSS JOIN generate_series(1, 4) n
      JOIN posts.posts p ON p.id % 10 = n`);
    await db.query('ANALYZE posts.view_days; ANALYZE posts.page_views; ANALYZE posts.view_day_facets');
    const rows = (
      await db.query(
        `SELECT (SELECT count(*) FROM posts.view_days) AS folded, (SELECT count(*) FROM posts.page_views) AS raw`,
      )
    ).rows[0];
    const times = [];
    for (let i = 0; i < 12; i++) {
      const started = performance.now();
      const response = await fetch(`${stack.baseUrl}/api/admin/stats?from=${day(365)}&to=${day(0)}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      await response.json();
      if (i >= 2) times.push(performance.now() - started); // two warm-up runs
    }
    times.sort((a, b) => a - b);
    return {
      foldedRows: Number(rows.folded),
      rawRows: Number(rows.raw),
      statsQueryMs: { p50: Math.round(times[Math.floor(times.length / 2)]), max: Math.round(times.at(-1)) },
    };
  } finally {
    await db.end();
  }
}

export async function benchViews() {
  const stack = await startSeedableStack('views', {
    ADMIN_USERNAME: ADMIN.username,
    ADMIN_PASSWORD: ADMIN.password,
  });
  try {
    await seedPosts(stack.databaseUrl, 10_000);
    const token = await signInToken(stack.baseUrl, ADMIN);
    const pid = (await stackPids(stack)).gateway;
    const [post] = await (await fetch(`${stack.baseUrl}/api/posts?limit=1`)).json();
    const cachedRead = await loadCost(`${stack.baseUrl}/api/posts/${post.id}`, { gateway: pid });
    const beacons = await ingestion(stack, token, pid, post.url, cachedRead.requestsPerSecond);
    return {
      cachedPostRead: {
        requestsPerSecond: cachedRead.requestsPerSecond,
        gatewayCpuMsPer1000: cachedRead.cpuMsPer1000,
      },
      beacons,
      page: await pageCost(stack.baseUrl, post.url),
      year: await yearQuery(stack, token),
    };
  } finally {
    await stack.stop();
  }
}
