/**
 * A failing suite still stops everything it started, and Jest exits: a nested Jest runs
 * e2e/fixtures/half-started.fixture.ts, whose beforeAll fails while its stack is starting.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');

/** Pids of the processes whose command line or environment names `dataDir` (launcher, services, PostgreSQL). */
async function processesUsing(dataDir: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const read = (file: string) => readFile(`/proc/${entry}/${file}`, 'latin1').catch(() => '');
    if (
      (await read('cmdline')).includes(dataDir) ||
      (await read('environ')).includes(`DATA_DIR=${dataDir}\0`)
    )
      found.push(Number(entry));
  }
  return found;
}

async function runFailingSuite(env: Record<string, string>) {
  const dataDir = await mkdtemp(join(tmpdir(), 'blog-e2e-halfstarted-'));
  const started = Date.now();
  const jest = spawn(
    process.execPath,
    [
      '--experimental-vm-modules',
      'node_modules/jest/bin/jest.js',
      '--config',
      'e2e/fixtures/jest.config.mjs',
    ],
    {
      cwd: ROOT,
      // No TEST_DATABASE_URL: the nested run starts and stops its own PostgreSQL like `npm test` does.
      env: {
        ...process.env,
        TEST_DATABASE_URL: '',
        FIXTURE_DATA_DIR: dataDir,
        CHROME_PATH: '/nonexistent/chromium',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  jest.stdout.on('data', (chunk) => (output += chunk));
  jest.stderr.on('data', (chunk) => (output += chunk));
  // A Jest that waits on what the suite left running never exits by itself: the test fails instead.
  const hung = setTimeout(() => jest.kill('SIGKILL'), 60_000);
  const code = await new Promise<number | null>((done) => jest.once('exit', done));
  clearTimeout(hung);
  return { code, output, seconds: (Date.now() - started) / 1000, left: await stillRunning(dataDir) };
}

/**
 * What is still running of the stack once Jest exited: a process told to stop may still be ending
 * (PostgreSQL's last checkpoint, on a busy machine), so each gets up to 15 s to be gone.
 */
async function stillRunning(dataDir: string): Promise<string[]> {
  for (const deadline = Date.now() + 15_000; ;) {
    const pids = await processesUsing(dataDir);
    if (pids.length === 0 || Date.now() > deadline)
      return Promise.all(
        pids.map(async (pid) => {
          const cmdline = await readFile(`/proc/${pid}/cmdline`, 'latin1').catch(() => '');
          return `${pid} ${cmdline.replaceAll('\0', ' ').trim()}`;
        }),
      );
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

test('a suite failing in beforeAll stops its half-started stack in afterAll, and Jest exits', async () => {
  const run = await runFailingSuite({});
  expect(run.output).toContain('no Chromium at /nonexistent/chromium');
  expect(run.code).toBe(1);
  expect(run.left).toEqual([]);
}, 120_000);

test('a suite without cleanup has its stack stopped by the global teardown, and Jest exits', async () => {
  const run = await runFailingSuite({ FIXTURE_NO_AFTER_ALL: '1' });
  expect(run.output).toContain('no Chromium at /nonexistent/chromium');
  expect(run.code).toBe(1);
  expect(run.left).toEqual([]);
}, 120_000);
