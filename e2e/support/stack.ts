import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from '@blog/server-kit/testing';

const ROOT = resolve(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '../..');

/** Launchers this test file started that have not exited yet. */
const running = new Set<ChildProcess>();

// Safety net for a worker that ends with stacks still up: each launcher stops its own children.
process.once('exit', () => {
  for (const launcher of running) launcher.kill('SIGTERM');
});

/**
 * Stops every stack this file started, including one whose start a failing beforeAll abandoned
 * (its variable never assigned). Call it from afterAll.
 */
export async function stopAllStacks(): Promise<void> {
  await Promise.all(
    [...running].map(
      (launcher) =>
        new Promise<void>((done) => {
          if (launcher.exitCode !== null || launcher.signalCode !== null) return done();
          launcher.once('exit', () => done());
          launcher.kill('SIGTERM');
        }),
    ),
  );
}

/**
 * Each launcher's pid is also kept as a file in the folder the Jest global setup made, so the
 * global teardown stops launchers even when a worker hangs or is killed before its afterAll.
 */
function track(launcher: ChildProcess, dataDir: string) {
  running.add(launcher);
  const folder = process.env.BLOG_TEST_PIDS_DIR;
  const file = folder && launcher.pid ? join(folder, String(launcher.pid)) : null;
  if (file) writeFileSync(file, dataDir);
  launcher.once('exit', () => {
    running.delete(launcher);
    if (file) rmSync(file, { force: true });
  });
}

export interface StackState {
  launcher: number;
  port: number;
  /** 'one': the five servers share one process (every name below has its pid); 'per-service': five. */
  mode: 'one' | 'per-service';
  children: Record<'auth' | 'posts' | 'media' | 'mail' | 'gateway', number | null>;
}

export interface RunningStack {
  baseUrl: string;
  dataDir: string;
  admin: { username: string; password: string };
  /** Everything the launcher and its children printed so far. */
  output(): string;
  state(): Promise<StackState>;
  waitHealthy(timeoutMs?: number): Promise<void>;
  /** SIGTERM, as Ctrl-C would; resolves with the launcher's exit code. */
  stop(): Promise<number | null>;
}

/**
 * The whole built stack as `npm start` runs it (launcher, embedded PostgreSQL, four services,
 * gateway serving the web app), on a free port with its own data folder. `root` runs the
 * launcher of another copy of the repo (default: this one).
 */
export async function startStack(
  options: { env?: Record<string, string>; dataDir?: string; root?: string } = {},
): Promise<RunningStack> {
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'blog-e2e-')));
  const port = await freePort();
  let output = '';
  const root = options.root ?? ROOT;
  const launcher: ChildProcess = spawn(process.execPath, [join(root, 'scripts/start.mjs')], {
    cwd: root,
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      LOG_LEVEL: 'warn',
      // The browser suites register many accounts from 127.0.0.1; the per-address limit has its own test.
      REGISTER_MAX_PER_IP: '10000',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  track(launcher, dataDir);
  launcher.stdout?.on('data', (chunk) => (output += chunk));
  launcher.stderr?.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((done) => launcher.once('exit', (code) => done(code)));
  const baseUrl = `http://127.0.0.1:${port}`;

  const stack: RunningStack = {
    baseUrl,
    dataDir,
    admin: { username: '', password: '' },
    output: () => output,
    async state() {
      return JSON.parse(await readFile(join(dataDir, 'stack.json'), 'utf8')) as StackState;
    },
    // A start is 10-20 s idle (a new database cluster, migrations); a busy CI machine gets far more room.
    async waitHealthy(timeoutMs = 150_000) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        if (launcher.exitCode !== null || launcher.signalCode !== null)
          throw new Error(`launcher exited early:\n${output}`);
        try {
          if ((await fetch(`${baseUrl}/api/health`)).status === 200) return;
        } catch {
          // not up yet
        }
        await new Promise((r) => setTimeout(r, 200));
      }
      throw new Error(`stack not healthy after ${timeoutMs} ms:\n${output}`);
    },
    async stop() {
      if (launcher.exitCode === null) launcher.kill('SIGTERM');
      return exited;
    },
  };
  try {
    await stack.waitHealthy();
  } catch (error) {
    await stack.stop();
    throw error;
  }
  const username = options.env?.ADMIN_USERNAME;
  const password = options.env?.ADMIN_PASSWORD;
  if (username && password) {
    stack.admin = { username, password };
  } else if (existsSync(join(dataDir, 'admin-credentials.txt'))) {
    // Absent when the data folder came with its admin (a restored one): the caller knows it.
    const text = await readFile(join(dataDir, 'admin-credentials.txt'), 'utf8');
    stack.admin = {
      username: /username: (\S+)/.exec(text)?.[1] ?? 'admin',
      password: /password: (\S+)/.exec(text)?.[1] ?? '',
    };
  }
  return stack;
}
