// Visit statistics benchmark: beacons sent as fast as the gateway answers a cached post read
// (both measured in this run), each from its own address (X-Forwarded-For: one address would
// meet the per-address flood limits), are all counted, none lost; the ingestion rate, the
// beacon's latency (p50, p99) and the gateway's and posts service's CPU per 1,000 beacons
// (from /proc); the beacon's cost on a page (its bytes on the wire, main-thread time of
// sendBeacon in Chromium); and the Stats tab's query time over a year of data for 10,000
// posts. With BENCH_BASE=<git revision> the cached read and the beacons are measured on that
// revision's build first, the same way.
import autocannon from 'autocannon';
import pg from 'pg';
import { chromium } from 'playwright-core';
import { seedPosts } from '../seed.mjs';
import { benchTargets, cpuTicks, loadCost, signInToken, stackPids } from './measure.mjs';
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
async function ingestion(stack, token, pids, path, rate) {
  const before = await statsViews(stack.baseUrl, token);
  const samePid = pids.gateway === pids.posts;
  const ticks = { gateway: await cpuTicks(pids.gateway), posts: samePid ? 0 : await cpuTicks(pids.posts) };
  let sent = 0;
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
        requests: [
          {
            // Each beacon its own reader: 10.a.b.c from a counter.
            setupRequest: (request) => {
              const n = ++sent;
              request.headers = {
                ...request.headers,
                'x-forwarded-for': `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`,
              };
              return request;
            },
          },
        ],
      },
      (error, r) => (error ? reject(error) : resolve(r)),
    ),
  );
  const answered = result['2xx'];
  let counted = 0;
  for (const deadline = Date.now() + 30_000; Date.now() < deadline;) {
    counted = (await statsViews(stack.baseUrl, token)) - before;
    if (counted >= answered) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  // Read after the views are counted: the posts service's share is done by then.
  const used = {
    gateway: (await cpuTicks(pids.gateway)) - ticks.gateway,
    posts: samePid ? 0 : (await cpuTicks(pids.posts)) - ticks.posts,
  };
  const perThousand = (t) => Math.round(((t * 10) / result.requests.total) * 1000 * 10) / 10;
  return {
    beaconsPerSecond: Math.round(result.requests.average),
    answered204: answered,
    counted,
    // Requests still in flight when autocannon stopped are counted but not in its 2xx figure.
    lost: Math.max(0, answered - counted),
    latencyMs: { p50: result.latency.p50, p99: result.latency.p99 },
    gatewayCpuMsPer1000: perThousand(used.gateway),
    // Its batches' work (keys checked, totals added); in one process it is in the gateway's figure.
    postsCpuMsPer1000: samePid ? null : perThousand(used.posts),
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

/** A year of daily totals over 10,000 posts (and the site's, and facets); the Stats query's time. */
async function yearQuery(stack, token) {
  const db = new pg.Client({ connectionString: stack.databaseUrl });
  await db.connect();
  try {
    await db.query(`
      INSERT INTO posts.view_days (day, path, post_id, views, visitors)
      SELECT d::date, '/p/' || p.id, p.id, 1 + (p.id + extract(doy FROM d)::int) % 20, 1 + (p.id + extract(doy FROM d)::int) % 12
      FROM generate_series(current_date - 365, current_date - 1, interval '1 day') d
      JOIN posts.posts p ON p.id % 5 = extract(dow FROM d)::int % 5`);
    await db.query(`
      INSERT INTO posts.view_days (day, path, post_id, views, visitors)
      SELECT day, '', NULL, sum(views), sum(visitors) FROM posts.view_days WHERE day < current_date GROUP BY day`);
    await db.query(`
      INSERT INTO posts.view_day_facets (day, path, kind, value, views)
      SELECT d::date, '', k.kind, k.value, 100 + extract(doy FROM d)::int
      FROM generate_series(current_date - 365, current_date - 1, interval '1 day') d
      CROSS JOIN (VALUES ('device', 'phone'), ('device', 'desktop'), ('device', 'tablet'), ('referrer', 'news.example.org'),
        ('referrer', 'search.example'), ('country', 'DE'), ('country', 'FR')) AS k(kind, value)`);
    await db.query('ANALYZE posts.view_days; ANALYZE posts.view_day_facets');
    const rows = (
      await db.query(
        `SELECT (SELECT count(*) FROM posts.view_days) AS days, (SELECT count(*) FROM posts.view_day_facets) AS facets`,
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
      dayRows: Number(rows.days),
      facetRows: Number(rows.facets),
      statsQueryMs: { p50: Math.round(times[Math.floor(times.length / 2)]), max: Math.round(times.at(-1)) },
    };
  } finally {
    await db.end();
  }
}

/** The cached read and the beacons on the build at `root`; the page cost and the year query on this build only. */
async function benchBuild(root, full) {
  const stack = await startSeedableStack(
    'views',
    { ADMIN_USERNAME: ADMIN.username, ADMIN_PASSWORD: ADMIN.password },
    root,
  );
  try {
    await seedPosts(stack.databaseUrl, 10_000);
    const token = await signInToken(stack.baseUrl, ADMIN);
    const pids = await stackPids(stack);
    const [post] = await (await fetch(`${stack.baseUrl}/api/posts?limit=1`)).json();
    const cachedRead = await loadCost(`${stack.baseUrl}/api/posts/${post.id}`, { gateway: pids.gateway });
    const beacons = await ingestion(stack, token, pids, post.url, cachedRead.requestsPerSecond);
    return {
      cachedPostRead: {
        requestsPerSecond: cachedRead.requestsPerSecond,
        gatewayCpuMsPer1000: cachedRead.cpuMsPer1000,
      },
      beacons,
      ...(full ? { page: await pageCost(stack.baseUrl, post.url), year: await yearQuery(stack, token) } : {}),
    };
  } finally {
    await stack.stop();
  }
}

export async function benchViews() {
  const results = {};
  for (const target of benchTargets())
    results[target.name] = await benchBuild(target.root, target.name === 'this build');
  return results;
}
