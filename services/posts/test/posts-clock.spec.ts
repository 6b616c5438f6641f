/**
 * Which posts a guest sees is decided by one clock, the database's `now()`: a single post's
 * read (by id, by slug) agrees with the lists even when the Node process's clock differs
 * (docs/product.md#which-posts-a-guest-sees). The posts service runs in this process against
 * a real PostgreSQL; the posts are dated a few seconds from the database's `now()`, and Node's
 * clock is set an hour off with Jest's fake Date (timers stay real), so a read that asked
 * Node's clock would answer the other way.
 */
import { jest } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestMicroservice } from '@nestjs/common';
import pg from 'pg';
import { Patterns, PostErrors, readOptionsFor, type PostListResult, type PostView } from '@blog/contracts';
import {
  createTestDatabase,
  freePort,
  rpcTestClient,
  type RpcTestClient,
  type TestDatabase,
} from '@blog/server-kit/testing';
import { loadPostsConfig, startPostsService } from '../src/index.js';

const HOUR = 3_600_000;
const ADMIN = readOptionsFor(true);

/** Node's clock moved by `offsetMs`; every timer stays real (the service and pg run on them). */
function skewNodeClock(offsetMs: number): void {
  jest.useFakeTimers({
    now: Date.now() + offsetMs,
    advanceTimers: true,
    doNotFake: [
      'hrtime',
      'nextTick',
      'performance',
      'queueMicrotask',
      'requestAnimationFrame',
      'cancelAnimationFrame',
      'requestIdleCallback',
      'cancelIdleCallback',
      'setImmediate',
      'clearImmediate',
      'setInterval',
      'clearInterval',
      'setTimeout',
      'clearTimeout',
    ],
  });
}

describe("a single post and the lists read one clock, the database's", () => {
  let db: TestDatabase;
  let sql: pg.Client;
  let dataDir: string;
  let posts: INestMicroservice;
  let rpc: RpcTestClient;

  beforeAll(async () => {
    db = await createTestDatabase('posts_clock');
    dataDir = await mkdtemp(join(tmpdir(), 'posts-clock-'));
    const port = await freePort();
    const env = { DATABASE_URL: db.url, DATA_DIR: dataDir, POSTS_PORT: String(port), LOG_LEVEL: 'error' };
    posts = await startPostsService(loadPostsConfig(env), env);
    rpc = rpcTestClient(port);
    sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
  }, 60_000);
  afterEach(() => {
    jest.useRealTimers();
  });
  afterAll(async () => {
    rpc?.close();
    await sql?.end();
    await posts?.close();
    await db?.drop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  /** A published post dated `seconds` from the database's now() (ahead when positive). */
  async function postDated(slug: string, seconds: number): Promise<number> {
    const { rows } = await sql.query<{ id: number }>(
      `INSERT INTO posts.posts (title, content, slug, category, submenu1, status, created_at, updated_at)
       VALUES ($1, 'Text.', $1, 'More', 'General', 'published', now() + make_interval(secs => $2), now())
       RETURNING id`,
      [slug, seconds],
    );
    return rows[0]!.id;
  }

  /** What a guest is shown of post `id`: by id, by slug, in the list. */
  async function asGuest(id: number, slug: string) {
    const read = (pattern: string, data: unknown) =>
      rpc.send<PostView>(pattern, data).then(
        (post) => ({ status: 200, visibility: post.status }),
        (error: { status: number; error: string }) => ({ status: error.status, error: error.error }),
      );
    const list = await rpc.send<PostListResult>(Patterns.posts.list, { query: { limit: 50 } });
    return {
      byId: await read(Patterns.posts.get, { id }),
      bySlug: await read(Patterns.posts.getBySlug, { slug }),
      listed: list.items.some((item) => item.id === id),
    };
  }

  it('a post due in 30 s by the database, Node an hour ahead: in no list, 404 by id and slug, scheduled for the admin', async () => {
    const id = await postDated('due-soon', 30);
    skewNodeClock(HOUR);
    const notFound = { status: 404, error: PostErrors.notFound };
    expect(await asGuest(id, 'due-soon')).toEqual({ byId: notFound, bySlug: notFound, listed: false });
    const admin = await rpc.send<PostView>(Patterns.posts.get, { id, options: ADMIN });
    expect(admin.status).toBe('scheduled');
    const scheduled = await rpc.send<PostListResult>(Patterns.posts.list, {
      query: { status: 'scheduled' },
      options: ADMIN,
    });
    expect(scheduled.items.map((item) => [item.id, item.status])).toEqual([[id, 'scheduled']]);
  });

  it('a post dated 30 s ago by the database, Node an hour behind: listed, read by id and slug, published', async () => {
    const id = await postDated('just-out', -30);
    skewNodeClock(-HOUR);
    const published = { status: 200, visibility: 'published' };
    expect(await asGuest(id, 'just-out')).toEqual({ byId: published, bySlug: published, listed: true });
    const listed = await rpc.send<PostListResult>(Patterns.posts.list, { query: { limit: 50 } });
    expect(listed.items.find((item) => item.id === id)?.status).toBe('published');
  });
});
