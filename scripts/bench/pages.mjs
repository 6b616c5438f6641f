// `npm run bench -- pages`: what a server-rendered page costs, with 10,000 seeded
// posts. Through the gateway's cache: requests/s and the gateway's CPU ms per 1,000 requests
// for the home page and a post page, uncompressed and as a browser asks (brotli); with BENCH_BASE=<revision before server rendering> the
// same from that revision (its app shell) beside this build, alternating. Uncached: the time of
// one render of each page (a new query string every request, so the page cache never answers;
// the API reads it makes may be cached, as in production), p50 and p95, and the CPU ms per
// render of the gateway and the posts service, the builds alternating in rounds. Through nginx: the
// production stack's microcache beside the same nginx serving the same bytes as a static file.
import autocannon from 'autocannon';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startProdStack } from '../prod-stack.mjs';
import { seedPosts } from '../seed.mjs';
import {
  alternating,
  benchTargets,
  CLOCK_TICKS,
  cpuTicks,
  distinctPids,
  loadCost,
  SECONDS,
  stackPids,
  signInToken,
} from './measure.mjs';
import { percentile, startSeedableStack } from './stack.mjs';

const ADMIN = { username: 'benchadmin', password: 'bench-password-123' };
const POSTS = Number(process.env.BENCH_POSTS ?? 10_000);
const RENDERS = 600;
/**
 * Uncached renders come in rounds, the builds alternating: this machine's load drifts. A round's
 * CPU per render varies by 2-3 ms from the next; four rounds left a mean 1-2 ms apart between
 * runs of the same builds, twelve resolve about half a millisecond.
 */
const RENDER_ROUNDS = 12;
/** What a browser sends that changes the answer's cost: it takes brotli. */
const BROWSER = { 'accept-encoding': 'gzip, deflate, br' };

async function createPost(baseUrl, token) {
  const form = new FormData();
  form.set('title', 'Roadster weekend');
  form.set('content', 'Two weekends with the **roadster**.\n\n'.repeat(20));
  form.set('category', 'Garage');
  form.set('submenu1', 'Automobiles');
  const response = await fetch(`${baseUrl}/api/posts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  if (response.status !== 201) throw new Error(`create answered ${response.status}`);
  return response.json();
}

/** A stack of the checkout at `root` with the seeded posts and one more to read. */
async function startPagesStack(target) {
  const stack = await startSeedableStack(
    `pages-${target.name.replace(/\W+/g, '-')}`,
    { ADMIN_USERNAME: ADMIN.username, ADMIN_PASSWORD: ADMIN.password },
    target.root,
  );
  // Each checkout seeds with its own seeder: the schema differs between revisions.
  const { seedPosts: seed } = await import(pathToFileURL(join(target.root, 'scripts/seed.mjs')).href);
  await seed(stack.databaseUrl, POSTS);
  const post = await createPost(stack.baseUrl, await signInToken(stack.baseUrl, ADMIN));
  const children = await stackPids(stack);
  return {
    stack,
    post,
    pids: { gateway: children.gateway },
    renderPids: { gateway: children.gateway, posts: children.posts },
  };
}

const ms = (v) => Math.round(v * 100) / 100;

/**
 * Milliseconds of `count` requests one after another, each with a query string of its own, and
 * the CPU ms per render of the gateway and the posts service (from /proc).
 */
async function renderTimes(url, count, byName, headers = {}) {
  const pids = distinctPids(byName);
  const names = Object.keys(pids);
  const before = await Promise.all(names.map((name) => cpuTicks(pids[name])));
  const times = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const response = await fetch(`${url}${url.includes('?') ? '&' : '?'}render=${i}-${Date.now()}`, {
      headers,
    });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
    times.push(performance.now() - started);
  }
  const after = await Promise.all(names.map((name) => cpuTicks(pids[name])));
  const cpuMsPerRender = Object.fromEntries(
    names.map((name, i) => [name, ms(((after[i] - before[i]) * (1000 / CLOCK_TICKS)) / count)]),
  );
  return { times, cpuMsPerRender };
}

/** Rounds of renderTimes as one figure: p50 and p95 over every render, CPU per render by round and on average. */
function combinedRounds(rounds) {
  const times = rounds.flatMap((r) => r.times).sort((a, b) => a - b);
  const names = Object.keys(rounds[0].cpuMsPerRender);
  const mean = (values) => ms(values.reduce((sum, v) => sum + v, 0) / values.length);
  return {
    p50ms: ms(percentile(times, 50)),
    p95ms: ms(percentile(times, 95)),
    cpuMsPerRender: Object.fromEntries(names.map((n) => [n, mean(rounds.map((r) => r.cpuMsPerRender[n]))])),
    cpuMsPerRenderByRound: Object.fromEntries(names.map((n) => [n, rounds.map((r) => r.cpuMsPerRender[n])])),
  };
}

function cannon(url) {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections: 50, duration: SECONDS }, (error, result) =>
      error
        ? reject(error)
        : resolve({
            requestsPerSecond: Math.round(result.requests.average),
            p99ms: result.latency.p99,
            non2xx: result.non2xx,
          }),
    );
  });
}

/** The rendered home page through nginx's microcache beside the same bytes as a static file. */
async function throughNginx() {
  const staticRoot = await mkdtemp(join(tmpdir(), 'bench-pages-static-'));
  await chmod(staticRoot, 0o755);
  const stack = await startProdStack({ postsReplicas: 1 });
  try {
    await seedPosts(stack.databaseUrl, POSTS);
    const html = await (await fetch(`${stack.gatewayUrl}/`)).text();
    if (!html.includes('post-card')) throw new Error('the home page was not rendered');
    await writeFile(join(staticRoot, 'home.html'), html);
    const nginx = await stack.startNginx({ microcache: true, root: staticRoot });
    const staticFile = await cannon(`${nginx.url}/home.html`);
    const renderedHome = await cannon(`${nginx.url}/`);
    return {
      htmlBytes: Buffer.byteLength(html),
      staticFile,
      renderedHome,
      shareOfStatic: Math.round((renderedHome.requestsPerSecond / staticFile.requestsPerSecond) * 100) / 100,
    };
  } finally {
    await stack.stop();
    await rm(staticRoot, { recursive: true, force: true });
  }
}

export async function benchPages() {
  const targets = benchTargets();
  const running = new Map();
  try {
    for (const target of targets) running.set(target.name, await startPagesStack(target));
    const cached = await alternating(targets, async (target) => {
      const { stack, post, pids } = running.get(target.name);
      const home = await loadCost(`${stack.baseUrl}/`, pids);
      const postPage = await loadCost(`${stack.baseUrl}${post.url}`, pids);
      return {
        home,
        postPage,
        // As a browser asks for them: compressed.
        homeBrotli: await loadCost(`${stack.baseUrl}/`, pids, { headers: BROWSER }),
        postPageBrotli: await loadCost(`${stack.baseUrl}${post.url}`, pids, { headers: BROWSER }),
        // alternating() averages these two keys over the rounds: the two pages together.
        requestsPerSecond: (home.requestsPerSecond + postPage.requestsPerSecond) / 2,
        cpuMsPer1000: (home.cpuMsPer1000 + postPage.cpuMsPer1000) / 2,
      };
    });
    // Each page on every build in alternating rounds. The base may be the app shell, which
    // renders nothing: its figures then show what a render adds.
    const uncached = Object.fromEntries(targets.map((t) => [t.name, {}]));
    // fetch() asks for gzip; a browser's render is compressed with brotli (homeBrotli).
    for (const [page, path, headers] of [
      ['home', () => '/'],
      ['postPage', (post) => post.url],
      ['garage', () => '/garage'],
      ['homeBrotli', () => '/', BROWSER],
    ]) {
      const rounds = Object.fromEntries(targets.map((t) => [t.name, []]));
      for (let round = 0; round < RENDER_ROUNDS; round++)
        for (const target of targets) {
          const { stack, post, renderPids } = running.get(target.name);
          const url = `${stack.baseUrl}${path(post)}`;
          rounds[target.name].push(await renderTimes(url, RENDERS / RENDER_ROUNDS, renderPids, headers));
        }
      for (const target of targets) uncached[target.name][page] = combinedRounds(rounds[target.name]);
    }
    for (const { stack } of running.values()) await stack.stop();
    running.clear();
    return {
      posts: POSTS,
      seconds: SECONDS,
      throughGatewayCache: cached,
      uncachedRender: targets.length === 1 ? uncached['this build'] : uncached,
      nginx: await throughNginx(),
    };
  } finally {
    for (const { stack } of running.values()) await stack.stop();
  }
}
