/**
 * The backup and restore of docs/operations.md#backups-and-restore, run for real:
 *
 * 1. A throwaway PostgreSQL 15 cluster (Debian's server binaries in /usr/lib/postgresql/15/bin,
 *    started by this file on a free port in a temp folder, as the `postgres` user when the test
 *    runs as root) and an S3 server (s3rver, or the MinIO image in a container when the run has an engine) hold a blog written through the real gateway and
 *    services: posts with accents and tags, posts with images the media service processed, a
 *    subscriber. The services run their committed migrations on it at start.
 * 2. Backup: `pg_dump -Fc` of the database, then a copy of every object of the bucket into a
 *    folder with an S3 client (the AWS SDK: ListObjectsV2 + GetObject, like `aws s3 sync`).
 * 3. Disaster: the database is dropped and the bucket's server deleted.
 * 4. Restore as the guide says, into an empty stack: a fresh database and bucket on which the
 *    services started once (so their migrations made empty schemas), the Node processes
 *    stopped, `pg_restore --clean --if-exists`, the folder uploaded back (Content-Type guessed
 *    from the key, as `aws s3 sync` does from the file name), the services started.
 * 5. Checks: every row of every table, the sequences, indexes and extensions equal those
 *    before the dump; every object equal byte for byte with the same Content-Type; the API
 *    (lists, full-text, accent and typo search, post pages, media files) answers as before;
 *    a new post after the restore gets a fresh id and is found by search.
 *
 * Why PostgreSQL 15 and not the embedded PostgreSQL 18 of the other tests: pg_dump refuses a
 * server newer than itself, and the client this machine (and CI, Debian 12) has is 15. The
 * migrations use nothing newer than PostgreSQL 15 (uuid-ossp, unaccent and pg_trgm, identity
 * and stored generated columns, tsvector, GIN indexes), so the restore is tested with a
 * matched pair, like the guide's container whose pg_dump is the server's. .ci/run installs
 * postgresql-15 so CI never skips this file.
 *
 * Everything started here is stopped in afterAll, also when a step failed; the postmaster's
 * pid is also registered with the Jest global teardown (BLOG_TEST_PIDS_DIR) in case this
 * worker dies before its afterAll.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { contentTypeForKey } from '@blog/server-kit';
import {
  api,
  apiSnapshot,
  bucketContents,
  BUCKET,
  databaseSnapshot,
  expectFreshPost,
  hasPg15,
  listObjects,
  login,
  PG15,
  writeBlog,
  readdirRecursive,
  sh,
  sql,
  startBlog,
  startPg15,
  startS3,
  type Json,
} from './support/backup-restore.js';

const name = hasPg15
  ? 'backup and restore as docs/operations.md says (pg_dump -Fc, bucket copy, pg_restore --clean --if-exists)'
  : 'backup and restore (skipped: PostgreSQL 15 server binaries not installed)';

(hasPg15 ? describe : describe.skip)(name, () => {
  const stops: (() => Promise<unknown>)[] = [];
  let work: string;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'blog-restore-'));
    stops.push(() => rm(work, { recursive: true, force: true }));
  });
  afterAll(async () => {
    for (const stop of stops.reverse())
      await stop().catch((error) => console.error('[restore test] stop:', error));
  });

  it('restores every row, every object and a working search from the backup', async () => {
    const cluster = await startPg15();
    stops.push(() => cluster.stop());
    const dbUrl = (() => {
      const url = new URL(cluster.adminUrl);
      url.pathname = '/blog';
      return url.toString();
    })();
    await sql(cluster.adminUrl, 'CREATE DATABASE blog');

    // --- The blog, written through the gateway ---
    let s3 = await startS3();
    stops.push(() => s3.stop());
    let blog = await startBlog(dbUrl, s3, join(work, 'data-before'));
    stops.push(() => blog.stop());
    let token = await login(blog);
    const created = await writeBlog(blog, token);

    const apiBefore = await apiSnapshot(blog, token);
    expect(apiBefore.total).toBe('4');
    expect(apiBefore.searches['search=aquarim'].map((p: Json) => p.title)).toContain(
      'Setting up the reef aquarium',
    );
    expect(Object.keys(apiBefore.posts[created.id].files).length).toBeGreaterThanOrEqual(2);

    // --- Backup of the running blog, as the daily job does: the dump first, then the bucket copy ---
    const dump = join(work, 'blog.dump');
    await sh(join(PG15, 'pg_dump'), ['-d', dbUrl, '-Fc', '-f', dump]);
    const copy = join(work, 'blog-media');
    const objects = await listObjects(s3.client);
    expect(objects.some((o) => o.Key!.startsWith('private/originals/'))).toBe(true);
    expect(objects.some((o) => o.Key!.startsWith('media/'))).toBe(true);
    for (const { Key } of objects) {
      const out = await s3.client.send(new GetObjectCommand({ Bucket: BUCKET, Key }));
      await mkdir(dirname(join(copy, Key!)), { recursive: true });
      await writeFile(join(copy, Key!), await out.Body!.transformToByteArray());
    }
    // What the restore must give back, read once the blog is stopped (an idle blog writes nothing).
    await blog.stop();
    const dbBefore = await databaseSnapshot(dbUrl);
    const bucketBefore = await bucketContents(s3.client);
    expect(dbBefore.rows['posts.posts']).toHaveLength(4);
    expect(dbBefore.rows['posts.media_items'].length).toBeGreaterThanOrEqual(2);

    // --- Disaster: the database and the bucket are gone ---
    await sql(cluster.adminUrl, 'DROP DATABASE blog WITH (FORCE)');
    await s3.stop();

    // --- Restore into an empty stack: migrated once, Node processes stopped ---
    await sql(cluster.adminUrl, 'CREATE DATABASE blog');
    s3 = await startS3();
    blog = await startBlog(dbUrl, s3, join(work, 'data-after'));
    await blog.stop();
    expect(await sql(dbUrl, 'SELECT count(*)::int AS n FROM posts.posts')).toEqual([{ n: 0 }]);
    await sh(join(PG15, 'pg_restore'), ['-d', dbUrl, '--clean', '--if-exists', dump]);
    const files = (await readdirRecursive(copy)).map((file) => relative(copy, file).split('\\').join('/'));
    for (const key of files) {
      await s3.client.send(
        new PutObjectCommand({
          Bucket: BUCKET,
          Key: key,
          Body: await readFile(join(copy, key)),
          ContentType: contentTypeForKey(key),
        }),
      );
    }

    expect(await databaseSnapshot(dbUrl)).toEqual(dbBefore);
    expect(await bucketContents(s3.client)).toEqual(bucketBefore);

    blog = await startBlog(dbUrl, s3, join(work, 'data-after'));
    token = await login(blog);
    expect((await api(blog, '/api/health')).json).toBeDefined();
    expect(await apiSnapshot(blog, token)).toEqual(apiBefore);

    // The sequences came back too: a new post gets a new id and search finds it.
    await expectFreshPost(blog, token, apiBefore);
  }, 90_000);
});
