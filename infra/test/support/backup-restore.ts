/**
 * The harness of backup-restore.spec.ts: a PostgreSQL 15 cluster, an S3 server, the blog's
 * gateway and services on them, the blog's content, and snapshots of the database, the bucket
 * and the API to compare before and after the restore. Why PostgreSQL 15: see the spec's header.
 */
import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { GetObjectCommand, ListObjectsV2Command, S3Client, type _Object } from '@aws-sdk/client-s3';
import pg from 'pg';
import { freePort, startTestS3 } from '@blog/server-kit/testing';
import { startTestStack } from '../../../gateway/test/support/test-stack.js';
import { makePhoto, makeTransparentPng } from '../../../services/media/test/fixtures.js';

export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export const PG15 = '/usr/lib/postgresql/15/bin';
export const PG15_TOOLS = ['initdb', 'pg_ctl', 'postgres', 'pg_dump', 'pg_restore'];
export const hasPg15 = PG15_TOOLS.every((tool) => existsSync(join(PG15, tool)));
export const BUCKET = 'blog-media';
export const ADMIN = { username: 'owner', password: 'owner-password-123' };

export const run = promisify(execFile);

/** Runs a command; a failure names the command and carries its stderr. */
export async function sh(command: string, args: string[]): Promise<string> {
  try {
    return (await run(command, args, { maxBuffer: 16 * 1024 * 1024 })).stdout;
  } catch (error) {
    const e = error as { stderr?: string; message: string };
    throw new Error(`${command} ${args.join(' ')} failed: ${e.stderr || e.message}`, { cause: error });
  }
}

export interface Cluster {
  /** Superuser URL of the `postgres` database. */
  adminUrl: string;
  stop(): Promise<void>;
}

/**
 * A PostgreSQL 15 cluster in a temp folder. PostgreSQL refuses to run as root, so as root
 * initdb and pg_ctl run as the `postgres` user (which the postgresql-15 package creates) on a
 * folder it owns. Trust authentication on 127.0.0.1 only.
 */
export async function startPg15(): Promise<Cluster> {
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

export async function sql<T = Json>(url: string, text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as T[];
  } finally {
    await client.end();
  }
}

export interface S3Server {
  endpoint: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  client: S3Client;
  stop(): Promise<void>;
}

export async function startS3(): Promise<S3Server> {
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

export async function listObjects(client: S3Client): Promise<_Object[]> {
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
export async function bucketContents(
  client: S3Client,
): Promise<Record<string, { sha256: string; type: string }>> {
  const result: Record<string, { sha256: string; type: string }> = {};
  for (const { Key } of await listObjects(client)) {
    const out = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key }));
    const bytes = Buffer.from(await out.Body!.transformToByteArray());
    result[Key!] = { sha256: createHash('sha256').update(bytes).digest('hex'), type: out.ContentType ?? '' };
  }
  return result;
}

export interface Blog {
  baseUrl: string;
  stop(): Promise<void>;
}

/** The gateway and the four services in this process (the gateway tests' stack), on the given database and bucket. */
export async function startBlog(databaseUrl: string, s3: S3Server, dataDir: string): Promise<Blog> {
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

export async function api(
  blog: Blog,
  path: string,
  init: { method?: string; body?: unknown; token?: string } = {},
) {
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

export async function login(blog: Blog): Promise<string> {
  return (await api(blog, '/api/auth/login', { body: ADMIN })).json.token as string;
}

export const POSTS: Record<string, string>[] = [
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
export const SEARCHES = [
  'search=fish',
  'search=aqua',
  'search=creme%20brulee',
  'search=aquarim',
  'search=corral',
  'tag=reef',
];

/**
 * The drills' blog, written through the API: POSTS, a post with a photo and a transparent PNG
 * (waited for until the media service has processed both), a subscriber. Returns that post.
 */
export async function writeBlog(blog: Blog, token: string): Promise<Json> {
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
  for (const until = Date.now() + 60_000; ;) {
    const post = (await api(blog, `/api/posts/${created.id}`, { token })).json;
    if (post.media.every((m: Json) => m.status === 'ready')) break;
    if (post.media.some((m: Json) => m.status === 'failed') || Date.now() > until)
      throw new Error(`media not processed: ${JSON.stringify(post.media)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return created;
}

/**
 * After a restore the sequences must have come back: a new post gets an id past every restored
 * one, and search finds it. Returns the new post.
 */
export async function expectFreshPost(blog: Blog, token: string, before: Json): Promise<Json> {
  const form = new FormData();
  form.append('title', 'Sourdough starter');
  form.append('content', 'Flour and water.');
  form.append('category', 'Food & Bev');
  const added = (await api(blog, '/api/posts', { body: form, token })).json;
  expect(added.id).toBeGreaterThan(Math.max(...(before.list as unknown as Json[]).map((p) => p.id)));
  expect((await api(blog, '/api/posts?search=sourdouhg')).json.map((p: Json) => p.title)).toEqual([
    'Sourdough starter',
  ]);
  return added;
}

/** What a reader and the owner see: lists, searches, every post page, every media file's bytes. */
export async function apiSnapshot(blog: Blog, token: string): Promise<Json> {
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
export async function databaseSnapshot(url: string): Promise<Json> {
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

export async function readdirRecursive(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}
