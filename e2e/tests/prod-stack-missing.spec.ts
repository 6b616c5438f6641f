/**
 * `npm run stack:prod` on a machine without nginx: one line naming the program and how to
 * get it, exit 1, no stack trace, and nothing started (no data folder, no process). nginx is
 * made missing by running the script with an empty PATH (redis-server and nats-server are
 * found where Debian puts them, or are named too).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');

test('stack:prod without nginx says so in one line and starts nothing', async () => {
  const emptyPath = await mkdtemp(join(tmpdir(), 'no-programs-'));
  const prodDirs = async () =>
    (await readdir(tmpdir())).filter((name) => name.startsWith('blog-prod-')).sort();
  const before = await prodDirs();
  try {
    const child = spawn(process.execPath, [join(ROOT, 'scripts/prod-stack.mjs')], {
      cwd: ROOT,
      env: { ...process.env, PATH: emptyPath },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const code = await new Promise<number | null>((done) => child.once('exit', done));
    expect(code).toBe(1);
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\[stack:prod\] needs nginx \(apt-get install nginx\)/);
    expect(stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(await prodDirs()).toEqual(before);
  } finally {
    await rm(emptyPath, { recursive: true, force: true });
  }
});
