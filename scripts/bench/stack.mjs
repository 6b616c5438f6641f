// Starts the embedded stack (`node scripts/start.mjs`) for a benchmark and times it to healthy.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../lib/ports.mjs';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export { freePort };

const HEALTHY_WITHIN_MS = Number(process.env.BENCH_HEALTHY_WITHIN_MS ?? 180_000);

/**
 * Starts the launcher and resolves once /api/health answers 200, with the milliseconds it took.
 * `root` runs another checkout's launcher (a revision to compare with). `viaNpm`: as the README
 * says, `npm start`, npm staying the stack's first process (the memory bench counts it).
 */
export async function startStack({ dataDir, port, env = {}, root = ROOT, viaNpm = false }) {
  const started = performance.now();
  const [command, args] = viaNpm
    ? ['npm', ['start', '--silent']]
    : [process.execPath, [join(root, 'scripts/start.mjs')]];
  const child = spawn(command, args, {
    cwd: root,
    env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise((done) => child.once('exit', done));
  const baseUrl = `http://127.0.0.1:${port}`;
  for (;;) {
    if (child.exitCode !== null) throw new Error('launcher exited before the stack was healthy');
    // A server that never comes up (/api/health names it down) must not hang a bench forever.
    if (performance.now() - started > HEALTHY_WITHIN_MS) {
      child.kill('SIGTERM');
      await exited;
      throw new Error(`the stack was not healthy within ${HEALTHY_WITHIN_MS / 1000} s`);
    }
    try {
      if ((await fetch(`${baseUrl}/api/health`)).status === 200) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    baseUrl,
    child,
    msToHealthy: performance.now() - started,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)];
}

/** Runs `fn` n times one after another; returns latency percentiles in milliseconds. */
export async function sequential(n, fn) {
  const times = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn(i);
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  const round = (v) => Math.round(v * 100) / 100;
  return {
    n,
    p50: round(percentile(times, 50)),
    p95: round(percentile(times, 95)),
    p99: round(percentile(times, 99)),
  };
}

/**
 * A stack on a fresh data folder, with the URL of its embedded database so a bench can seed
 * it; stop() also removes the folder.
 */
export async function startSeedableStack(name, env = {}, root = ROOT, { viaNpm = false } = {}) {
  const dataDir = await mkdtemp(join(tmpdir(), `blog-bench-${name}-`));
  const pgPort = await freePort();
  const stack = await startStack({
    dataDir,
    port: await freePort(),
    env: { ...env, PG_PORT: String(pgPort) },
    root,
    viaNpm,
  });
  const password = (await readFile(join(dataDir, 'postgres-password'), 'utf8')).trim();
  return {
    ...stack,
    dataDir,
    databaseUrl: `postgres://postgres:${password}@127.0.0.1:${pgPort}/blog`,
    async stop() {
      await stack.stop();
      // Retried: a process still exiting may write its compile cache meanwhile (ENOTEMPTY).
      await rm(dataDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
    },
  };
}
