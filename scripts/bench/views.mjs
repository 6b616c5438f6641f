// Visit statistics benchmark: beacons sent as fast as the gateway answers a cached post read
// (both measured in this run), each from its own address (X-Forwarded-For: one address would
// meet the per-address flood limits), are all counted, none lost; the ingestion rate, the
// beacon's latency (p50, p99) and the gateway's and posts service's CPU per 1,000 beacons
// (from /proc); the beacon's cost on a page (its bytes on the wire, main-thread time of
// sendBeacon in Chromium); and the Stats tab's query time over a year of data for 10,000
// posts. With BENCH_BASE=<git revision> that revision's build runs beside this one: the
// cached read and the beacons are measured on both, alternating for BENCH_ROUNDS rounds (a
// busy machine then weighs on both alike), the beacons at one rate for both (the slower
// build's cached-read rate), so their CPU per 1,000 compares.
import autocannon from 'autocannon';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { chromium } from 'playwright-core';
import { seedPosts } from '../seed.mjs';
import { benchTargets, cpuTicks, loadCost, ROUNDS, signInToken, stackPids } from './measure.mjs';
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

/** A process's fields after its name in /proc/<pid>/stat (1: parent, 11-14: its and its waited-for children's CPU ticks), or null once gone. */
async function procStat(pid) {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null);
  return (
    stat &&
    stat
      .slice(stat.lastIndexOf(')') + 2)
      .split(' ')
      .map(Number)
  );
}

/**
 * CPU ticks of the stack's PostgreSQL: its postmaster, the backends alive now and those that
 * ended (in the postmaster's children's time). The database's share of a beacon: raw views
 * written there (the base) or only daily totals (this build).
 */
async function databaseTicks(stack) {
  const postmaster = Number(
    (await readFile(join(stack.dataDir, 'postgres', 'postmaster.pid'), 'utf8')).split('\n')[0],
  );
  const own = await procStat(postmaster);
  let ticks = own[11] + own[12] + own[13] + own[14];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await procStat(entry);
    if (stat?.[1] === postmaster) ticks += stat[11] + stat[12];
  }
  return ticks;
}

/**
 * Addresses the beacons come from, one after the other: below the gateway's 200,000 tracked
 * per day, so rounds after rounds stay within the flood limits.
 */
const ADDRESSES = 150_000;

/**
 * Beacons at `rate` for SECONDS; then every one answered 204 must be in the stats. Each
 * beacon comes from the next address, each round with its own browser version: every round
 * brings new visitors alike.
 */
async function ingestion(target, rate) {
  const { stack, token, pids, path } = target;
  const reader = READER.replace('Chrome/124.0.0.0', `Chrome/124.0.${target.rounds++}.0`);
  let sent = 0;
  const before = await statsViews(stack.baseUrl, token);
  const samePid = pids.gateway === pids.posts;
  const ticks = {
    gateway: await cpuTicks(pids.gateway),
    posts: samePid ? 0 : await cpuTicks(pids.posts),
    database: await databaseTicks(stack),
  };
  const result = await new Promise((resolve, reject) =>
    autocannon(
      {
        url: `${stack.baseUrl}/api/views`,
        method: 'POST',
        connections: 20,
        duration: SECONDS,
        overallRate: rate,
        headers: { 'content-type': 'application/json', 'user-agent': reader },
        body: JSON.stringify({ path, referrer: 'https://news.example.org/' }),
        requests: [
          {
            // Each beacon from the next address: 10.a.b.c from a counter.
            setupRequest: (request) => {
              const n = 1 + (sent++ % ADDRESSES);
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
    database: (await databaseTicks(stack)) - ticks.database,
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
    databaseCpuMsPer1000: perThousand(used.database),
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

/** A stack of the build at `root`, seeded, with what the measures need. */
async function startTarget(target) {
  const stack = await startSeedableStack(
    'views',
    { ADMIN_USERNAME: ADMIN.username, ADMIN_PASSWORD: ADMIN.password },
    target.root,
  );
  try {
    await seedPosts(stack.databaseUrl, 10_000);
    const token = await signInToken(stack.baseUrl, ADMIN);
    const pids = await stackPids(stack);
    const [post] = await (await fetch(`${stack.baseUrl}/api/posts?limit=1`)).json();
    return { ...target, stack, token, pids, post, path: post.url, rounds: 0 };
  } catch (error) {
    await stack.stop();
    throw error;
  }
}

const mean = (values) => Math.round((values.reduce((sum, v) => sum + v, 0) / values.length) * 10) / 10;

/**
 * `measure` on each target once as a warm-up, then ROUNDS rounds, the order reversed every
 * other round; the rounds' figures by target.
 */
async function alternate(targets, measure) {
  const runs = new Map(targets.map((t) => [t.name, []]));
  for (const target of targets) await measure(target);
  for (let round = 0; round < ROUNDS; round++)
    for (const target of round % 2 ? [...targets].reverse() : targets)
      runs.get(target.name).push(await measure(target));
  return runs;
}

/** The cached read and the beacons on every build, alternating; the page cost and the year query on this build only. */
export async function benchViews() {
  const targets = [];
  try {
    for (const target of benchTargets()) targets.push(await startTarget(target));
    const reads = await alternate(targets, (t) =>
      loadCost(`${t.stack.baseUrl}/api/posts/${t.post.id}`, { gateway: t.pids.gateway }),
    );
    // One rate for all: CPU per request depends on the load.
    const rate = Math.min(...targets.map((t) => mean(reads.get(t.name).map((r) => r.requestsPerSecond))));
    const beacons = await alternate(targets, (t) => ingestion(t, rate));
    const results = { beaconRate: rate, rounds: ROUNDS };
    for (const target of targets) {
      const runs = beacons.get(target.name);
      results[target.name] = {
        cachedPostRead: {
          requestsPerSecond: mean(reads.get(target.name).map((r) => r.requestsPerSecond)),
          gatewayCpuMsPer1000: mean(reads.get(target.name).map((r) => r.cpuMsPer1000)),
        },
        beacons: {
          runs,
          meanGatewayCpuMsPer1000: mean(runs.map((r) => r.gatewayCpuMsPer1000)),
          ...(runs[0].postsCpuMsPer1000 === null
            ? {}
            : { meanPostsCpuMsPer1000: mean(runs.map((r) => r.postsCpuMsPer1000)) }),
          meanDatabaseCpuMsPer1000: mean(runs.map((r) => r.databaseCpuMsPer1000)),
          lost: runs.reduce((sum, r) => sum + r.lost, 0),
        },
      };
    }
    const self = targets.find((t) => t.name === 'this build');
    results['this build'].page = await pageCost(self.stack.baseUrl, self.path);
    results['this build'].year = await yearQuery(self.stack, self.token);
    return results;
  } finally {
    await Promise.all(targets.map((t) => t.stack.stop()));
  }
}
