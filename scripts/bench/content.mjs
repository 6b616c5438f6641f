// Writing benchmark (issue 13): how long the renderer takes on a 5,000-word post, and what
// reads cost: a post page's HTML and JavaScript on the wire, and CPU time per 1,000 reads of
// a post and of the home page's list, cached and uncached. With BENCH_BASE=<git revision> the same figures come from that
// revision too, built in a worktree and run beside this build on other ports, the load runs
// alternating between the two (the machine is shared: figures from different runs differ).
import autocannon from 'autocannon';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { percentile, ROOT, startSeedableStack } from './stack.mjs';

const ADMIN = { username: 'benchadmin', password: 'bench-password-123' };
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CLOCK_TICKS = 100; // USER_HZ on Linux

/** A long post as people write them: headings, paragraphs with emphasis and links, lists, a table, code. */
export function longMarkdown(words) {
  const sentence = (i) =>
    `The **roadster** needed new tyres number ${i}, so I went to [the shop](https://example.com/shop/${i}) and asked about _pressure_ and \`torque\`.`;
  const blocks = [];
  let count = 0;
  for (let i = 0; count < words; i++) {
    if (i % 12 === 0) blocks.push(`## Part ${i / 12 + 1}`);
    if (i % 12 === 5) blocks.push('- front left\n- front right\n- [x] rear left\n- [ ] rear right');
    if (i % 12 === 9) blocks.push('| Tyre | Bar |\n|:--|--:|\n| Front | 2.2 |\n| Rear | 2.4 |');
    if (i % 24 === 11) blocks.push('```\ntorque: 110 Nm\npressure: 2.2 bar\n```');
    const paragraph = [sentence(i), sentence(i + 1), sentence(i + 2)].join(' ');
    blocks.push(paragraph);
    count +=
      paragraph.split(/\s+/).length +
      (i % 12 === 0 ? 2 : 0) +
      (i % 12 === 5 ? 8 : 0) +
      (i % 12 === 9 ? 8 : 0);
  }
  return blocks.join('\n\n');
}

async function renderTimes(root) {
  const { renderMarkdown } = await import(
    pathToFileURL(join(root, 'services/posts/dist/content/markdown.js')).href
  );
  const markdown = longMarkdown(5000);
  const words = renderMarkdown(markdown).words;
  for (let i = 0; i < 5; i++) renderMarkdown(markdown); // warm up the JIT
  const times = [];
  for (let i = 0; i < 100; i++) {
    const started = performance.now();
    renderMarkdown(markdown);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const ms = (v) => Math.round(v * 100) / 100;
  return {
    words,
    markdownBytes: markdown.length,
    p50ms: ms(percentile(times, 50)),
    p95ms: ms(percentile(times, 95)),
  };
}

function wireBytes(url, encoding = 'br') {
  return new Promise((resolve, reject) => {
    request(url, { headers: { 'accept-encoding': encoding } }, (res) => {
      let bytes = 0;
      res.on('data', (chunk) => (bytes += chunk.length));
      res.on('end', () => resolve(bytes));
    })
      .on('error', reject)
      .end();
  });
}

async function cpuTicks(pid) {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]); // utime + stime
}

/** Busy ticks of the whole machine (every process: PostgreSQL and the load generator too). */
async function machineTicks() {
  const [cpu] = (await readFile('/proc/stat', 'utf8')).split('\n');
  const [user, nice, system, , , irq, softirq, steal] = cpu.split(/\s+/).slice(1).map(Number);
  return user + nice + system + irq + softirq + steal;
}

/** Load on `url`; with `unique`, each request gets its own query string, so no cache answers it. */
function cannon(url, unique = false) {
  let n = 0;
  const setupRequest = unique
    ? (request) => ({ ...request, path: `${request.path}&bench=${++n}` })
    : undefined;
  return new Promise((resolve, reject) => {
    const requests = setupRequest ? [{ method: 'GET', setupRequest }] : undefined;
    autocannon({ url, connections: 20, duration: SECONDS, requests }, (error, result) =>
      error ? reject(error) : resolve(result),
    );
  });
}

/** A stack of the checkout at `root`, with 200 seeded posts and one of `content` (and its page's weight). */
async function startWithPost(name, root, content) {
  const stack = await startSeedableStack(
    name,
    { ADMIN_USERNAME: ADMIN.username, ADMIN_PASSWORD: ADMIN.password },
    root,
  );
  const login = await fetch(`${stack.baseUrl}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(ADMIN),
  });
  const { token } = await login.json();
  // Each checkout seeds with its own seeder: the schema differs between revisions.
  const { seedPosts } = await import(pathToFileURL(join(root, 'scripts/seed.mjs')).href);
  await seedPosts(stack.databaseUrl, 200);
  const form = new FormData();
  for (const [key, value] of Object.entries({
    title: 'Roadster weekend',
    content,
    category: 'Garage',
    submenu1: 'Automobiles',
  }))
    form.set(key, value);
  const created = await fetch(`${stack.baseUrl}/api/posts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  const post = await created.json();
  const state = JSON.parse(await readFile(join(stack.dataDir, 'stack.json'), 'utf8'));
  const html = await (await fetch(`${stack.baseUrl}${post.url}`)).text();
  const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)[1];
  return {
    stack,
    post,
    pids: { gateway: state.children.gateway, posts: state.children.posts },
    weight: {
      postPageHtmlBrotli: await wireBytes(`${stack.baseUrl}${post.url}`),
      postApiBrotli: await wireBytes(`${stack.baseUrl}/api/posts/${post.id}`),
      entryScriptBrotli: await wireBytes(`${stack.baseUrl}${script}`),
    },
  };
}

/**
 * The reads measured: one post and the home page's list through the gateway's cache (the
 * gateway's CPU), and the list with the cache missed every time (gateway and posts CPU).
 */
const READS = [
  { name: 'cachedPostRead', path: (t) => `/api/posts/${t.post.id}`, unique: false, pids: ['gateway'] },
  { name: 'cachedListRead', path: () => '/api/posts?limit=15', unique: false, pids: ['gateway'] },
  { name: 'uncachedListRead', path: () => '/api/posts?limit=15', unique: true, pids: ['gateway', 'posts'] },
];

/** Requests per second and CPU ms per 1,000 requests of the named processes, from /proc. */
async function readLoad(target, read) {
  const pids = read.pids.map((name) => target.pids[name]);
  const before = await Promise.all(pids.map(cpuTicks));
  const machineBefore = await machineTicks();
  const result = await cannon(`${target.stack.baseUrl}${read.path(target)}`, read.unique);
  const after = await Promise.all(pids.map(cpuTicks));
  const machine = (await machineTicks()) - machineBefore;
  const perThousand = (ticks) =>
    Math.round(((ticks * (1000 / CLOCK_TICKS)) / result.requests.total) * 1000 * 10) / 10;
  const used = after.map((ticks, i) => ticks - before[i]);
  return {
    requestsPerSecond: Math.round(result.requests.average),
    cpuMsPer1000: perThousand(used.reduce((a, b) => a + b, 0)),
    // Each process's share, to see where a change in the sum comes from.
    cpuMsPer1000ByProcess: Object.fromEntries(read.pids.map((name, i) => [name, perThousand(used[i])])),
    machineCpuMsPer1000: perThousand(machine),
    non2xx: result.non2xx,
  };
}

/** A worktree of `rev`, installed and built once (kept in the temp folder for later runs). */
function baseCheckout(rev) {
  const sha = execFileSync('git', ['rev-parse', '--short', rev], { cwd: ROOT, encoding: 'utf8' }).trim();
  const dir = join(tmpdir(), `blog-bench-base-${sha}`);
  if (!existsSync(join(dir, 'web/dist/index.html'))) {
    if (!existsSync(dir))
      execFileSync('git', ['worktree', 'add', '--detach', dir, sha], { cwd: ROOT, stdio: 'inherit' });
    execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'inherit' });
    execFileSync('npm', ['run', 'build'], { cwd: dir, stdio: 'inherit' });
  }
  return { dir, sha };
}

export async function benchContent() {
  const results = { render: await renderTimes(ROOT) };
  const content = longMarkdown(1000);
  const targets = [{ name: 'this build', root: ROOT }];
  if (process.env.BENCH_BASE) {
    const base = baseCheckout(process.env.BENCH_BASE);
    targets.unshift({ name: `base ${base.sha}`, root: base.dir });
  }
  const running = [];
  try {
    for (const target of targets)
      running.push({ ...target, ...(await startWithPost('content', target.root, content)) });
    const only = process.env.BENCH_READS?.split(',');
    for (const read of READS.filter((r) => !only || only.includes(r.name))) {
      const rounds = Object.fromEntries(running.map((t) => [t.name, []]));
      for (const target of running) await readLoad(target, read); // warm-up (JIT, pools), not counted
      for (let round = 0; round < ROUNDS; round++)
        for (const target of round % 2 ? [...running].reverse() : running)
          rounds[target.name].push(await readLoad(target, read));
      results[read.name] = Object.fromEntries(
        running.map((t) => {
          const runs = rounds[t.name];
          const mean = (key) =>
            Math.round((runs.reduce((sum, r) => sum + r[key], 0) / runs.length) * 10) / 10;
          return [
            t.name,
            {
              runs,
              meanRequestsPerSecond: mean('requestsPerSecond'),
              meanCpuMsPer1000: mean('cpuMsPer1000'),
            },
          ];
        }),
      );
    }
    results.weight = Object.fromEntries(running.map((t) => [t.name, t.weight]));
    return results;
  } finally {
    await Promise.all(running.map((t) => t.stack.stop()));
  }
}
