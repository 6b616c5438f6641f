/**
 * Backups and restores when the place they write to gives out: a target folder on a full disk
 * (a 2 MB tmpfs), an S3 target that starts refusing writes halfway (a proxy before the S3
 * server answering 507 once a few objects went through), a restore onto a full disk. Each ends
 * with a clear error, no backup file that looks whole, and nothing half-restored left.
 * Mounting a tmpfs needs root; without it those cases are skipped and say so in their name.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { dataSourceOptions, LocalFolderStorage, openMigrated } from '@blog/server-kit';
import { openBackupStore, restoreBackup, SERVICE_SCHEMAS, takeBackup } from '@blog/server-kit/backup';
import { createTestDatabase, startTestS3, type TestDatabase, type TestS3 } from '@blog/server-kit/testing';
import { SERVICE_MIGRATIONS as MIGRATIONS } from './support/service-migrations.js';

function canMount(): boolean {
  if (process.getuid?.() !== 0) return false;
  const probe = join(tmpdir(), `blog-tmpfs-probe-${process.pid}`);
  try {
    execFileSync('mkdir', ['-p', probe]);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe], { stdio: 'ignore' });
    execFileSync('umount', [probe]);
    return true;
  } catch {
    return false;
  } finally {
    execFileSync('rm', ['-rf', probe]);
  }
}
const tmpfs = canMount();
const onFullDisk = tmpfs ? it : it.skip;
const fullDisk = (what: string) => (tmpfs ? what : `${what} (skipped: mounting a tmpfs needs root)`);

describe('backups when storage gives out', () => {
  const stops: (() => Promise<unknown>)[] = [];
  let db: TestDatabase;
  let media: LocalFolderStorage;
  let work: string;

  /** A small tmpfs of `megabytes`, unmounted after the tests. */
  async function smallDisk(megabytes: number): Promise<string> {
    const dir = await mkdtemp(join(work, 'disk-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${megabytes}m`, 'tmpfs', dir]);
    stops.push(async () => execFileSync('umount', ['-l', dir]));
    return dir;
  }

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'blog-backup-faults-'));
    stops.push(() => rm(work, { recursive: true, force: true }));
    // A blog's schemas as its services make them, a few rows, and 3 MB of media that do not compress.
    db = await createTestDatabase('backup_faults');
    stops.push(() => db.drop());
    for (const schema of SERVICE_SCHEMAS) {
      const source = await openMigrated(
        dataSourceOptions({
          url: db.url,
          schema,
          entities: [],
          migrations: MIGRATIONS[schema]!,
          poolSize: 1,
        }),
        schema,
      );
      await source.destroy();
    }
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    await client.query(
      `INSERT INTO posts.posts (title, slug, category, submenu1, created_at, updated_at)
       VALUES ('Kept', 'kept', 'Projects', '', now(), now())`,
    );
    await client.end();
    media = new LocalFolderStorage(join(work, 'media'));
    await media.ensureReady();
    for (let i = 0; i < 3; i++)
      await media.put(`private/originals/2026/11/${i}.jpg`, randomBytes(1024 * 1024), {
        contentType: 'image/jpeg',
      });
  });
  afterAll(async () => {
    for (const stop of stops.reverse()) await stop().catch(() => {});
  });

  onFullDisk(
    fullDisk('a target folder on a full disk: the backup fails and leaves no backup file'),
    async () => {
      const disk = await smallDisk(2);
      const target = await openBackupStore(disk);
      await expect(takeBackup({ databaseUrl: db.url, media }, target)).rejects.toThrow(/ENOSPC|no space/i);
      expect(await target.list('backups/')).toEqual([]);
      // A second try with room afterwards works: nothing the failed one left is in the way.
      const roomy = await openBackupStore(join(work, 'roomy'));
      expect((await takeBackup({ databaseUrl: db.url, media }, roomy)).media).toBe(3);
    },
  );

  it('an S3 target that refuses writes halfway: the backup fails and no backup is listed', async () => {
    const s3: TestS3 = await startTestS3();
    stops.push(() => s3.close());
    // Two objects go through, then every write is refused as a full store would.
    let writes = 0;
    const upstream = new URL(s3.endpoint);
    const proxy: Server = createServer((incoming, answer) => {
      if ((incoming.method === 'PUT' || incoming.method === 'POST') && ++writes > 3) {
        incoming.resume();
        answer.writeHead(507, { 'content-type': 'application/xml' });
        answer.end('<Error><Code>InsufficientStorage</Code><Message>full</Message></Error>');
        return;
      }
      const forward = request(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: incoming.method,
          path: incoming.url,
          headers: incoming.headers,
        },
        (reply) => {
          answer.writeHead(reply.statusCode!, reply.headers);
          reply.pipe(answer);
        },
      );
      incoming.pipe(forward);
    });
    proxy.listen(0, '127.0.0.1');
    await once(proxy, 'listening');
    stops.push(() => new Promise((done) => proxy.close(done)));
    const settings = {
      endpoint: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
      accessKeyId: s3.accessKeyId,
      secretAccessKey: s3.secretAccessKey,
    };
    const target = await openBackupStore('s3://blog-backups/site', settings);
    await expect(takeBackup({ databaseUrl: db.url, media }, target)).rejects.toThrow();
    expect(writes).toBeGreaterThan(3);
    expect(await target.list('backups/')).toEqual([]);
  });

  onFullDisk(
    fullDisk('a restore onto a full disk: fails, and leaves the database and the folder empty'),
    async () => {
      const target = await openBackupStore(join(work, 'for-restore'));
      const backup = await takeBackup({ databaseUrl: db.url, media }, target);
      const fresh = await createTestDatabase('backup_faults_restore');
      stops.push(() => fresh.drop());
      const disk = await smallDisk(2);
      const full = new LocalFolderStorage(join(disk, 'uploads'));
      await full.ensureReady();
      await expect(
        restoreBackup({
          source: { store: target, key: backup.file },
          databaseUrl: fresh.url,
          media: full,
          migrations: MIGRATIONS,
        }),
      ).rejects.toThrow(/ENOSPC|no space/i);
      expect(await full.list()).toEqual([]);
      const client = new pg.Client({ connectionString: fresh.url });
      await client.connect();
      const { rows } = await client.query(`SELECT nspname FROM pg_namespace WHERE nspname = ANY($1)`, [
        [...SERVICE_SCHEMAS],
      ]);
      await client.end();
      expect(rows).toEqual([]);
    },
  );
});
