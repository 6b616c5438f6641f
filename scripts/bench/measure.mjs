// What the side-by-side benchmarks share: another revision built in a worktree, CPU time of
// processes read from /proc, and load from autocannon.
import autocannon from 'autocannon';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './stack.mjs';

export const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
export const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
export const CLOCK_TICKS = 100; // USER_HZ on Linux

/** A worktree of `rev`, installed and built once (kept in the temp folder for later runs). */
export function baseCheckout(rev) {
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

/** This build, and with BENCH_BASE=<git revision> that revision's build first. */
export function benchTargets() {
  const targets = [{ name: 'this build', root: ROOT }];
  if (process.env.BENCH_BASE) {
    const base = baseCheckout(process.env.BENCH_BASE);
    targets.unshift({ name: `base ${base.sha}`, root: base.dir });
  }
  return targets;
}

/**
 * The launcher's children (gateway, auth, posts, …) by name, from its stack.json. In one-process
 * mode every name has the same pid: measure CPU through distinctPids, or it counts twice.
 */
export async function stackPids(stack) {
  return JSON.parse(await readFile(join(stack.dataDir, 'stack.json'), 'utf8')).children;
}

/** { name: pid } with names that share a process merged: { gateway: 7, posts: 7 } -> { 'gateway+posts': 7 }. */
export function distinctPids(pids) {
  const names = new Map();
  for (const [name, pid] of Object.entries(pids)) names.set(pid, [...(names.get(pid) ?? []), name]);
  return Object.fromEntries([...names].map(([pid, shared]) => [shared.join('+'), pid]));
}

export async function cpuTicks(pid) {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]); // utime + stime
}

/** Busy ticks of the whole machine (every process: PostgreSQL and the load generator too). */
export async function machineTicks() {
  const [cpu] = (await readFile('/proc/stat', 'utf8')).split('\n');
  const [user, nice, system, , , irq, softirq, steal] = cpu.split(/\s+/).slice(1).map(Number);
  return user + nice + system + irq + softirq + steal;
}

/** Load on `url`; with `unique`, each request gets its own query string, so no cache answers it. */
export function cannon(url, { unique = false, headers } = {}) {
  let n = 0;
  const setupRequest = unique
    ? (request) => ({ ...request, path: `${request.path}&bench=${++n}` })
    : undefined;
  return new Promise((resolve, reject) => {
    const requests = setupRequest ? [{ method: 'GET', setupRequest }] : undefined;
    autocannon({ url, connections: 20, duration: SECONDS, requests, headers }, (error, result) =>
      error ? reject(error) : resolve(result),
    );
  });
}

/** Requests per second and CPU ms per 1,000 requests of the given processes ({ name: pid }), from /proc. */
export async function loadCost(url, byName, options = {}) {
  const pids = distinctPids(byName);
  const names = Object.keys(pids);
  const before = await Promise.all(names.map((name) => cpuTicks(pids[name])));
  const machineBefore = await machineTicks();
  const result = await cannon(url, options);
  const after = await Promise.all(names.map((name) => cpuTicks(pids[name])));
  const machine = (await machineTicks()) - machineBefore;
  const perThousand = (ticks) =>
    Math.round(((ticks * (1000 / CLOCK_TICKS)) / result.requests.total) * 1000 * 10) / 10;
  const used = after.map((ticks, i) => ticks - before[i]);
  return {
    requestsPerSecond: Math.round(result.requests.average),
    cpuMsPer1000: perThousand(used.reduce((a, b) => a + b, 0)),
    // Each process's share, to see where a change in the sum comes from.
    cpuMsPer1000ByProcess: Object.fromEntries(names.map((name, i) => [name, perThousand(used[i])])),
    machineCpuMsPer1000: perThousand(machine),
    non2xx: result.non2xx,
  };
}

/**
 * `measure(target)` on every target, ROUNDS times, alternating the order each round (the
 * machine is shared: runs far apart differ); a warm-up run each first, not counted.
 */
export async function alternating(targets, measure) {
  const rounds = Object.fromEntries(targets.map((t) => [t.name, []]));
  for (const target of targets) await measure(target);
  for (let round = 0; round < ROUNDS; round++)
    for (const target of round % 2 ? [...targets].reverse() : targets)
      rounds[target.name].push(await measure(target));
  return Object.fromEntries(
    targets.map((t) => {
      const runs = rounds[t.name];
      const mean = (key) => Math.round((runs.reduce((sum, r) => sum + r[key], 0) / runs.length) * 10) / 10;
      return [
        t.name,
        { runs, meanRequestsPerSecond: mean('requestsPerSecond'), meanCpuMsPer1000: mean('cpuMsPer1000') },
      ];
    }),
  );
}

/** A process's resident memory now (kB), from /proc. */
export async function rssKb(pid) {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  return Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0);
}

/** Samples a process's RSS every 100 ms; stop() answers the peak (kB). */
export function sampleRss(pid) {
  let peak = 0;
  const timer = setInterval(async () => (peak = Math.max(peak, await rssKb(pid))), 100);
  return {
    stop() {
      clearInterval(timer);
      return peak;
    },
  };
}

/** Signs in on a stack; answers the token. */
export async function signInToken(baseUrl, { username, password }) {
  const response = await fetch(`${baseUrl}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  if (response.status !== 200) throw new Error(`sign-in answered ${response.status}`);
  return (await response.json()).token;
}
