// `npm run bench -- start`: how long `npm start` takes to be healthy on a clone that is already
// built (the goal: ≤ 5 s), from the command to the first 200 from /api/health. First start: a
// fresh DATA_DIR (the database cluster is created). Second start: the same DATA_DIR again. Each
// BENCH_START_ROUNDS times (default 3); the median, and where the time went (START_TIMINGS=1:
// the launcher's and the servers' steps, in ms since each process began). Build first.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, percentile, ROOT } from './stack.mjs';

const ROUNDS = Number(process.env.BENCH_START_ROUNDS ?? 3);
const TIMEOUT_MS = 120_000;

/** `npm start` on `dataDir`: ms to healthy and the timing lines it printed; stopped after. */
async function timedStart(dataDir) {
  const port = await freePort();
  const started = performance.now();
  const child = spawn('npm', ['start', '--silent'], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'warn', START_TIMINGS: '1' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => (output += chunk));
  const exited = new Promise((done) => child.once('exit', done));
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`npm start exited before it was healthy:\n${output}`);
      if (performance.now() - started > TIMEOUT_MS)
        throw new Error(`not healthy in ${TIMEOUT_MS} ms:\n${output}`);
      try {
        if ((await fetch(`http://127.0.0.1:${port}/api/health`)).status === 200) break;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    const ms = Math.round(performance.now() - started);
    // The launcher prints its timings just after its own health check passes.
    while (!/\[launcher\] timings/.test(output) && child.exitCode === null)
      await new Promise((r) => setTimeout(r, 20));
    const steps = output
      .split('\n')
      .filter((line) => / timings \(ms\): /.test(line))
      .map((line) => line.replace(/^\[(\w+)\] timings \(ms\): /, '$1: '));
    return { ms, steps };
  } finally {
    // The launcher (named in stack.json) stops its servers and PostgreSQL; npm exits with it.
    const state = JSON.parse(await readFile(join(dataDir, 'stack.json'), 'utf8').catch(() => '{}'));
    if (state.launcher) process.kill(state.launcher, 'SIGTERM');
    else child.kill('SIGTERM');
    await exited;
  }
}

function summary(runs) {
  const sorted = runs.map((r) => r.ms).sort((a, b) => a - b);
  return { medianMs: percentile(sorted, 50), runsMs: runs.map((r) => r.ms), steps: runs.map((r) => r.steps) };
}

export async function benchStart() {
  const first = [];
  const second = [];
  for (let round = 0; round < ROUNDS; round++) {
    const dataDir = await mkdtemp(join(tmpdir(), 'blog-bench-start-'));
    try {
      first.push(await timedStart(dataDir));
      second.push(await timedStart(dataDir));
    } finally {
      await rm(dataDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
    }
  }
  return { rounds: ROUNDS, firstStart: summary(first), secondStart: summary(second) };
}
