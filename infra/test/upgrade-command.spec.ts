/**
 * `npm run upgrade` (scripts/upgrade.mjs), the containers' step before the servers start, run
 * as its own process against a real PostgreSQL: a new blog migrates with no backup; a blog the
 * previous version left (the posts schema's last migration undone) is backed up first, then
 * migrated; two upgrades at once take one backup; a migration that fails stops the step and
 * names the backup that brings back the state before it.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dataSourceOptions, openWhenUpgraded } from '@blog/server-kit';
import { createTestDatabase, type TestDatabase } from '@blog/server-kit/testing';
import { MIGRATIONS } from '../../services/posts/src/migrations/index.js';
import { ROOT } from './support/podman.js';
import { sql } from './support/backup-restore.js';
import { undoLastPostsMigration } from './support/service-migrations.js';

const LAST = MIGRATIONS.at(-1)!.name;

describe('npm run upgrade: a backup before this version migrates an existing database', () => {
  let db: TestDatabase;
  let work: string;
  beforeAll(async () => {
    db = await createTestDatabase('upgrade');
    work = await mkdtemp(join(tmpdir(), 'blog-upgrade-command-'));
  });
  afterAll(async () => {
    await db?.drop();
    await rm(work, { recursive: true, force: true });
  });

  const upgrade = (url = db.url) =>
    new Promise<{ code: number; out: string; err: string }>((done) => {
      execFile(
        process.execPath,
        [join(ROOT, 'scripts', 'upgrade.mjs')],
        {
          cwd: ROOT,
          env: { ...process.env, DATABASE_URL: url, DATA_DIR: work, BACKUP_PASSPHRASE: '' },
          timeout: 300_000,
        },
        (error, out, err) => done({ code: error ? Number(error.code ?? 1) : 0, out, err }),
      );
    });
  const backups = async () =>
    (await readdir(join(work, 'backups', 'backups')).catch(() => [])).filter((name) =>
      name.endsWith('.blogbak'),
    );
  const previousVersion = () => undoLastPostsMigration(db.url);
  const ran = async (schema: string) =>
    (await sql<{ name: string }>(db.url, `SELECT name FROM "${schema}".migrations`)).map((row) => row.name);

  it('a new blog: every schema migrated, nothing backed up', async () => {
    const result = await upgrade();
    expect([result.code, result.err]).toEqual([0, '']);
    expect(result.out).toContain("[upgrade] the database is this version's");
    expect(result.out).not.toMatch(/backing the blog up/);
    for (const schema of ['auth', 'posts', 'media', 'mail', 'social'])
      expect((await ran(schema)).length).toBeGreaterThan(0);
    expect(await ran('posts')).toContain(LAST);
    expect(await backups()).toEqual([]);
  }, 300_000);

  it('the same version again: nothing to do, nothing backed up', async () => {
    const result = await upgrade();
    expect(result.code).toBe(0);
    expect(result.out).not.toMatch(/backing the blog up/);
    expect(await backups()).toEqual([]);
  }, 300_000);

  it('a database of the previous version, upgraded twice at once: one backup, then the migration', async () => {
    await previousVersion();
    expect(await ran('posts')).not.toContain(LAST);
    const [first, second] = await Promise.all([upgrade(), upgrade()]);
    expect([first.code, second.code]).toEqual([0, 0]);
    const said = first.out + second.out;
    expect(said).toContain(`this version changes the database (posts: ${LAST}): backing the blog up first`);
    expect(said.match(/backing the blog up first/g)).toHaveLength(1);
    expect(said).toMatch(/backed up to .*\/backups\/blog-\d{8}T\d{6}Z-[0-9a-f]{4}\.blogbak/);
    expect(await backups()).toHaveLength(1);
    expect(await ran('posts')).toContain(LAST);
  }, 300_000);

  it('a migration that fails stops the step, migrates nothing, and names the backup taken before it', async () => {
    await previousVersion();
    // The migration's own SQL runs, then recording it fails: its transaction rolls back.
    await sql(db.url, `ALTER TABLE posts.migrations ADD CONSTRAINT not_the_last CHECK (name <> '${LAST}')`);
    const result = await upgrade();
    expect(result.code).toBe(1);
    expect(result.err).toMatch(
      /\[upgrade\] failed: the posts migrations failed: .*; the blog as it was before: npm run restore -- .*\/backups\/blog-\d{8}T\d{6}Z-[0-9a-f]{4}\.blogbak into empty databases/,
    );
    const named = /npm run restore -- \S+\/backups\/(\S+\.blogbak)/.exec(result.err)![1]!;
    expect(await backups()).toContain(named);
    expect(await ran('posts')).not.toContain(LAST);
  }, 300_000);

  it('without DATABASE_URL it says what it is for', async () => {
    const result = await new Promise<{ code: number; err: string }>((done) =>
      execFile(
        process.execPath,
        [join(ROOT, 'scripts', 'upgrade.mjs')],
        { cwd: ROOT, env: { PATH: process.env.PATH } },
        (error, _out, err) => done({ code: error ? Number(error.code ?? 1) : 0, err }),
      ),
    );
    expect(result).toEqual({
      code: 1,
      err: '[upgrade] failed: DATABASE_URL is not set: npm run upgrade is for containers (npm start does this itself)\n',
    });
  }, 60_000);

  // Kubernetes: the services run with MIGRATIONS_BY=upgrade and the posts pods' init container
  // runs the upgrade, so no service changes its schema before the backup.
  it('a service with MIGRATIONS_BY=upgrade waits for the upgrade to migrate its schema, running none itself', async () => {
    const fresh = await createTestDatabase('upgrade_wait');
    try {
      const options = dataSourceOptions({
        url: fresh.url,
        schema: 'posts',
        entities: [],
        migrations: MIGRATIONS,
        poolSize: 1,
      });
      let opened = false;
      const waiting = openWhenUpgraded(options, 'posts').then((source) => {
        opened = true;
        return source;
      });
      await new Promise((resolve) => setTimeout(resolve, 5000));
      expect(opened).toBe(false);
      expect(await sql(fresh.url, 'SELECT name FROM posts.migrations')).toEqual([]);
      const result = await upgrade(fresh.url);
      expect(result.code).toBe(0);
      const source = await waiting;
      expect(await source.showMigrations()).toBe(false);
      await source.destroy();
    } finally {
      await fresh.drop();
    }
  }, 300_000);
});
