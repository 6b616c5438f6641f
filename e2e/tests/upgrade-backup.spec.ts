/**
 * A new version that changes an existing blog's database: `npm start` backs the blog up before
 * its migrations run, and says which file brings back the state before. Played here by undoing
 * the posts schema's last migration (its own `down`) and removing DATA_DIR/schema-stamp, as a
 * blog last started by the previous version has them. A new blog and a plain restart take no
 * backup.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { operatorDatabaseUrl } from '@blog/server-kit';
import { MIGRATIONS } from '../../services/posts/src/migrations/index.js';
import { api, ADMIN, login } from '../../infra/test/support/backup-restore.js';
import { undoLastPostsMigration } from '../../infra/test/support/service-migrations.js';
import { startStack, type RunningStack } from '../support/stack.js';

const env = { ADMIN_USERNAME: ADMIN.username, ADMIN_PASSWORD: ADMIN.password, BACKUP_SCHEDULE: 'off' };

describe('npm start backs the blog up before a version changes its database', () => {
  let stack: RunningStack | null = null;
  let dataDir: string;
  /** The launcher writes the stamp once it sees the start healthy, a moment after a test does. */
  const stamped = async () => {
    for (const until = Date.now() + 30_000; !existsSync(join(dataDir, 'schema-stamp'));) {
      if (Date.now() > until) throw new Error('no schema-stamp 30 s after a healthy start');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  const backupFiles = async () =>
    (await readdir(join(dataDir, 'backups', 'backups'))).filter((name) => name.endsWith('.blogbak'));
  afterAll(async () => {
    await stack?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('backs up once before the migrations, not on a new blog or a plain restart', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'blog-upgrade-'));
    stack = await startStack({ dataDir, env });
    expect(stack.output()).not.toMatch(/backing the blog up first/);
    await stamped();
    const blog = { baseUrl: stack.baseUrl, stop: async () => {} };
    const token = await login(blog);
    const form = new FormData();
    form.append('title', 'Written by the previous version');
    form.append('content', 'Still here after the upgrade.');
    form.append('category', 'Projects');
    await api(blog, '/api/posts', { body: form, token });

    // The previous version: the last posts migration not yet run, and its own stamp.
    await undoLastPostsMigration(operatorDatabaseUrl({ DATA_DIR: dataDir }));
    await stack.stop();
    await rm(join(dataDir, 'schema-stamp'));

    stack = await startStack({ dataDir, env });
    const said = stack.output();
    const last = MIGRATIONS.at(-1)!.name;
    expect(said).toMatch(
      new RegExp(`this version changes the database \\(posts: ${last}\\): backing the blog up first`),
    );
    expect(said).toMatch(
      /backed up to .*\/backups\/blog-\d{8}T\d{6}Z-[0-9a-f]{4}\.blogbak; should this version fail/,
    );
    expect(
      (await readdir(join(dataDir, 'backups', 'backups'))).filter((f) => f.endsWith('.blogbak')),
    ).toHaveLength(1);
    const upgraded = { baseUrl: stack.baseUrl, stop: async () => {} };
    const titles = (await api(upgraded, '/api/posts')).json as unknown as { title: string }[];
    expect(titles.map((post) => post.title)).toContain('Written by the previous version');

    // The same version again: nothing to back up (once the upgraded start has written its stamp).
    await stamped();
    await stack.stop();
    stack = await startStack({ dataDir, env });
    expect(stack.output()).not.toMatch(/backing the blog up first/);
    expect(await backupFiles()).toHaveLength(1);
  }, 300_000);
});
