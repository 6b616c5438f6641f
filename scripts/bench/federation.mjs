// `npm run bench -- federation`: the fan-out of one post to its followers on the real embedded
// stack (OUTBOUND_ALLOW=127.0.0.1, SITE_URL on its port): 10,000 accepted followers on 500
// loopback servers (20 each, one shared inbox each: ports 14200+, G14 in docs/design/fediverse.md;
// in their own process, federation-inboxes.mjs, so their CPU is not the stack's), seeded by SQL
// into social's tables (a shortcut: 10,000 signed Follows would measure the inbox). One post
// published through the API.
// Figures: time until every server has the Create (one POST per shared inbox expected), the
// deliveries by type and any delivered twice, each stack process's CPU seconds (/proc/PID/stat)
// and peak PSS (every 200 ms), and the read latency of the post list and a post page (a GET every
// 100 ms each) beside the same readers for as long just before the publish.
// EMBEDDED_PROCESSES=per-service gives each service its own line.
import { fork } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import pg from 'pg';
import { seedPosts } from '../seed.mjs';
import { CLOCK_TICKS, cpuTicks, signInToken } from './measure.mjs';
import { freePort, percentile, ROOT, startStack } from './stack.mjs';

const env = (name, fallback) => Number(process.env[name] ?? fallback);
const SIZES = {
  servers: env('BENCH_FEDERATION_SERVERS', 500),
  followersPerServer: env('BENCH_FEDERATION_FOLLOWERS_PER_SERVER', 20),
  firstPort: env('BENCH_FEDERATION_FIRST_PORT', 14200),
  /** The baseline's readers run this long before the publish; the figure uses the fan-out's length of it. */
  baselineSeconds: env('BENCH_FEDERATION_BASELINE_SECONDS', 60),
  timeoutSeconds: env('BENCH_FEDERATION_TIMEOUT_SECONDS', 300),
  /** After every server has the post: time for a late duplicate to show. */
  settleSeconds: env('BENCH_FEDERATION_SETTLE_SECONDS', 10),
};
const READ_EVERY_MS = 100;
const SAMPLE_EVERY_MS = 200;
const ADMIN = { username: 'benchadmin', password: 'bench-password-123' };
const mb = (kb) => Math.round(kb / 1024);
const seconds = (ms) => Math.round(ms / 100) / 10;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The remote servers, in their own process; ask() sends one command and answers its reply. */
async function startInboxes() {
  const child = fork(
    join(ROOT, 'scripts/bench/federation-inboxes.mjs'),
    [String(SIZES.firstPort), String(SIZES.servers)],
    { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
  );
  const ready = await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`the inbox servers exited (${code})`)));
  });
  if (ready.error) throw new Error(`the inbox servers could not listen: ${ready.error}`);
  let queue = Promise.resolve();
  const ask = (message) =>
    (queue = queue.then(
      () => new Promise((resolve) => (child.once('message', resolve), child.send(message))),
    ));
  return {
    pid: child.pid,
    ask,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.send({ cmd: 'stop' });
      await exited;
    },
  };
}

/** The embedded stack on a fresh data folder, SITE_URL on its own port (the Article ids' origin). */
async function startFederationStack() {
  const dataDir = await mkdtemp(join(tmpdir(), 'blog-bench-federation-'));
  const [port, pgPort] = [await freePort(), await freePort()];
  const stack = await startStack({
    dataDir,
    port,
    env: {
      ADMIN_USERNAME: ADMIN.username,
      ADMIN_PASSWORD: ADMIN.password,
      OUTBOUND_ALLOW: '127.0.0.1',
      SITE_URL: `http://127.0.0.1:${port}`,
      PG_PORT: String(pgPort),
    },
  });
  const password = (await readFile(join(dataDir, 'postgres-password'), 'utf8')).trim();
  return {
    ...stack,
    dataDir,
    siteUrl: `http://127.0.0.1:${port}`,
    databaseUrl: `postgres://postgres:${password}@127.0.0.1:${pgPort}/blog`,
    async stop() {
      await stack.stop();
      await rm(dataDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
    },
  };
}

/** One statement on its own connection. */
async function query(databaseUrl, sql, params) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await client.query(sql, params);
  } finally {
    await client.end();
  }
}

/** Accepted followers straight into social's tables: follower n on server n / perServer. */
async function seedFollowers(databaseUrl) {
  const started = performance.now();
  const { rowCount } = await query(
    databaseUrl,
    `WITH k AS (
       SELECT n % $2 AS user_no, $1 + n / $2 AS port, n FROM generate_series(0, $3 - 1) AS n
     ), actors AS (
       INSERT INTO social.remote_actors (uri, host, handle, name, url, inbox, shared_inbox)
       SELECT format('http://127.0.0.1:%s/users/%s', port, user_no), '127.0.0.1',
              format('u%s@127.0.0.1:%s', user_no, port), format('Follower %s', n),
              format('http://127.0.0.1:%s/@u%s', port, user_no),
              format('http://127.0.0.1:%s/users/%s/inbox', port, user_no),
              format('http://127.0.0.1:%s/inbox', port)
       FROM k RETURNING id, uri)
     INSERT INTO social.followers (remote_actor_id, follow_activity_id, status)
     SELECT id, uri || '#follow', 'accepted' FROM actors`,
    [SIZES.firstPort, SIZES.followersPerServer, SIZES.servers * SIZES.followersPerServer],
  );
  return { followers: rowCount, seconds: seconds(performance.now() - started) };
}

/**
 * When social's poller handed the post's Create to the delivery queue (its outbound_activities
 * row): the publish-to-first-POST time splits into the poll's wait and the queue's.
 */
async function queuedAt(databaseUrl, postId) {
  const sql = `SELECT (extract(epoch FROM created_at) * 1000)::float8 AS at FROM social.outbound_activities
               WHERE post_id = $1 AND kind = 'create'`;
  return (await query(databaseUrl, sql, [postId]).catch(() => null))?.rows[0]?.at ?? null;
}

/** Every process of the stack (the launcher and all under it): role, CPU ticks and PSS. */
export async function stackSnapshot(launcher, dataDir) {
  const table = new Map();
  for (const entry of (await readdir('/proc')).filter((name) => /^\d+$/.test(name))) {
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => null);
    if (!stat) continue;
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime, stime and the waited-for children's: PostgreSQL's ended backends count with it.
    table.set(Number(entry), { ppid: Number(f[1]), comm, ticks: +f[11] + +f[12] + +f[13] + +f[14] });
  }
  const state = JSON.parse(await readFile(join(dataDir, 'stack.json'), 'utf8').catch(() => '{}'));
  const named = new Map();
  for (const [name, pid] of Object.entries(state.children ?? {}))
    if (pid) named.set(pid, named.has(pid) ? `${named.get(pid)}+${name}` : name);
  // The nearest named ancestor (a media worker counts with media), else the command (postgres);
  // null outside the stack.
  const roleOf = (pid) => {
    let role = pid === launcher ? 'launcher' : null;
    for (let p = pid; p > 1; p = table.get(p)?.ppid ?? 0) {
      if (p === launcher) return role ?? table.get(pid).comm;
      role ??= named.get(p) ?? null;
    }
    return null;
  };
  const byRole = {};
  await Promise.all(
    [...table.keys()].map(async (pid) => {
      const name = roleOf(pid);
      if (!name) return;
      const rollup = await readFile(`/proc/${pid}/smaps_rollup`, 'utf8').catch(() => '');
      const role = (byRole[name] ??= { ticks: 0, pssKb: 0 });
      role.ticks += table.get(pid).ticks;
      role.pssKb += Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
    }),
  );
  return byRole;
}

/**
 * Snapshots every `everyMs` (skipped while one is still being taken). Each reads every process's
 * stat and the stack's smaps_rollup: tens of ms of this process's CPU, taken from the stack's cores.
 */
export function sampleStack(launcher, dataDir, everyMs = SAMPLE_EVERY_MS) {
  const samples = []; // { at, byRole }
  let busy = false;
  const timer = setInterval(async () => {
    if (busy) return;
    busy = true;
    try {
      samples.push({ at: Date.now(), byRole: await stackSnapshot(launcher, dataDir) });
    } finally {
      busy = false;
    }
  }, everyMs);
  return {
    between: (from, to) => samples.filter((s) => s.at >= from && s.at <= to),
    stop: () => clearInterval(timer),
  };
}

/**
 * A visitor per path: a GET every READ_EVERY_MS whatever the last one is doing (no coordinated
 * omission). The visitors run in a thread of their own: this process also sends the load
 * (signed POSTs, the remote servers' answers), and a read timed on its event loop would count
 * the time the sender kept that loop busy, which is no visitor's wait.
 */
export function startReaders(baseUrl, paths) {
  const reads = []; // { path, at, ms, ok }
  const worker = new Worker(new URL('./visitors.mjs', import.meta.url), {
    workerData: { baseUrl, paths, everyMs: READ_EVERY_MS },
  });
  worker.on('message', (read) => reads.push(read));
  return {
    /** Latency of the reads started in [from, to), per path. */
    stats(from, to) {
      const round = (v) => Math.round(v * 10) / 10;
      const of = (path) => {
        const window = reads.filter((r) => r.path === path && r.at >= from && r.at < to);
        const ms = window.map((r) => r.ms).sort((x, y) => x - y);
        const [p50, p95] = [50, 95].map((p) => round(percentile(ms, p)));
        return {
          n: ms.length,
          p50,
          p95,
          max: round(ms.at(-1) ?? NaN),
          failed: window.filter((r) => !r.ok).length,
        };
      };
      return Object.fromEntries(paths.map((path) => [path, of(path)]));
    },
    async stop() {
      worker.postMessage('stop');
      await sleep(1000); // the last reads answer
      await worker.terminate();
    },
  };
}

async function publish(baseUrl, token) {
  const form = new FormData();
  for (const [key, value] of Object.entries({
    title: 'Fan-out bench',
    content: 'A post for **every follower**: one Create per shared inbox.',
    category: 'Garage',
    submenu1: 'Automobiles',
  }))
    form.set(key, value);
  const response = await fetch(`${baseUrl}/api/posts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  if (response.status !== 201)
    throw new Error(`publish answered ${response.status}: ${await response.text()}`);
  return response.json();
}

const pssTotalKb = (byRole) => Object.values(byRole).reduce((sum, r) => sum + r.pssKb, 0);
const hundredths = (v) => Math.round(v * 100) / 100;

/**
 * Per role: CPU seconds of the fan-out (between two snapshots) and of the baseline's window (the
 * readers' own cost), the peak PSS over the fan-out's samples and the PSS at rest before it (MB).
 */
function usage({ before, after, baselineStart, samples, rest }) {
  const roles = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  const perRole = (value) => Object.fromEntries(roles.map((role) => [role, value(role)]));
  const cpu = (from, to) => {
    const byRole = perRole((role) =>
      hundredths(((to[role]?.ticks ?? 0) - (from[role]?.ticks ?? 0)) / CLOCK_TICKS),
    );
    return { ...byRole, total: hundredths(Object.values(byRole).reduce((x, y) => x + y, 0)) };
  };
  const peakKb = (value) => Math.max(0, ...samples.map((s) => value(s.byRole)));
  return {
    cpuSeconds: cpu(before, after),
    baselineCpuSeconds: cpu(baselineStart, before),
    peakPssMb: {
      ...perRole((role) => mb(peakKb((byRole) => byRole[role]?.pssKb ?? 0))),
      total: mb(peakKb(pssTotalKb)),
    },
    restPssMb: { ...perRole((role) => mb(rest[role]?.pssKb ?? 0)), total: mb(pssTotalKb(rest)) },
  };
}

const COLUMNS = ['cpuSeconds', 'baselineCpuSeconds', 'peakPssMb', 'restPssMb'];

function table(result) {
  const { fanOut, deliveries: d, stack, reads } = result;
  const line = (label, text) => `${String(label).padEnd(40)}${text}`;
  const cells = (width, values) => values.map((v) => String(v ?? '-').padStart(width)).join('');
  const all = fanOut.allSeconds ?? `not within ${SIZES.timeoutSeconds}`;
  const types = Object.entries(d.byType).map(([type, n]) => `${type} ${n}`);
  const lines = [
    `Fan-out: ${result.followers} followers on ${result.servers} loopback servers (one shared inbox each)`,
    line('publish answered', `${fanOut.publishMs} ms`),
    line('Create queued by social', `${fanOut.queuedSeconds ?? '-'} s after the publish`),
    line('first server reached', `${fanOut.firstSeconds ?? '-'} s after the publish`),
    line('all servers reached', `${all} s (${fanOut.reached}/${result.servers})`),
    line('POSTs received', `${d.deliveries}: ${types.join(', ') || 'none'}`),
    line('  shared / personal inbox', `${d.toSharedInbox} / ${d.toPersonalInbox}; unsigned ${d.unsigned}`),
    line('  delivered twice; GETs', `${d.deliveredTwice}; ${d.gets}`),
    '',
    line('stack process', cells(16, ['CPU s fan-out', 'CPU s baseline', 'peak PSS MB', 'PSS MB before'])),
    ...Object.keys(stack.cpuSeconds).map((role) =>
      line(
        role,
        cells(
          16,
          COLUMNS.map((k) => stack[k][role]),
        ),
      ),
    ),
    line('(inbox servers, not counted)', cells(16, [stack.inboxServersCpuSeconds])),
    '',
    `read latency ms, a GET every ${READ_EVERY_MS} ms; baseline: the ${reads.windowSeconds} s before the publish`,
    line('', cells(10, ['', 'n', 'p50', 'p95', 'max', 'failed'])),
  ];
  for (const [path, phases] of Object.entries(reads.byPath))
    for (const [phase, r] of Object.entries(phases)) {
      const label = phase === 'baseline' ? path.slice(0, 39) : '';
      lines.push(line(label, cells(10, [phase, r.n, r.p50, r.p95, r.max, r.failed])));
    }
  return lines.join('\n');
}

export async function benchFederation() {
  const inboxes = await startInboxes();
  let stack, samples, readers;
  try {
    stack = await startFederationStack();
    await seedPosts(stack.databaseUrl, 200); // the readers' list and page
    const seeded = await seedFollowers(stack.databaseUrl);
    const token = await signInToken(stack.baseUrl, ADMIN);
    const list = await (await fetch(`${stack.baseUrl}/api/posts?limit=1`)).json();
    const first = Array.isArray(list) ? list[0] : (list.items ?? list.posts)[0];
    const paths = ['/api/posts?limit=10', first.url ?? `/posts/${first.slug}`];
    // What a blog with followers has done before: its keys made, its pages rendered once.
    const activityJson = { accept: 'application/activity+json' };
    await fetch(`${stack.baseUrl}/ap/actor/blog`, { headers: activityJson }).catch(() => {});
    for (const path of paths) await fetch(`${stack.baseUrl}${path}`).then((r) => r.arrayBuffer());

    samples = sampleStack(stack.child.pid, stack.dataDir);
    readers = startReaders(stack.baseUrl, paths);
    await sleep(SIZES.baselineSeconds * 1000);
    const before = await stackSnapshot(stack.child.pid, stack.dataDir);
    const inboxTicks = await cpuTicks(inboxes.pid);
    process.stderr.write(`[bench] federation: publishing to ${seeded.followers} followers\n`);
    const publishedAt = Date.now();
    const post = await publish(stack.baseUrl, token);
    const publishMs = Date.now() - publishedAt;
    const objectId = `${stack.siteUrl}/post/${post.id}`;
    let progress = { reached: 0, lastAt: null };
    const deadline = publishedAt + SIZES.timeoutSeconds * 1000;
    while (progress.reached < SIZES.servers && Date.now() < deadline) {
      await sleep(SAMPLE_EVERY_MS);
      progress = await inboxes.ask({ cmd: 'progress', objectId });
    }
    const doneAt = Date.now();
    const after = await stackSnapshot(stack.child.pid, stack.dataDir);
    const inboxServersCpuSeconds = Math.round((await cpuTicks(inboxes.pid)) - inboxTicks) / CLOCK_TICKS;
    // The readers keep going a moment; the fan-out's window ends at the last server's first Create.
    const endAt = progress.reached === SIZES.servers ? progress.lastAt : doneAt;
    await sleep(SIZES.settleSeconds * 1000);
    const deliveries = await inboxes.ask({ cmd: 'report', objectId });
    const queued = await queuedAt(stack.databaseUrl, post.id);
    const baselineFrom =
      publishedAt - Math.min(Math.max(endAt - publishedAt, 1000), SIZES.baselineSeconds * 1000);
    const baseline = readers.stats(baselineFrom, publishedAt);
    const during = readers.stats(publishedAt, endAt);
    const rest = samples.between(publishedAt - 1000, publishedAt).at(-1)?.byRole ?? before;
    const baselineStart = samples.between(baselineFrom, publishedAt)[0]?.byRole ?? before;
    const result = {
      followers: seeded.followers,
      servers: SIZES.servers,
      seededIn: `${seeded.seconds} s (SQL into social.remote_actors/followers)`,
      post: { id: post.id, objectId },
      fanOut: {
        publishMs,
        queuedSeconds: queued === null ? null : seconds(queued - publishedAt),
        firstSeconds: deliveries.firstAt ? seconds(deliveries.firstAt - publishedAt) : null,
        allSeconds: progress.reached === SIZES.servers ? seconds(progress.lastAt - publishedAt) : null,
        reached: progress.reached,
      },
      deliveries,
      stack: {
        ...usage({ before, after, baselineStart, samples: samples.between(publishedAt, endAt), rest }),
        inboxServersCpuSeconds,
      },
      reads: {
        windowSeconds: seconds(publishedAt - baselineFrom),
        byPath: Object.fromEntries(paths.map((p) => [p, { baseline: baseline[p], 'fan-out': during[p] }])),
      },
    };
    process.stderr.write(`${table(result)}\n`);
    return result;
  } finally {
    samples?.stop();
    await readers?.stop();
    await stack?.stop();
    await inboxes.stop();
  }
}
