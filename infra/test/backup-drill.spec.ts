/**
 * The blog's own backup and restore (docs/operations.md#backups-and-restore), drilled for real:
 * a blog written through the gateway and services on PostgreSQL and an S3 server, backed up
 * while it runs (every table from one snapshot by COPY, every media object by content hash,
 * encrypted with age), then restored into a fresh database and bucket: every row, sequence and
 * object, and every answer of the API, as before. Then what must be refused: a truncated file,
 * a wrong passphrase, a database that is not empty, a backup whose media are elsewhere, a
 * backup of a newer version; each leaves nothing restored behind.
 */
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { S3Storage } from '../../libs/server-kit/src/storage/s3-storage.js';
import {
  BackupPassphraseError,
  locateBackup,
  migrationsToRun,
  openBackupStore,
  pruneBackups,
  restoreBackup,
  RestoreRefusedError,
  takeBackup,
} from '@blog/server-kit/backup';
import { createTestDatabase, type TestDatabase } from '@blog/server-kit/testing';
import {
  apiSnapshot,
  bucketContents,
  BUCKET,
  databaseSnapshot,
  expectFreshPost,
  login,
  writeBlog,
  sql,
  startBlog,
  startS3,
  type S3Server,
} from './support/backup-restore.js';
import { SERVICE_MIGRATIONS as MIGRATIONS } from './support/service-migrations.js';

const PASSPHRASE = 'correct horse battery staple';

const mediaStore = (s3: S3Server) =>
  new S3Storage({
    endpoint: s3.endpoint,
    bucket: BUCKET,
    accessKeyId: s3.credentials.accessKeyId,
    secretAccessKey: s3.credentials.secretAccessKey,
    forcePathStyle: true,
  });

describe('backup and restore by the blog itself (COPY snapshot, media by hash, age)', () => {
  const stops: (() => Promise<unknown>)[] = [];
  let work: string;
  const databases: TestDatabase[] = [];
  const freshDatabase = async () => {
    const db = await createTestDatabase('restore');
    databases.push(db);
    return db;
  };

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'blog-backup-'));
    stops.push(() => rm(work, { recursive: true, force: true }));
  });
  afterAll(async () => {
    for (const stop of stops.reverse())
      await stop().catch((error) => console.error('[backup test] stop:', error));
    for (const db of databases) await db.drop().catch(() => {});
  });

  it('brings back every row, object and answer; refuses what it cannot restore whole', async () => {
    // --- The blog, written through the gateway ---
    const before = await freshDatabase();
    const s3 = await startS3();
    stops.push(() => s3.stop());
    let blog = await startBlog(before.url, s3, join(work, 'data-before'));
    stops.push(() => blog.stop());
    let token = await login(blog);
    await writeBlog(blog, token);
    const apiBefore = await apiSnapshot(blog, token);

    // --- A backup of the running blog, encrypted, into a folder target ---
    const target = await openBackupStore(join(work, 'target'));
    const first = await takeBackup(
      { databaseUrl: before.url, media: mediaStore(s3), site: 'https://blog.example', secrets: {} },
      target,
      { passphrase: PASSPHRASE },
    );
    expect(first).toMatchObject({ encrypted: true });
    expect(first.tables).toBeGreaterThan(20);
    expect(first.media).toBeGreaterThanOrEqual(4); // two originals and their processed files
    expect(first.mediaCopied).toBe(first.media);
    // The one restored below, taken once the blog has stopped: while it runs, its background
    // jobs (marking posts sent to followers, say) move the database on from any snapshot, and
    // the comparison needs the state the backup holds. The same media again: nothing copied.
    await blog.stop();
    const second = await takeBackup(
      { databaseUrl: before.url, media: mediaStore(s3), site: 'https://blog.example' },
      target,
      {
        passphrase: PASSPHRASE,
      },
    );
    expect(second.mediaCopied).toBe(0);
    expect(second.media).toBe(first.media);
    // Nothing in the target is readable without the passphrase.
    const file = await readFile(join(work, 'target', second.file));
    expect(file.subarray(0, 21).toString()).toBe('age-encryption.org/v1');
    expect(file.includes(Buffer.from('Setting up the reef'))).toBe(false);

    const dbBefore = await databaseSnapshot(before.url);
    const bucketBefore = await bucketContents(s3.client);

    // --- Refusals, each leaving the empty database and bucket as they were ---
    const empty = await freshDatabase();
    const emptyS3 = await startS3();
    stops.push(() => emptyS3.stop());
    const location = await locateBackup(join(work, 'target', second.file));
    const restoreInto = (
      db: TestDatabase,
      store: S3Server,
      overrides: Partial<Parameters<typeof restoreBackup>[0]> = {},
    ) =>
      restoreBackup({
        source: location,
        databaseUrl: db.url,
        media: mediaStore(store),
        passphrase: PASSPHRASE,
        migrations: MIGRATIONS,
        ...overrides,
      });
    const leftNothing = async () => {
      expect(
        await sql(
          empty.url,
          `SELECT nspname FROM pg_namespace WHERE nspname IN ('auth','posts','media','mail','social')`,
        ),
      ).toEqual([]);
      expect(await mediaStore(emptyS3).list()).toEqual([]);
    };
    await mediaStore(emptyS3).ensureReady();

    await expect(restoreInto(empty, emptyS3, { passphrase: 'not the passphrase' })).rejects.toThrow(
      BackupPassphraseError,
    );
    await expect(restoreInto(empty, emptyS3, { passphrase: undefined })).rejects.toThrow(/BACKUP_PASSPHRASE/);
    await leftNothing();

    // Truncated: the file cut anywhere is refused, however far the restore got.
    const cut = join(work, 'cut', 'backups', second.file.slice('backups/'.length));
    await mkdir(join(work, 'cut', 'backups'), { recursive: true });
    await writeFile(cut, file.subarray(0, Math.floor(file.length * 0.9)));
    await expect(restoreInto(empty, emptyS3, { source: await locateBackup(cut) })).rejects.toThrow(
      /damaged|incomplete/,
    );
    await leftNothing();

    // A backup file copied away from its media (another blog's folder): refused, nothing left.
    const elsewhere = join(work, 'elsewhere', 'backups', second.file.slice('backups/'.length));
    await mkdir(join(work, 'elsewhere', 'backups'), { recursive: true });
    await copyFile(join(work, 'target', second.file), elsewhere);
    await expect(restoreInto(empty, emptyS3, { source: await locateBackup(elsewhere) })).rejects.toThrow(
      /missing from/,
    );
    await leftNothing();

    // A backup made by a newer version: a migration this one does not know.
    expect(() =>
      migrationsToRun(
        { migrations: { posts: ['CreatePosts1763810000000', 'FromTheFuture1999999999999'] } },
        MIGRATIONS,
      ),
    ).toThrow(/newer version/);

    // Into a database that is not empty: refused before anything is touched.
    await expect(restoreInto(before, emptyS3)).rejects.toThrow(RestoreRefusedError);
    expect(await databaseSnapshot(before.url)).toEqual(dbBefore);

    // --- The restore ---
    const restored = await restoreInto(empty, emptyS3);
    expect(restored.media).toBe(first.media);
    expect(restored.header.site).toBe('https://blog.example');
    expect(await databaseSnapshot(empty.url)).toEqual(dbBefore);
    expect(await bucketContents(emptyS3.client)).toEqual(bucketBefore);

    blog = await startBlog(empty.url, emptyS3, join(work, 'data-after'));
    token = await login(blog);
    expect(await apiSnapshot(blog, token)).toEqual(apiBefore);
    await expectFreshPost(blog, token, apiBefore);
    await blog.stop();

    // --- Retention: one kept, the rest and their blobs go; what is kept still restores ---
    const pruned = await pruneBackups(target, { daily: 1, weekly: 0 });
    expect(pruned.deleted).toEqual([first.file]);
    expect(pruned.blobsDeleted).toBe(0); // the kept backup needs every blob
  }, 240_000);

  it('refuses a file that is not a backup, and a damaged one, with a clear error', async () => {
    const db = await freshDatabase();
    const s3 = await startS3();
    stops.push(() => s3.stop());
    await mediaStore(s3).ensureReady();
    const folder = join(work, 'junk', 'backups');
    await mkdir(folder, { recursive: true });
    const cases: [string, Buffer][] = [
      ['empty.blogbak', Buffer.alloc(0)],
      ['text.blogbak', Buffer.from('hello, this is not a backup\n')],
      ['random.blogbak', Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256))],
    ];
    for (const [name, bytes] of cases) {
      await writeFile(join(folder, name), bytes);
      const started = process.cpuUsage();
      await expect(
        restoreBackup({
          source: await locateBackup(join(folder, name)),
          databaseUrl: db.url,
          media: mediaStore(s3),
          migrations: MIGRATIONS,
        }),
      ).rejects.toThrow(/not a backup of this blog|damaged|incomplete/);
      const cpu = process.cpuUsage(started);
      expect((cpu.user + cpu.system) / 1000).toBeLessThan(5000);
    }
    expect(await sql(db.url, `SELECT nspname FROM pg_namespace WHERE nspname = 'posts'`)).toEqual([]);
  });
});
