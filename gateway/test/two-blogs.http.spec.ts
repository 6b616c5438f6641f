/**
 * Two whole blogs on loopback, each a full stack (gateway, auth, posts, media, mail, social on
 * its own database), talking ActivityPub to each other as two servers on the internet would:
 * each follows the other by its handle (WebFinger), reads the other's notes and posts in its
 * Reader, replies to the other's post (a comment there, approved by its owner), and answers the
 * comment on its own post (the owner's reply, delivered back and told as a notification), in
 * both directions.
 */
import { freePort } from '@blog/server-kit/testing';
import type { FollowingListResult, NotificationsPage, ReaderPage } from '@blog/contracts';
import { eventually as eventuallyWithin } from './support/fediverse.js';
import { fields, multipart } from './support/media-fixtures.js';
import { ADMIN, api, loginAs, startTestStack, type TestStack } from './support/test-stack.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Two whole stacks on a busy machine: a minute for anything to cross between them. */
const eventually = <T>(what: string, check: () => Promise<T | undefined | null | false>) =>
  eventuallyWithin(what, check, 60_000);

interface Blog {
  name: string;
  stack: TestStack;
  token: string;
  origin: string;
  handle: string;
}

async function startBlog(name: string): Promise<Blog> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const stack = await startTestStack({ PORT: String(port), SITE_URL: origin, FEDERATION_POLL_MS: '200' });
  const token = await loginAs(stack, ADMIN.username, ADMIN.password);
  return { name, stack, token, origin, handle: `@blog@127.0.0.1:${port}` };
}

const call = async (blog: Blog, path: string, init: { method?: string; body?: unknown } = {}) =>
  (await api(blog.stack, path, { ...init, token: blog.token })).json as Json;

async function publish(blog: Blog, title: string): Promise<{ id: number; article: string }> {
  const { body, contentType } = multipart(
    fields({ content: `${title}: the text.`, category: 'More', title }),
  );
  const response = await fetch(`${blog.stack.baseUrl}/api/posts`, {
    method: 'POST',
    headers: { 'content-type': contentType, authorization: `Bearer ${blog.token}` },
    body,
  });
  expect(response.status).toBe(201);
  const id = ((await response.json()) as { id: number }).id;
  return { id, article: `${blog.origin}/post/${id}` };
}

const reader = (blog: Blog) => call(blog, '/api/admin/fediverse/reader') as Promise<ReaderPage>;
const notifications = (blog: Blog) =>
  call(blog, '/api/admin/fediverse/notifications') as Promise<NotificationsPage>;

/** `from` replies to `target` (a post of `to`); `to`'s owner approves it. Answers the comment there. */
async function replyAndApprove(from: Blog, to: Blog, target: { id: number; article: string }, text: string) {
  const note = await call(from, '/api/admin/fediverse/notes', {
    method: 'POST',
    body: { content: text, inReplyTo: target.article },
  });
  expect(note.id).toBeGreaterThan(0);
  const pending = await eventually(`the reply at ${to.name}`, async () => {
    const list = await call(to, '/api/admin/comments?status=pending&pageSize=100');
    return (list.items as Json[]).find((c) => String(c.content).includes(text));
  });
  expect(
    (await api(to.stack, `/api/admin/comments/${pending.id}/approve`, { method: 'POST', token: to.token }))
      .status,
  ).toBe(200);
  const shown = await call(to, `/api/posts/${target.id}/comments`);
  const comment = (shown.comments as Json[]).find((c) => c.id === pending.id)!;
  expect(comment.author).toMatchObject({ handle: from.handle });
  expect(comment.via).toBe('Mastodon');
  return comment;
}

describe('two whole blogs, each following the other', () => {
  let a: Blog;
  let b: Blog;

  beforeAll(async () => {
    [a, b] = await Promise.all([startBlog('A'), startBlog('B')]);
  }, 240_000);
  afterAll(async () => {
    await a?.stack.stop();
    await b?.stack.stop();
  });

  it('follow each other by handle, and each sees the other accept', async () => {
    for (const [from, to] of [
      [a, b],
      [b, a],
    ] as const) {
      const answer = await api(from.stack, '/api/admin/fediverse/following', {
        method: 'POST',
        body: { account: to.handle },
        token: from.token,
      });
      expect([answer.status, answer.json.handle]).toEqual([201, to.handle]);
    }
    for (const [from, to] of [
      [a, b],
      [b, a],
    ] as const)
      await eventually(`${from.name} follows ${to.name}`, async () => {
        const list = (await call(from, '/api/admin/fediverse/following')) as FollowingListResult;
        return list.items.find((f) => f.handle === to.handle && f.status === 'accepted');
      });
    const followers = await call(a, '/api/admin/fediverse/followers');
    expect((followers.items as Json[]).map((f) => f.handle)).toEqual([b.handle]);
  });

  it("reads the other's notes and posts in the Reader", async () => {
    await call(a, '/api/admin/fediverse/notes', { method: 'POST', body: { content: 'A note from *A*.' } });
    await publish(b, 'A post from B');
    const atB = await eventually("A's note in B's Reader", async () =>
      (await reader(b)).items.find((i) => i.content.includes('A note from')),
    );
    expect(atB).toMatchObject({ type: 'Note', author: { handle: a.handle } });
    expect(atB.content).toContain('<em>A</em>');
    const atA = await eventually("B's post in A's Reader", async () =>
      (await reader(a)).items.find((i) => i.name === 'A post from B'),
    );
    expect(atA).toMatchObject({ type: 'Article', author: { handle: b.handle } });
  });

  it("replies to each other's posts and answers the comments, in both directions", async () => {
    const postOfA = await publish(a, 'Workshop notes');
    const postOfB = await publish(b, 'Garden notes');
    // A comments on B's post, B on A's: each approved by the post's owner and shown under it.
    const onB = await replyAndApprove(a, b, postOfB, 'A likes the garden');
    const onA = await replyAndApprove(b, a, postOfA, 'B likes the workshop');
    // Each owner is told of the reply.
    await eventually('B told of the reply', async () =>
      (await notifications(b)).items.find((n) => n.kind === 'reply' && n.actor.handle === a.handle),
    );
    await eventually('A told of the reply', async () =>
      (await notifications(a)).items.find((n) => n.kind === 'reply' && n.actor.handle === b.handle),
    );

    // Each owner answers the comment under their own post: shown there as the owner's, and sent
    // back to the commenter, whose blog tells its owner.
    for (const [owner, commenter, post, comment, text] of [
      [b, a, postOfB, onB, 'Thank you, A!'],
      [a, b, postOfA, onA, 'Thank you, B!'],
    ] as const) {
      const answer = await api(owner.stack, `/api/admin/comments/${comment.id}/reply`, {
        method: 'POST',
        body: { content: text },
        token: owner.token,
      });
      expect([answer.status, answer.json.federated]).toEqual([201, true]);
      // Under the post: the owner's answer, threaded under the comment it answers.
      const under = await call(owner, `/api/posts/${post.id}/comments`);
      const thread = (under.comments as Json[]).find((c) => c.id === comment.id)!;
      expect(thread.replies).toEqual([
        expect.objectContaining({
          byOwner: true,
          status: 'approved',
          content: expect.stringContaining(text),
        }),
      ]);
      await eventually(`${commenter.name} told of the answer`, async () =>
        (await notifications(commenter)).items.find(
          (n) => n.kind === 'reply' && n.actor.handle === owner.handle && (n.excerpt ?? '').includes(text),
        ),
      );
    }
  });
});
