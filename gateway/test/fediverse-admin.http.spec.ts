/**
 * The dashboard's Fediverse routes through the real gateway and social service: followers
 * (paged with counts, approve, remove) and blocks (add by account or server, list, remove);
 * admins only, bad input answered 400 and changing nothing, unknown ids 404.
 */
import { ClientProxyFactory, Transport, type ClientProxy } from '@nestjs/microservices';
import {
  Patterns,
  SocialErrors,
  type BlockListResult,
  type DeliveryFailureListResult,
  type FollowerListResult,
  type FollowResult,
} from '@blog/contracts';
import pg from 'pg';
import { firstValueFrom } from 'rxjs';
import { fields, multipart } from './support/media-fixtures.js';
import { ADMIN, api, loginAs, startTestStack, type TestStack } from './support/test-stack.js';

const follow = (user: string, host: string, requireApproval = false) => ({
  actorUri: `https://${host}/users/${user}`,
  handle: `@${user}@${host}`,
  name: user,
  url: `https://${host}/@${user}`,
  inbox: `https://${host}/users/${user}/inbox`,
  sharedInbox: `https://${host}/inbox`,
  followActivityId: `https://${host}/follows/${user}`,
  requireApproval,
});

describe('fediverse admin routes', () => {
  let stack: TestStack;
  let social: ClientProxy;
  let admin: string;
  let reader: string;
  const ids: Record<string, number> = {};

  const rpc = <T>(pattern: string, data: unknown) =>
    firstValueFrom(social.send<T>(pattern, { requestId: 'test', data }));
  const followers = async (query = '') =>
    (await api(stack, `/api/admin/fediverse/followers${query}`, { token: admin }))
      .json as unknown as FollowerListResult;
  const posts = (() => {
    let client: ClientProxy | null = null;
    return {
      rpc: <T>(pattern: string, data: unknown) => {
        client ??= ClientProxyFactory.create({
          transport: Transport.TCP,
          options: { host: '127.0.0.1', port: Number(stack.env.POSTS_PORT) },
        });
        return firstValueFrom(client.send<T>(pattern, { requestId: 'test', data }));
      },
      close: () => client?.close(),
    };
  })();
  const createPost = async (title: string) => {
    const { body, contentType } = multipart(fields({ content: 'Text.', category: 'More', title }));
    const response = await fetch(`${stack.baseUrl}/api/posts`, {
      method: 'POST',
      headers: { 'content-type': contentType, authorization: `Bearer ${admin}` },
      body,
    });
    expect(response.status).toBe(201);
    return ((await response.json()) as { id: number }).id;
  };
  /** A reply from the fediverse, as the federation hands it to the posts service. */
  const remoteComment = (postId: number, user: string, host: string, n: number) =>
    posts.rpc(Patterns.posts.commentCreateRemote, {
      postId,
      remoteObjectId: `https://${host}/notes/${user}-${n}`,
      actor: { uri: `https://${host}/users/${user}`, name: user, handle: `@${user}@${host}` },
      html: `<p>Note ${n} by ${user}</p>`,
    });
  const commentAuthors = async () => {
    const names: string[] = [];
    for (const status of ['pending', 'approved', 'spam']) {
      const list = (await api(stack, `/api/admin/comments?status=${status}&pageSize=100`, { token: admin }))
        .json as unknown as { items: { author: { handle: string } }[] };
      names.push(...list.items.map((item) => item.author.handle));
    }
    return names.sort();
  };
  const blocks = async () =>
    (await api(stack, '/api/admin/fediverse/blocks', { token: admin })).json as unknown as BlockListResult;

  beforeAll(async () => {
    stack = await startTestStack();
    social = ClientProxyFactory.create({
      transport: Transport.TCP,
      options: { host: '127.0.0.1', port: Number(stack.env.SOCIAL_PORT) },
    });
    admin = await loginAs(stack, ADMIN.username, ADMIN.password);
    await api(stack, '/api/auth/register', { body: { username: 'reader', password: 'reader-password-1' } });
    reader = await loginAs(stack, 'reader', 'reader-password-1');
    for (const [user, host, pending] of [
      ['alice', 'mastodon.example', false],
      ['bob', 'mastodon.example', false],
      ['carol', 'other.example', true],
    ] as const) {
      ids[user] = (await rpc<FollowResult>(Patterns.social.follow, follow(user, host, pending))).id;
    }
  });
  afterAll(async () => {
    social?.close();
    posts.close();
    await stack?.stop();
  });

  it('refuses every route to a visitor (401) and to a reader who is not an admin (403)', async () => {
    const routes: [string, string, unknown?][] = [
      ['GET', '/api/admin/fediverse/followers'],
      ['DELETE', `/api/admin/fediverse/followers/${ids.alice}`],
      ['POST', `/api/admin/fediverse/followers/${ids.carol}/approve`],
      ['POST', '/api/admin/fediverse/blocks', { domain: 'mastodon.example' }],
      ['GET', '/api/admin/fediverse/blocks'],
      ['DELETE', '/api/admin/fediverse/blocks/1'],
    ];
    for (const [method, path, body] of routes) {
      expect([path, (await api(stack, path, { method, body })).status]).toEqual([path, 401]);
      expect([path, (await api(stack, path, { method, body, token: reader })).status]).toEqual([path, 403]);
    }
    expect((await followers()).counts).toEqual({ accepted: 2, pending: 1, likes: 0, announces: 0 });
    expect((await blocks()).total).toBe(0);
  });

  it('lists followers newest first, paged and by status, with the counts', async () => {
    const all = await followers();
    expect(all).toMatchObject({ total: 3, page: 1, pageSize: 30 });
    expect(all.items.map((item) => item.handle)).toEqual([
      '@carol@other.example',
      '@bob@mastodon.example',
      '@alice@mastodon.example',
    ]);
    expect(all.items[2]).toEqual({
      id: ids.alice,
      handle: '@alice@mastodon.example',
      server: 'mastodon.example',
      name: 'alice',
      url: 'https://mastodon.example/@alice',
      since: expect.any(String),
      status: 'accepted',
    });
    const second = await followers('?pageSize=1&page=2');
    expect(second.items.map((item) => item.handle)).toEqual(['@bob@mastodon.example']);
    const pending = await followers('?status=pending');
    expect(pending.items.map((item) => item.handle)).toEqual(['@carol@other.example']);
  });

  it('answers 400 for a bad query or id, 404 for an unknown follower, and changes nothing', async () => {
    const bad = await api(stack, '/api/admin/fediverse/followers?pageSize=500', { token: admin });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toBe('pageSize must be at most 100');
    expect((await api(stack, '/api/admin/fediverse/followers?status=blocked', { token: admin })).status).toBe(
      400,
    );
    const badId = await api(stack, '/api/admin/fediverse/followers/abc', { method: 'DELETE', token: admin });
    expect(badId.status).toBe(400);
    const unknown = await api(stack, '/api/admin/fediverse/followers/99999', {
      method: 'DELETE',
      token: admin,
    });
    expect(unknown.status).toBe(404);
    expect(unknown.json.error).toBe(SocialErrors.followerNotFound);
    const approveUnknown = await api(stack, '/api/admin/fediverse/followers/99999/approve', {
      method: 'POST',
      token: admin,
    });
    expect(approveUnknown.status).toBe(404);
    expect((await followers()).total).toBe(3);
  });

  it('approves a pending follower once, and removes a follower', async () => {
    const approved = await api(stack, `/api/admin/fediverse/followers/${ids.carol}/approve`, {
      method: 'POST',
      token: admin,
    });
    expect(approved.status).toBe(200);
    expect(approved.json).toMatchObject({
      id: ids.carol,
      status: 'accepted',
      handle: '@carol@other.example',
    });
    expect(approved.json).not.toHaveProperty('followActivityId');
    const again = await api(stack, `/api/admin/fediverse/followers/${ids.carol}/approve`, {
      method: 'POST',
      token: admin,
    });
    expect(again.status).toBe(409);
    const removed = await api(stack, `/api/admin/fediverse/followers/${ids.bob}`, {
      method: 'DELETE',
      token: admin,
    });
    expect(removed.status).toBe(200);
    expect((await followers()).counts).toMatchObject({ accepted: 2, pending: 0 });
  });

  it('blocks a server: its followers go, the answer says how many; then lists and removes the block', async () => {
    const block = await api(stack, '/api/admin/fediverse/blocks', {
      body: { domain: 'Mastodon.Example' },
      token: admin,
    });
    expect(block.status).toBe(201);
    expect(block.json).toMatchObject({
      block: { domain: 'mastodon.example', actor: null },
      removedFollowers: 1,
    });
    expect((await followers()).items.map((item) => item.handle)).toEqual(['@carol@other.example']);
    expect(await rpc(Patterns.social.blocked, { actorUri: 'https://mastodon.example/users/zed' })).toBe(true);

    const account = await api(stack, '/api/admin/fediverse/blocks', {
      body: { actor: 'https://other.example/users/carol' },
      token: admin,
    });
    expect(account.json).toMatchObject({ removedFollowers: 1 });
    const list = await blocks();
    expect(list.items.map((item) => item.actor ?? item.domain)).toEqual([
      'https://other.example/users/carol',
      'mastodon.example',
    ]);
    const id = list.items[1]!.id;
    expect(
      (await api(stack, `/api/admin/fediverse/blocks/${id}`, { method: 'DELETE', token: admin })).status,
    ).toBe(200);
    const gone = await api(stack, `/api/admin/fediverse/blocks/${id}`, { method: 'DELETE', token: admin });
    expect(gone.status).toBe(404);
    expect(gone.json.error).toBe(SocialErrors.blockNotFound);
    expect((await blocks()).total).toBe(1);
  });

  it('answers 400 to a block with both, neither or a malformed target, and stores nothing', async () => {
    await rpc(Patterns.social.follow, follow('dave', 'third.example'));
    const before = [(await blocks()).total, (await followers()).total];
    for (const body of [
      { actor: 'https://third.example/users/dave', domain: 'third.example' },
      {},
      { domain: 'not a domain' },
      { actor: 'dave@third.example' },
    ]) {
      const answer = await api(stack, '/api/admin/fediverse/blocks', { body, token: admin });
      expect([body, answer.status]).toEqual([body, 400]);
      expect(typeof answer.json.error).toBe('string');
    }
    expect([(await blocks()).total, (await followers()).total]).toEqual(before);
  });

  it('keeps the fediverse settings of the Site tab: the handle checked like a username, nothing saved on a bad one', async () => {
    const site = async () => (await api(stack, '/api/site')).json as unknown as Record<string, unknown>;
    const before = await site();
    const saved = await api(stack, '/api/admin/site', {
      method: 'PUT',
      token: admin,
      body: { ...before, fediverse: { handle: 'anna_garage', approveFollowers: true } },
    });
    expect(saved.status).toBe(200);
    expect(saved.json.fediverse).toMatchObject({
      handle: 'anna_garage',
      approveFollowers: true,
      avatarImage: '',
    });
    const now = await site();
    for (const fediverse of [
      { handle: 'Anna Garage' },
      { handle: 'x'.repeat(31) },
      { avatarImage: 'https://x.example/a.png' },
    ]) {
      const refused = await api(stack, '/api/admin/site', {
        method: 'PUT',
        token: admin,
        body: { ...now, fediverse },
      });
      expect([fediverse, refused.status]).toEqual([fediverse, 400]);
      expect(refused.json.error).toMatch(/fediverse/);
    }
    expect((await site()).fediverse).toEqual(now.fediverse);
  });

  it("a block deletes the blocked author's comments: an account's only, a server's every account", async () => {
    const postId = await createPost('Talked about');
    await remoteComment(postId, 'troll', 'chatty.example', 1);
    await remoteComment(postId, 'troll', 'chatty.example', 2);
    await remoteComment(postId, 'kind', 'chatty.example', 1);
    await remoteComment(postId, 'spammer', 'spam.example', 1);
    await remoteComment(postId, 'other', 'spam.example', 1);
    await remoteComment(postId, 'friend', 'friendly.example', 1);
    await api(stack, `/api/admin/comments/${await commentIdOf('@kind@chatty.example')}/approve`, {
      method: 'POST',
      token: admin,
    });

    const account = await api(stack, '/api/admin/fediverse/blocks', {
      body: { actor: 'https://chatty.example/users/troll' },
      token: admin,
    });
    expect(account.status).toBe(201);
    expect(account.json).toMatchObject({ removedComments: 2, removedFollowers: 0 });
    expect(await commentAuthors()).toEqual([
      '@friend@friendly.example',
      '@kind@chatty.example',
      '@other@spam.example',
      '@spammer@spam.example',
    ]);

    const server = await api(stack, '/api/admin/fediverse/blocks', {
      body: { domain: 'SPAM.example' },
      token: admin,
    });
    expect(server.status).toBe(201);
    expect(server.json).toMatchObject({ block: { domain: 'spam.example' }, removedComments: 2 });
    expect(await commentAuthors()).toEqual(['@friend@friendly.example', '@kind@chatty.example']);

    // A second block of the same server: 409, and nothing else goes.
    const again = await api(stack, '/api/admin/fediverse/blocks', {
      body: { domain: 'spam.example' },
      token: admin,
    });
    expect(again.status).toBe(409);
    expect(await commentAuthors()).toEqual(['@friend@friendly.example', '@kind@chatty.example']);
  });

  it('answers the likes and announces of the listed posts, admins only, bad ids refused', async () => {
    const liked = await createPost('Liked');
    const quiet = await createPost('Quiet');
    for (const [n, kind] of [
      [1, 'like'],
      [2, 'like'],
      [3, 'announce'],
    ] as const) {
      await rpc(Patterns.social.reaction, {
        activityId: `https://fans.example/activities/${n}`,
        postId: liked,
        actorUri: `https://fans.example/users/fan${n}`,
        kind,
      });
    }
    const path = `/api/admin/fediverse/reactions?ids=${liked},${quiet}`;
    const counts = await api(stack, path, { token: admin });
    expect(counts.status).toBe(200);
    expect(counts.json).toEqual({ [liked]: { likes: 2, announces: 1, quotes: 0 } });
    expect((await api(stack, '/api/admin/fediverse/reactions', { token: admin })).json).toEqual({});
    expect((await api(stack, path)).status).toBe(401);
    expect((await api(stack, path, { token: reader })).status).toBe(403);
    const bad = await api(stack, '/api/admin/fediverse/reactions?ids=1,abc', { token: admin });
    expect(bad.status).toBe(400);
  });

  const commentIdOf = async (handle: string) => {
    const list = (await api(stack, '/api/admin/comments?status=pending&pageSize=100', { token: admin }))
      .json as unknown as { items: { id: number; author: { handle: string } }[] };
    return list.items.find((item) => item.author.handle === handle)!.id;
  };

  it('lists servers given up on, newest first, and dismisses one; admins only', async () => {
    // Give-ups come from the federation's queue (services/social/test/delivery-failures.spec.ts); seeded here.
    const sql = new pg.Client({ connectionString: stack.env.DATABASE_URL });
    await sql.connect();
    try {
      await sql.query(
        `INSERT INTO social.delivery_failures (host, inbox, last_activity_id, reason, status_code, error,
           first_failed_at, last_failed_at, count)
         VALUES ('gone.example', 'https://gone.example/inbox', 'https://blog.example/post/1#create', 'gone',
                 410, 'Gone', now() - interval '3 days', now() - interval '2 days', 3),
                ('slow.example:8443', 'https://slow.example:8443/inbox', NULL, 'expired', NULL,
                 'connect ECONNREFUSED', now() - interval '3 days', now() - interval '1 hour', 1)`,
      );
    } finally {
      await sql.end();
    }
    const path = '/api/admin/fediverse/deliveries';
    for (const [method, route] of [
      ['GET', path],
      ['DELETE', `${path}/gone.example`],
    ] as const) {
      expect([route, (await api(stack, route, { method })).status]).toEqual([route, 401]);
      expect([route, (await api(stack, route, { method, token: reader })).status]).toEqual([route, 403]);
    }
    const list = await api(stack, path, { token: admin });
    expect(list.status).toBe(200);
    const { items } = list.json as unknown as DeliveryFailureListResult;
    expect(items.map((item) => [item.host, item.reason, item.statusCode, item.count])).toEqual([
      ['slow.example:8443', 'expired', null, 1],
      ['gone.example', 'gone', 410, 3],
    ]);
    expect(items[1]).toMatchObject({
      inbox: 'https://gone.example/inbox',
      lastActivityId: 'https://blog.example/post/1#create',
      error: 'Gone',
    });

    const dismiss = (host: string) =>
      api(stack, `${path}/${encodeURIComponent(host)}`, { method: 'DELETE', token: admin });
    expect((await dismiss('slow.example:8443')).json).toEqual({ removed: true });
    expect((await dismiss('slow.example:8443')).json).toEqual({ removed: false });
    const bad = await dismiss('not a host');
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.json)).toContain(SocialErrors.deliveryHost);
    const after = (await api(stack, path, { token: admin })).json as unknown as DeliveryFailureListResult;
    expect(after.items.map((item) => item.host)).toEqual(['gone.example']);
  });
});
