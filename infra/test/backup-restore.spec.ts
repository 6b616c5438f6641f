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
import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { promisify } from 'node:util';
import {
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type _Object,
} from '@aws-sdk/client-s3';
import pg from 'pg';
import { contentTypeForKey } from '@blog/server-kit';
import { freePort, startTestS3 } from '@blog/server-kit/testing';
import { startTestStack } from '../../gateway/test/support/test-stack.js';
import { makePhoto, makeTransparentPng } from '../../services/media/test/fixtures.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const PG15 = '/usr/lib/postgresql/15/bin';
const PG15_TOOLS = ['initdb', 'pg_ctl', 'postgres', 'pg_dump', 'pg_restore'];
const hasPg15 = PG15_TOOLS.every((tool) => existsSync(join(PG15, tool)));
const BUCKET = 'blog-media';
const ADMIN = { username: 'owner', password: 'owner-password-123' };

const run = promisify(execFile);

/** Runs a command; a failure names the command and carries its stderr. */
async function sh(command: string, args: string[]): Promise<string> {
  try {
    return (await run(command, args, { maxBuffer: 16 * 1024 * 1024 })).stdout;
  } catch (error) {
    const e = error as { stderr?: string; message: string };
    throw new Error(`${command} ${args.join(' ')} failed: ${e.stderr || e.message}`, { cause: error });
  }
}

interface Cluster {
  /** Superuser URL of the `postgres` database. */
  adminUrl: string;
  stop(): Promise<void>;
}

/**
 * A PostgreSQL 15 cluster in a temp folder. PostgreSQL refuses to run as root, so as root
 * initdb and pg_ctl run as the `postgres` user (which the postgresql-15 package creates) on a
 * folder it owns. Trust authentication on 127.0.0.1 only.
 */
async function startPg15(): Promise<Cluster> {
  const dir = await mkdtemp(join(tmpdir(), 'blog-restore-pg15-'));
  const data = join(dir, 'postgres'); // the layout the global teardown knows: <dir>/postgres/postmaster.pid
  const asRoot = process.getuid?.() === 0;
  const pgTool = (tool: string, args: string[]) =>
    asRoot ? sh('runuser', ['-u', 'postgres', '--', join(PG15, tool), ...args]) : sh(join(PG15, tool), args);
  let started = false;
  let pidNote: string | undefined;
  const stop = async () => {
    if (started) await pgTool('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']).catch(() => undefined);
    if (pidNote) await rm(pidNote, { force: true }); // a reused pid must not be signalled later
    await rm(dir, { recursive: true, force: true });
  };
  try {
    if (asRoot) {
      const uid = Number(await sh('id', ['-u', 'postgres']));
      const gid = Number(await sh('id', ['-g', 'postgres']));
      await chown(dir, uid, gid);
    }
    await chmod(dir, 0o755);
    const port = await freePort();
    await pgTool('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8']);
    started = true;
    await pgTool('pg_ctl', [
      '-D',
      data,
      '-l',
      join(dir, 'server.log'),
      '-w',
      '-t',
      '30',
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`,
      'start',
    ]);
    const pid = Number((await readFile(join(data, 'postmaster.pid'), 'utf8')).split('\n')[0]);
    if (process.env.BLOG_TEST_PIDS_DIR) {
      pidNote = join(process.env.BLOG_TEST_PIDS_DIR, String(pid));
      await writeFile(pidNote, dir);
    }
    return { adminUrl: `postgres://postgres@127.0.0.1:${port}/postgres`, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function sql<T = Json>(url: string, text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as T[];
  } finally {
    await client.end();
  }
}

interface S3Server {
  endpoint: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  client: S3Client;
  stop(): Promise<void>;
}

async function startS3(): Promise<S3Server> {
  const s3 = await startTestS3();
  const client = new S3Client({
    endpoint: s3.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
  });
  return {
    endpoint: s3.endpoint,
    credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    client,
    async stop() {
      client.destroy();
      await s3.close();
    },
  };
}

async function listObjects(client: S3Client): Promise<_Object[]> {
  const objects: _Object[] = [];
  let token: string | undefined;
  do {
    const page = await client.send(new ListObjectsV2Command({ Bucket: BUCKET, ContinuationToken: token }));
    objects.push(...(page.Contents ?? []));
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return objects;
}

/** Key → sha256 and Content-Type of every object in the bucket. */
async function bucketContents(client: S3Client): Promise<Record<string, { sha256: string; type: string }>> {
  const result: Record<string, { sha256: string; type: string }> = {};
  for (const { Key } of await listObjects(client)) {
    const out = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key }));
    const bytes = Buffer.from(await out.Body!.transformToByteArray());
    result[Key!] = { sha256: createHash('sha256').update(bytes).digest('hex'), type: out.ContentType ?? '' };
  }
  return result;
}

interface Blog {
  baseUrl: string;
  stop(): Promise<void>;
}

/** The gateway and the four services in this process (the gateway tests' stack), on the given database and bucket. */
async function startBlog(databaseUrl: string, s3: S3Server, dataDir: string): Promise<Blog> {
  const stack = await startTestStack({
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    ADMIN_USERNAME: ADMIN.username,
    ADMIN_PASSWORD: ADMIN.password,
    S3_ENDPOINT: s3.endpoint,
    S3_BUCKET: BUCKET,
    S3_ACCESS_KEY_ID: s3.credentials.accessKeyId,
    S3_SECRET_ACCESS_KEY: s3.credentials.secretAccessKey,
    PUBLIC_CACHE_TTL_MS: '0',
    MEDIA_SWEEP_SECONDS: '1',
    MEDIA_PENDING_AFTER_SECONDS: '2',
    MEDIA_LOCK_SECONDS: '2',
  });
  return { baseUrl: stack.baseUrl, stop: () => stack.stop() };
}

async function api(blog: Blog, path: string, init: { method?: string; body?: unknown; token?: string } = {}) {
  const headers: Record<string, string> = {};
  if (init.body !== undefined && !(init.body instanceof FormData))
    headers['content-type'] = 'application/json';
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  const response = await fetch(`${blog.baseUrl}${path}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers,
    body:
      init.body instanceof FormData
        ? init.body
        : init.body === undefined
          ? undefined
          : JSON.stringify(init.body),
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${init.method ?? 'GET'} ${path}: ${response.status} ${text}`);
  return { headers: response.headers, json: (text ? JSON.parse(text) : undefined) as Json };
}

async function login(blog: Blog): Promise<string> {
  return (await api(blog, '/api/auth/login', { body: ADMIN })).json.token as string;
}

const POSTS: Record<string, string>[] = [
  {
    title: 'Setting up the reef aquarium',
    content: 'Live rock and water tests.',
    tags: 'reef',
    category: 'Aquariums',
    date: '2025-01-10T10:00:00Z',
  },
  {
    title: 'Fishing at dawn',
    content: 'The fish were biting early.',
    tags: 'lake',
    category: 'Activities',
    submenu1: 'Fishing',
    date: '2025-02-01T06:00:00Z',
  },
  {
    title: 'Crème brûlée at home',
    content: 'Caramelised sugar, 🍮 and a blow torch.',
    tags: 'dessert, française',
    category: 'Food & Bev',
    submenu1: 'Cooking',
    date: '2025-02-05T18:00:00Z',
  },
];
const SEARCHES = [
  'search=fish',
  'search=aqua',
  'search=creme%20brulee',
  'search=aquarim',
  'search=corral',
  'tag=reef',
];

/** What a reader and the owner see: lists, searches, every post page, every media file's bytes. */
async function apiSnapshot(blog: Blog, token: string): Promise<Json> {
  const list = await api(blog, '/api/posts?limit=100');
  const snapshot: Json = {
    total: list.headers.get('x-total-count'),
    list: list.json,
    searches: {},
    posts: {},
  };
  for (const query of SEARCHES) snapshot.searches[query] = (await api(blog, `/api/posts?${query}`)).json;
  for (const post of list.json as unknown as Json[]) {
    const page = (await api(blog, `/api/posts/${post.id}`, { token })).json;
    const files: Json = {};
    for (const path of new Set(JSON.stringify(page).match(/\/uploads\/media\/[^"]+/g) ?? [])) {
      const response = await fetch(`${blog.baseUrl}${path}`);
      expect(response.status).toBe(200);
      const bytes = Buffer.from(await response.arrayBuffer());
      files[path] = {
        type: response.headers.get('content-type'),
        sha256: createHash('sha256').update(bytes).digest('hex'),
      };
    }
    snapshot.posts[post.id] = { page, files };
  }
  return snapshot;
}

/** Every row of every table (the services' schemas), sequences, indexes and extensions. */
async function databaseSnapshot(url: string): Promise<Json> {
  const tables = await sql<{ s: string; t: string }>(
    url,
    `SELECT table_schema AS s, table_name AS t FROM information_schema.tables
     WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')
     ORDER BY 1, 2`,
  );
  const rows: Json = {};
  for (const { s, t } of tables) {
    const [{ rows: all }] = await sql(
      url,
      `SELECT coalesce(json_agg(r ORDER BY r::text), '[]'::json) AS rows FROM "${s}"."${t}" r`,
    );
    rows[`${s}.${t}`] = all;
  }
  return {
    rows,
    sequences: await sql(url, `SELECT schemaname, sequencename, last_value FROM pg_sequences ORDER BY 1, 2`),
    indexes: await sql(
      url,
      `SELECT schemaname, tablename, indexname, indexdef FROM pg_indexes
       WHERE schemaname NOT IN ('pg_catalog', 'information_schema') ORDER BY 1, 2, 3`,
    ),
    extensions: await sql(
      url,
      `SELECT e.extname, n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace ORDER BY 1`,
    ),
  };
}

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
    for (const post of POSTS) {
      const form = new FormData();
      for (const [key, value] of Object.entries(post)) form.append(key, value);
      await api(blog, '/api/posts', { body: form, token });
    }
    const withMedia = new FormData();
    withMedia.append('title', 'Coral fragging');
    withMedia.append('content', 'Cutting corals in the reef tank.');
    withMedia.append('tags', 'reef, coral');
    withMedia.append('category', 'Aquariums');
    withMedia.append('date', '2025-03-20T09:00:00Z');
    withMedia.append('files', new Blob([await makePhoto(160, 120)], { type: 'image/jpeg' }), 'frag.jpg');
    withMedia.append('files', new Blob([await makeTransparentPng()], { type: 'image/png' }), 'tank.png');
    const created = (await api(blog, '/api/posts', { body: withMedia, token })).json;
    await api(blog, '/api/subscribe', { body: { email: 'sam@reader.example' } });
    for (const until = Date.now() + 30_000; ;) {
      const post = (await api(blog, `/api/posts/${created.id}`, { token })).json;
      if (post.media.every((m: Json) => m.status === 'ready')) break;
      if (post.media.some((m: Json) => m.status === 'failed') || Date.now() > until)
        throw new Error(`media not processed: ${JSON.stringify(post.media)}`);
      await new Promise((r) => setTimeout(r, 200));
    }

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
    const form = new FormData();
    form.append('title', 'Sourdough starter');
    form.append('content', 'Flour and water.');
    form.append('category', 'Food & Bev');
    const added = (await api(blog, '/api/posts', { body: form, token })).json;
    expect(added.id).toBeGreaterThan(Math.max(...(apiBefore.list as unknown as Json[]).map((p) => p.id)));
    expect((await api(blog, '/api/posts?search=sourdouhg')).json.map((p: Json) => p.title)).toEqual([
      'Sourdough starter',
    ]);
  }, 90_000);
});

async function readdirRecursive(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}
