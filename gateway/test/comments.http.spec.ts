import { COMMENT_CONTENT_MAX, COMMENTS_PER_READER_HOUR, Patterns } from '@blog/contracts';
import { createRpcClient, sendTyped } from '@blog/server-kit';
import type { ClientProxy } from '@nestjs/microservices';
import { startTestSmtp, type TestSmtp } from '../../services/mail/test/support/smtp.js';
import { OWASP_VECTORS } from '../../services/posts/test/xss-corpus.js';
import { unsafeParts } from '../../services/posts/test/comments.html-check.js';
import { fields, multipart } from './support/media-fixtures.js';
import { ADMIN, api, loginAs, startTestStack, type TestStack } from './support/test-stack.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const OWNER = 'owner@blog.example';

/** The comment routes through the real gateway, posts and mail services, on a real PostgreSQL. */
describe('comments through the gateway', () => {
  let stack: TestStack;
  let smtp: TestSmtp;
  let rpc: ClientProxy;
  let admin: string;
  let address = 0;
  const posts: Record<'visible' | 'other' | 'draft' | 'scheduled', number> = {} as never;

  /** A new reader account (its own address, so the per-address limit stays out of the way). */
  const reader = async (name: string) => {
    const registered = await api(stack, '/api/auth/register', {
      body: { username: name, password: 'reader-password-1' },
    });
    expect(registered.status).toBeLessThan(300);
    return loginAs(stack, name, 'reader-password-1');
  };
  const comment = (
    postId: number,
    token: string | undefined,
    body: unknown,
    headers: Record<string, string> = {},
  ) =>
    api(stack, `/api/posts/${postId}/comments`, {
      body,
      token,
      headers: { 'x-forwarded-for': `198.51.100.${(address++ % 250) + 1}`, ...headers },
    });
  const publicList = async (postId: number) =>
    (await api(stack, `/api/posts/${postId}/comments`)).json as Json;
  const adminList = async (status = 'pending') =>
    (await api(stack, `/api/admin/comments?status=${status}&pageSize=100`, { token: admin })).json as Json;
  const counts = async () => (await adminList()).counts as Record<string, number>;
  const approve = (id: number) =>
    api(stack, `/api/admin/comments/${id}/approve`, { method: 'POST', token: admin });
  const createPost = async (values: Record<string, string>) => {
    const { body, contentType } = multipart(fields({ content: 'Text.', category: 'More', ...values }));
    const response = await fetch(`${stack.baseUrl}/api/posts`, {
      method: 'POST',
      headers: { 'content-type': contentType, authorization: `Bearer ${admin}` },
      body,
    });
    expect(response.status).toBe(201);
    return ((await response.json()) as Json).id as number;
  };

  beforeAll(async () => {
    smtp = await startTestSmtp();
    stack = await startTestStack({
      SMTP_URL: smtp.url,
      OWNER_EMAIL: OWNER,
      SITE_URL: 'https://blog.example',
    });
    admin = await loginAs(stack, ADMIN.username, ADMIN.password);
    posts.visible = await createPost({ title: 'Open for comments', date: '2024-01-01T10:00:00Z' });
    posts.other = await createPost({ title: 'Another post', date: '2024-01-02T10:00:00Z' });
    posts.draft = await createPost({ title: 'A draft', status: 'draft' });
    posts.scheduled = await createPost({ title: 'Later', date: '2099-01-01T10:00:00Z' });
    rpc = createRpcClient({ TRANSPORT: 'tcp' } as never, 'test', {
      host: '127.0.0.1',
      port: Number(stack.env.POSTS_PORT),
    });
  });
  afterAll(async () => {
    await rpc?.close();
    await stack?.stop();
    await smtp?.close();
  });

  it('a reader comment is 202 pending, hidden until approved, then public; the owner is mailed once', async () => {
    const alice = await reader('alice');
    const sent = await comment(posts.visible, alice, { content: 'First!\n\nSecond line\nthird <b>x</b>' });
    expect(sent.status).toBe(202);
    expect(sent.json).toMatchObject({
      postId: posts.visible,
      parentId: null,
      status: 'pending',
      content: '<p>First!</p><p>Second line<br />third &lt;b&gt;x&lt;/b&gt;</p>',
      author: { name: 'alice', handle: 'alice', url: null, avatarUrl: null, local: true },
      via: null,
    });
    expect(await publicList(posts.visible)).toEqual({ postId: posts.visible, count: 0, comments: [] });

    const [mail] = await smtp.waitFor(1, (m) => m.to.includes(OWNER));
    expect(mail!.parsed.subject).toContain('New comment to approve');
    expect(mail!.parsed.text).toContain('alice commented on "Open for comments"');

    const pending = await adminList();
    expect(pending.items.map((c: Json) => c.id)).toEqual([sent.json.id]);
    expect(pending.items[0].post).toMatchObject({ id: posts.visible, title: 'Open for comments' });
    expect(pending.counts).toEqual({ pending: 1, approved: 0, spam: 0 });

    const approved = await approve(sent.json.id as number);
    expect(approved.status).toBe(200);
    expect(approved.json.status).toBe('approved');
    const list = await publicList(posts.visible);
    expect(list.count).toBe(1);
    expect(list.comments[0]).toMatchObject({ id: sent.json.id, status: 'approved', replies: [] });

    // A second pending comment within the hour: no second mail.
    await comment(posts.visible, alice, { content: 'Another thought' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(smtp.received.filter((m) => m.to.includes(OWNER))).toHaveLength(1);
  });

  it('threads one level deep: a reply to a reply hangs under the top comment', async () => {
    const bob = await reader('bob');
    const top = await comment(posts.visible, bob, { content: 'Top' });
    await approve(top.json.id as number);
    const reply = await comment(posts.visible, bob, { content: 'Reply', parentId: top.json.id });
    expect(reply.status).toBe(202);
    expect(reply.json.parentId).toBe(top.json.id);
    await approve(reply.json.id as number);
    const deeper = await comment(posts.visible, bob, {
      content: 'Reply to the reply',
      parentId: reply.json.id,
    });
    expect(deeper.json.parentId).toBe(top.json.id);
    await approve(deeper.json.id as number);
    const thread = (await publicList(posts.visible)).comments.find((c: Json) => c.id === top.json.id);
    expect(thread.replies.map((r: Json) => r.content)).toEqual(['<p>Reply</p>', '<p>Reply to the reply</p>']);
  });

  it('refuses bad input with 400 and stores nothing', async () => {
    const carol = await reader('carol');
    const before = await counts();
    const foreign = (await publicList(posts.visible)).comments[0].id as number;
    const cases: [unknown, string][] = [
      [{}, 'Comment text is required'],
      [{ content: '   \n  ' }, 'Comment text is required'],
      [{ content: 42 }, 'Comment text is required'],
      [
        { content: 'x'.repeat(COMMENT_CONTENT_MAX + 1) },
        `A comment is at most ${COMMENT_CONTENT_MAX} characters`,
      ],
      [{ content: 'ok', parentId: 'abc' }, 'parentId'],
      [{ content: 'ok', parentId: -1 }, 'parentId'],
    ];
    for (const [body, error] of cases) {
      const response = await comment(posts.visible, carol, body);
      expect(response.status).toBe(400);
      expect(String(response.json.error)).toContain(error);
    }
    // The parent must be a comment of the same post, and one readers see.
    const elsewhere = await comment(posts.other, carol, { content: 'ok', parentId: foreign });
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.json.error).toBe('The comment answered is not under this post');
    const unknown = await comment(posts.visible, carol, { content: 'ok', parentId: 999999 });
    expect(unknown.status).toBe(400);
    const notJson = await comment(posts.visible, carol, '{"content":', {
      'content-type': 'application/json',
    });
    expect(notJson.status).toBe(400);
    expect(await counts()).toEqual(before);
    // Exactly the cap is fine.
    expect((await comment(posts.visible, carol, { content: 'y'.repeat(COMMENT_CONTENT_MAX) })).status).toBe(
      202,
    );
  });

  it('answers 401 without a session, 403 to a reader on the admin routes, 400 and 404 on bad ids', async () => {
    const dave = await reader('dave');
    const before = await counts();
    expect((await comment(posts.visible, undefined, { content: 'anon' })).status).toBe(401);
    expect((await comment(posts.visible, 'not-a-token', { content: 'anon' })).status).toBe(401);
    expect(await counts()).toEqual(before);

    const routes: [string, string, unknown?][] = [
      ['GET', '/api/admin/comments'],
      ['POST', '/api/admin/comments/1/approve'],
      ['POST', '/api/admin/comments/1/spam'],
      ['DELETE', '/api/admin/comments/1'],
      ['GET', '/api/admin/comments/settings'],
      ['PUT', '/api/admin/comments/settings', { autoApproveKnown: true }],
      ['PUT', `/api/admin/posts/${posts.visible}/comments/settings`, { autoApproveKnown: true }],
      ['GET', `/api/admin/posts/${posts.visible}/comments/settings`],
    ];
    for (const [method, path, body] of routes) {
      expect((await api(stack, path, { method, body, token: dave })).status).toBe(403);
      expect((await api(stack, path, { method, body })).status).toBe(401);
    }
    expect(
      (await api(stack, '/api/admin/comments/abc/approve', { method: 'POST', token: admin })).status,
    ).toBe(400);
    expect((await api(stack, '/api/admin/comments/0', { method: 'DELETE', token: admin })).status).toBe(400);
    expect((await api(stack, '/api/admin/comments?status=nope', { token: admin })).status).toBe(400);
    const missing = await api(stack, '/api/admin/comments/987654/spam', { method: 'POST', token: admin });
    expect(missing.status).toBe(404);
    expect(missing.json.error).toBe('Comment not found');
    expect((await api(stack, '/api/admin/comments/987654', { method: 'DELETE', token: admin })).status).toBe(
      404,
    );
    expect(
      (
        await api(stack, '/api/admin/comments/settings', {
          method: 'PUT',
          body: { autoApproveKnown: 'yes' },
          token: admin,
        })
      ).status,
    ).toBe(400);
  });

  it('answers 404 for a draft, a scheduled or an unknown post, and stores nothing', async () => {
    const erin = await reader('erin');
    const before = await counts();
    for (const id of [posts.draft, posts.scheduled, 987654]) {
      expect((await api(stack, `/api/posts/${id}/comments`)).status).toBe(404);
      const sent = await comment(id, erin, { content: 'Hello' });
      expect(sent.status).toBe(404);
      expect(sent.json.error).toBe('Post not found');
    }
    expect((await api(stack, '/api/posts/abc/comments')).status).toBe(404);
    expect(await counts()).toEqual(before);
  });

  it(`limits a reader to ${COMMENTS_PER_READER_HOUR} comments an hour (429 with Retry-After)`, async () => {
    const frank = await reader('frank');
    for (let i = 0; i < COMMENTS_PER_READER_HOUR; i++)
      expect((await comment(posts.other, frank, { content: `Comment ${i}` })).status).toBe(202);
    const before = await counts();
    const refused = await comment(posts.other, frank, { content: 'One too many' });
    expect(refused.status).toBe(429);
    expect(refused.json.error).toBe('Too many comments; try again later');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(3000);
    expect(await counts()).toEqual(before);
    // Another reader is not limited by frank's comments.
    expect((await comment(posts.other, await reader('grace'), { content: 'Mine' })).status).toBe(202);
  });

  it('marks as spam and deletes (replies go with their comment); the public list follows', async () => {
    const heidi = await reader('heidi');
    const top = await comment(posts.other, heidi, { content: 'Spam me' });
    await approve(top.json.id as number);
    const reply = await comment(posts.other, heidi, { content: 'Under it', parentId: top.json.id });
    const spam = await api(stack, `/api/admin/comments/${top.json.id}/spam`, {
      method: 'POST',
      token: admin,
    });
    expect(spam.status).toBe(200);
    expect(spam.json.status).toBe('spam');
    expect((await publicList(posts.other)).comments.map((c: Json) => c.id)).not.toContain(top.json.id);
    expect((await adminList('spam')).items.map((c: Json) => c.id)).toContain(top.json.id);

    const deleted = await api(stack, `/api/admin/comments/${top.json.id}`, {
      method: 'DELETE',
      token: admin,
    });
    expect(deleted.status).toBe(200);
    expect(deleted.json).toEqual({ deleted: true });
    const pendingIds = (await adminList()).items.map((c: Json) => c.id);
    expect(pendingIds).not.toContain(reply.json.id);
    expect(
      (await api(stack, `/api/admin/comments/${top.json.id}`, { method: 'DELETE', token: admin })).status,
    ).toBe(404);
  });

  it('approves at once a known commenter when auto-approval is on (site-wide or for the post)', async () => {
    const ivan = await reader('ivan');
    const first = await comment(posts.visible, ivan, { content: 'First from ivan' });
    expect(first.json.status).toBe('pending');
    await approve(first.json.id as number);
    // Off everywhere: still pending.
    expect((await comment(posts.visible, ivan, { content: 'Again' })).json.status).toBe('pending');

    const on = await api(stack, '/api/admin/comments/settings', {
      method: 'PUT',
      body: { autoApproveKnown: true },
      token: admin,
    });
    expect(on.json).toEqual({ autoApproveKnown: true });
    const known = await comment(posts.visible, ivan, { content: 'Known now' });
    expect(known.status).toBe(202);
    expect(known.json.status).toBe('approved');
    expect((await publicList(posts.visible)).comments.map((c: Json) => c.id)).toContain(known.json.id);
    // A stranger is still held.
    expect((await comment(posts.visible, await reader('judy'), { content: 'New here' })).json.status).toBe(
      'pending',
    );

    await api(stack, '/api/admin/comments/settings', {
      method: 'PUT',
      body: { autoApproveKnown: false },
      token: admin,
    });
    expect((await comment(posts.other, ivan, { content: 'Off again' })).json.status).toBe('pending');
    const perPost = await api(stack, `/api/admin/posts/${posts.other}/comments/settings`, {
      method: 'PUT',
      body: { autoApproveKnown: true },
      token: admin,
    });
    expect(perPost.json).toEqual({ postId: posts.other, autoApproveKnown: true });
    const read = await api(stack, `/api/admin/posts/${posts.other}/comments/settings`, { token: admin });
    expect(read.json).toEqual({ postId: posts.other, autoApproveKnown: true });
    expect(
      (await api(stack, `/api/admin/posts/${posts.visible}/comments/settings`, { token: admin })).json,
    ).toEqual({ postId: posts.visible, autoApproveKnown: false });
    expect((await api(stack, '/api/admin/posts/987654/comments/settings', { token: admin })).status).toBe(
      404,
    );
    expect((await comment(posts.other, ivan, { content: 'This post trusts me' })).json.status).toBe(
      'approved',
    );
    expect((await comment(posts.visible, ivan, { content: 'That one does not' })).json.status).toBe(
      'pending',
    );
  });

  it('replays a keyed comment once (Idempotency-Key)', async () => {
    const kim = await reader('kim');
    const key = { 'idempotency-key': 'comment-key-0001' };
    const first = await comment(posts.visible, kim, { content: 'Once' }, key);
    const again = await comment(posts.visible, kim, { content: 'Once' }, key);
    expect(again.status).toBe(202);
    expect(again.json.id).toBe(first.json.id);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect((await comment(posts.visible, kim, { content: 'Other' }, key)).status).toBe(422);
  });

  it(`no XSS vector survives, in a reader's text (${OWASP_VECTORS.length} vectors) or in remote HTML`, async () => {
    expect(OWASP_VECTORS.length).toBeGreaterThanOrEqual(30);
    let token = '';
    for (const [i, vector] of OWASP_VECTORS.entries()) {
      if (i % COMMENTS_PER_READER_HOUR === 0) token = await reader(`xss${i}`);
      const sent = await comment(posts.other, token, { content: vector });
      expect(sent.status).toBe(202);
      expect(unsafeParts(sent.json.content as string)).toEqual([]);
      // Plain text: only paragraphs and line breaks, the vector shown as the text it was.
      expect(sent.json.content).toMatch(/^<p>/);
      expect(sent.json.content).not.toMatch(/<(?!\/?p>|br \/>)/);
    }
    const remote: string[] = [];
    for (const [i, vector] of OWASP_VECTORS.entries()) {
      const made = await sendTyped(
        rpc,
        Patterns.posts.commentCreateRemote,
        {
          postId: posts.other,
          remoteObjectId: `https://social.example/notes/xss-${i}`,
          actor: {
            uri: 'https://social.example/users/mallory',
            name: 'Mallory',
            handle: '@mallory@social.example',
          },
          html: `<p>before</p>${vector}<p>after <a href="https://ok.example/">ok</a></p>`,
        },
        { requestId: `xss-${i}`, timeoutMs: 10_000 },
      );
      expect(unsafeParts(made.comment!.content)).toEqual([]);
      remote.push(made.comment!.content);
    }
    // The safe link survives, with its rel, wherever an unclosed vector did not swallow the rest.
    const linked = remote.filter((html) =>
      html.includes('<a href="https://ok.example/" rel="nofollow ugc noopener">ok</a>'),
    );
    expect(linked.length).toBeGreaterThan(OWASP_VECTORS.length / 2);
    // Approved, a remote reply shows in the public list with its handle and "via".
    const reply = (await adminList()).items.find((c: Json) => c.author.local === false);
    await approve(reply.id as number);
    const shown = (await publicList(posts.other)).comments.find((c: Json) => c.id === reply.id);
    expect(shown).toMatchObject({
      via: 'Mastodon',
      author: { handle: '@mallory@social.example', local: false },
    });
  });
});
