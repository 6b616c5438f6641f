/**
 * The restore drill under `npm start`: a blog written on the embedded stack is backed up while
 * it runs, and `npm run restore -- <file>` brings it back into a fresh, empty DATA_DIR. The
 * restored blog answers as before, byte for byte (the public pages' HTML, the API, every media
 * file), and the same owner signs in with the same password, even with a token issued before,
 * and a reader with two-factor sign-in with their code generator (the secret that signs tokens
 * and seals two-factor secrets came back too). A second restore
 * into the now full DATA_DIR is refused and changes nothing.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createStorage, operatorDatabaseUrl } from '@blog/server-kit';
import { openBackupStore, takeBackup } from '@blog/server-kit/backup';
import { api, apiSnapshot, ADMIN, login, writeBlog } from '../../infra/test/support/backup-restore.js';
import { codeAt } from '../../gateway/test/support/account-stack.js';
import { startStack, type RunningStack } from '../support/stack.js';

const run = promisify(execFile);
const ROOT = new URL('../..', import.meta.url).pathname;
const PAGES = ['/', '/aquariums', '/about', '/feed.xml', '/sitemap.xml'];

async function pageAnswers(stack: RunningStack, extra: string[]): Promise<Record<string, string>> {
  const answers: Record<string, string> = {};
  for (const path of [...PAGES, ...extra]) {
    const response = await fetch(`${stack.baseUrl}${path}`);
    const body = Buffer.from(await response.arrayBuffer());
    answers[path] = `${response.status} ${createHash('sha256').update(body).digest('hex')}`;
  }
  return answers;
}

describe('restore drill: npm start, a backup, npm run restore into a fresh DATA_DIR', () => {
  let stack: RunningStack | null = null;
  afterAll(async () => {
    await stack?.stop();
  });

  it('brings the whole blog back: pages byte for byte, media, the owner and their tokens', async () => {
    // The same public address before and after: pages carry it (links, feeds, share tags).
    const site = { SITE_URL: 'http://blog.example', PUBLIC_CACHE_TTL_MS: '0' };
    const env = { ...site, ADMIN_USERNAME: ADMIN.username, ADMIN_PASSWORD: ADMIN.password };
    stack = await startStack({ env });
    const blog = { baseUrl: stack.baseUrl, stop: async () => {} };
    const token = await login(blog);
    const created = await writeBlog(blog, token);
    // A reader with two-factor sign-in on: after the restore the same code generator signs in.
    const careful = { username: 'careful', password: 'careful-password-1' };
    await api(blog, '/api/auth/register', { body: careful });
    const carefulToken = (await api(blog, '/api/auth/login', { body: careful })).json.token as string;
    const setup = (await api(blog, '/api/auth/2fa/setup', { method: 'POST', token: carefulToken })).json;
    const secret = setup.secret as string;
    await api(blog, '/api/auth/2fa/enable', {
      body: { password: careful.password, code: codeAt(secret) },
      token: carefulToken,
    });
    const postPages = [created.url as string];
    const pagesBefore = await pageAnswers(stack, postPages);
    const apiBefore = await apiSnapshot(blog, token);

    // The backup, of the running blog, as the scheduled job takes it.
    const dataDir = stack.dataDir;
    const processEnv = { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '' };
    // Beside the data folder, not in it: the test stack's folder goes when it stops.
    const targetDir = await mkdtemp(join(tmpdir(), 'blog-backups-'));
    const target = await openBackupStore(targetDir);
    const backup = await takeBackup(
      {
        databaseUrl: operatorDatabaseUrl({ DATA_DIR: dataDir }),
        media: await createStorage(processEnv),
        secrets: { jwtSecret: (await readFile(join(dataDir, 'jwt-secret'), 'utf8')).trim() },
      },
      target,
    );
    expect(backup.media).toBeGreaterThanOrEqual(2);
    await stack.stop();
    stack = null;

    // The restore, into a fresh folder, as an owner on a new machine would run it.
    const fresh = await mkdtemp(join(tmpdir(), 'blog-restored-'));
    const restoreEnv = { ...process.env, DATA_DIR: fresh, DATABASE_URL: '' };
    const { stdout } = await run(
      process.execPath,
      [join(ROOT, 'scripts/restore.mjs'), join(targetDir, backup.file)],
      {
        cwd: ROOT,
        env: restoreEnv,
      },
    );
    expect(stdout).toMatch(/restored the backup of .* tables, .* rows, \d+ media files/);
    // A second restore into the now full folder: refused, nothing touched.
    const listing = (await readdir(fresh)).sort();
    await expect(
      run(process.execPath, [join(ROOT, 'scripts/restore.mjs'), join(targetDir, backup.file)], {
        cwd: ROOT,
        env: restoreEnv,
      }),
    ).rejects.toMatchObject({ stderr: expect.stringMatching(/is not empty/) });
    expect((await readdir(fresh)).sort()).toEqual(listing);

    stack = await startStack({ dataDir: fresh, env: site });
    const restored = { baseUrl: stack.baseUrl, stop: async () => {} };
    // The token from before the backup still signs in: the same secret signs tokens.
    expect((await api(restored, '/api/auth/account', { token })).json.username).toBe(ADMIN.username);
    const newToken = await login(restored);
    await expect(api(restored, '/api/auth/login', { body: careful })).rejects.toThrow(/401/);
    const withCode = await api(restored, '/api/auth/login', {
      body: { ...careful, code: codeAt(secret, 1) },
    });
    expect(withCode.json.token).toEqual(expect.any(String));
    expect(await pageAnswers(stack, postPages)).toEqual(pagesBefore);
    expect(await apiSnapshot(restored, newToken)).toEqual(apiBefore);
  }, 400_000);
});
