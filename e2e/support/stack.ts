import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from '@blog/server-kit/testing';

const ROOT = resolve(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '../..');

export interface StackState {
  launcher: number;
  port: number;
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
 * gateway serving the web app), on a free port with its own data folder.
 */
export async function startStack(
  options: { env?: Record<string, string>; dataDir?: string } = {},
): Promise<RunningStack> {
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'blog-e2e-')));
  const port = await freePort();
  let output = '';
  const launcher: ChildProcess = spawn(process.execPath, [join(ROOT, 'scripts/start.mjs')], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'warn', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
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
    async waitHealthy(timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        if (launcher.exitCode !== null) throw new Error(`launcher exited early:\n${output}`);
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
  } else {
    const text = await readFile(join(dataDir, 'admin-credentials.txt'), 'utf8');
    stack.admin = {
      username: /username: (\S+)/.exec(text)?.[1] ?? 'admin',
      password: /password: (\S+)/.exec(text)?.[1] ?? '',
    };
  }
  return stack;
}
