/**
 * The owner's replies to comments through the real gateway, services and the built web app's page
 * renderer: a reply to a site reader's comment is shown approved under the post, marked as the
 * author's (the comments API's `byOwner`, the server-rendered page's "Author" badge), and sent
 * nowhere; a reply to a comment that came from a Mastodon-shaped server (a signed Create through
 * the shared inbox) is a Note answering that comment's Note, mentioning its author and delivered
 * to them (its signature is checked in libs/federation's notes spec). Deleting the reply (moderation), or the
 * comment it answers (its author's own Delete, or a block's purge), sends Delete{Tombstone}; deleting
 * a note that answered someone reaches them too (cc and delivery).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { NoteErrors } from '@blog/contracts';
import pg from 'pg';
import { startPeer, type Peer, type PeerAccount } from '../../libs/federation/test/support/peer.js';
import { startMastodon, waitUntil, type MastodonFixture } from '../../libs/federation/test/support/rig.js';
import { raw, SITE_URL, startFediverseStack } from './support/fediverse.js';
import { fields, multipart } from './support/media-fixtures.js';
import { ADMIN, api, loginAs, type TestStack } from './support/test-stack.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const AS = 'https://www.w3.org/ns/activitystreams';
const DIST = join(import.meta.dirname, '../../web/dist');
const RENDERER = join(import.meta.dirname, '../../web/dist-ssr/entry-server.js');

describe("the owner's replies to comments", () => {
  let stack: TestStack;
  let admin: string;
  let reader: string;
  let db: pg.Client;
  let alice: MastodonFixture;
  let peer: Peer;
  let bob: PeerAccount;
  const bobInbox: Json[] = [];
  let postId: number;
  let address = 0;

  const admin$ = (path: string, init: { method?: string; body?: unknown } = {}) =>
    api(stack, path, { ...init, token: admin });
  const threads = async () =>
    ((await api(stack, `/api/posts/${postId}/comments`)).json as Json).comments as Json[];
  const pendingOfPost = async () =>
    (((await admin$('/api/admin/comments?status=pending&pageSize=100')).json as Json).items as Json[]).filter(
      (c) => c.postId === postId,
    );
  const approve = async (id: number) =>
    expect((await admin$(`/api/admin/comments/${id}/approve`, { method: 'POST' })).status).toBe(200);
  const reply = (id: number, content: string) =>
    admin$(`/api/admin/comments/${id}/reply`, { method: 'POST', body: { content } });
  const eventsOf = async (commentId: number) =>
    (
      await db.query(`SELECT kind FROM posts.federation_events WHERE comment_id = $1 ORDER BY created_at`, [
        commentId,
      ])
    ).rows.map((r: { kind: string }) => r.kind);
  const toAlice = (type: string, objectId: string) =>
    alice.deliveries.find(
      (d) => d.body.type === type && ((d.body.object as Json | undefined)?.id ?? d.body.object) === objectId,
    );

  beforeAll(async () => {
    if (!existsSync(join(DIST, 'index.html')) || !existsSync(RENDERER))
      throw new Error('web/dist and web/dist-ssr are missing: run `npm run build` first');
    alice = await startMastodon();
    peer = await startPeer();
    bob = await peer.account('bob');
    const keep = (req: { body: Buffer }) => {
      bobInbox.push(JSON.parse(req.body.toString('utf8')) as Json);
      return { status: 202 };
    };
    peer.serve('/inbox', keep);
    peer.serve('/users/bob/inbox', keep);
    peer.serve('/users/bob/statuses/7', {
      body: {
        '@context': AS,
        id: `${peer.origin}/users/bob/statuses/7`,
        type: 'Note',
        attributedTo: bob.actorId,
        content: '<p>Anyone growing leeks?</p>',
        to: [`${AS}#Public`],
      },
    });
    stack = await startFediverseStack({ FEDERATION_POLL_MS: '200', WEB_DIST: DIST });
    admin = await loginAs(stack, ADMIN.username, ADMIN.password);
    await api(stack, '/api/auth/register', { body: { username: 'visitor', password: 'visitor-password-1' } });
    reader = await loginAs(stack, 'visitor', 'visitor-password-1');
    db = new pg.Client({ connectionString: stack.env.DATABASE_URL });
    await db.connect();
    const { body, contentType } = multipart(
      fields({
        content: 'Raised beds, year one.',
        category: 'More',
        title: 'Raised beds',
        date: '2024-01-01T10:00:00Z',
      }),
    );
    const created = await fetch(`${stack.baseUrl}/api/posts`, {
      method: 'POST',
      headers: { 'content-type': contentType, authorization: `Bearer ${admin}` },
      body,
    });
    expect(created.status).toBe(201);
    postId = ((await created.json()) as Json).id as number;
  }, 120_000);
  afterAll(async () => {
    await db?.end();
    await stack?.stop();
    await alice?.close();
    await peer?.close();
  });

  it('refuses bad input (400), a comment that is not there (404) or not approved (422), changing nothing', async () => {
    const written = await api(stack, `/api/posts/${postId}/comments`, {
      body: { content: 'Are the beds cedar?' },
      token: reader,
      headers: { 'x-forwarded-for': `198.51.100.${++address}` },
    });
    expect(written.status).toBe(202); // waits for moderation
    const [waiting] = await pendingOfPost();
    expect(waiting).toBeDefined();
    for (const body of [{}, { content: '  ' }, { content: 'x'.repeat(5001) }, { content: 'Hi', extra: 1 }])
      expect(
        (await admin$(`/api/admin/comments/${waiting!.id}/reply`, { method: 'POST', body })).status,
      ).toBe(400);
    const notYet = await reply(waiting!.id, 'Thanks!');
    expect([notYet.status, notYet.json.error]).toEqual([422, NoteErrors.commentNotReplyable]);
    expect((await reply(987_654, 'Thanks!')).status).toBe(404);
    expect((await reply('abc' as unknown as number, 'Thanks!')).status).toBe(404);
    expect(
      (
        await api(stack, `/api/admin/comments/${waiting!.id}/reply`, {
          body: { content: 'Hi' },
          token: reader,
        })
      ).status,
    ).toBe(403);
    expect(await threads()).toEqual([]);
    const { rows } = await db.query(`SELECT count(*)::int AS n FROM posts.comments WHERE by_owner`);
    expect(rows[0].n).toBe(0);
  });

  it("shows a reply to a reader's comment under the post as the author's, and sends it nowhere", async () => {
    const [comment] = await pendingOfPost();
    await approve(comment!.id);
    const answer = await reply(comment!.id, 'Yes, **cedar**. <script>alert(1)</script>');
    expect(answer.status).toBe(201);
    expect(answer.json).toMatchObject({ postId, federated: false });
    const replyId = answer.json.id as number;

    const [thread] = await threads();
    expect(thread).toMatchObject({ id: comment!.id });
    expect(thread!.byOwner).toBeUndefined();
    expect(thread!.replies).toHaveLength(1);
    const shown = thread!.replies[0] as Json;
    expect(shown).toMatchObject({ id: replyId, parentId: comment!.id, status: 'approved', byOwner: true });
    expect(shown.content).toContain('<strong>cedar</strong>');
    expect(shown.content).not.toContain('<script');

    // The server-rendered post page: the reply with its "Author" badge, in words.
    // (/post/{id} redirects to the post's address, followed here.)
    const page = await fetch(`${stack.baseUrl}/post/${postId}`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    const body = await page.text();
    const rendered = body.slice(body.indexOf(`id="comment-${replyId}"`));
    expect(body).toContain(`id="comment-${replyId}"`);
    expect(rendered.slice(0, rendered.indexOf('</article>'))).toMatch(
      /<span class="comment-badge">Author<\/span>/,
    );
    const readerComment = body.slice(body.indexOf(`id="comment-${comment!.id}"`));
    expect(readerComment.slice(0, readerComment.indexOf('</article>'))).not.toContain('comment-badge');

    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(await eventsOf(replyId)).toEqual([]);
    expect(alice.deliveries.filter((d) => JSON.stringify(d.body).includes(`comment-${replyId}`))).toEqual([]);
  }, 60_000);

  const until = async (check: () => Promise<boolean>, ms: number) => {
    for (const deadline = Date.now() + ms; !(await check());) {
      if (Date.now() > deadline) throw new Error(`not within ${ms} ms`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  /** A signed request to the shared inbox, through the gateway: its answer's status. */
  const sendSigned = async (signed: Request) => {
    const headers: Record<string, string> = {};
    signed.headers.forEach((value, key) => (headers[key] = value));
    return (await raw(stack, '/ap/inbox', { method: 'POST', headers, body: await signed.text() })).status;
  };
  /** A fediverse comment under the post, sent signed through the shared inbox, approved: its id. */
  const fediverseComment = async (signed: Request, noteUri: string) => {
    expect(await sendSigned(signed)).toBe(202);
    let id: number | undefined;
    await until(async () => {
      const rows = (await db.query(`SELECT id FROM posts.comments WHERE remote_object_id = $1`, [noteUri]))
        .rows as { id: number }[];
      id = rows[0]?.id;
      return id !== undefined;
    }, 20_000);
    await approve(id!);
    return id!;
  };
  /** The Create of a comment (a Note answering the post) by `author`. */
  const commentCreate = (author: string, noteUri: string, content = '<p>A question.</p>') => ({
    '@context': AS,
    id: `${noteUri}/activity`,
    type: 'Create',
    actor: author,
    to: [`${AS}#Public`],
    object: {
      id: noteUri,
      type: 'Note',
      inReplyTo: `${SITE_URL}/post/${postId}`,
      published: new Date().toISOString(),
      attributedTo: author,
      to: [`${AS}#Public`],
      cc: [`${SITE_URL}/ap/actor/blog`],
      content,
    },
  });

  it('answers a fediverse comment with a Note to its author, and takes it back with Delete{Tombstone}', async () => {
    const commentNote = `${alice.actorId}/statuses/1`;
    const remoteId = await fediverseComment(
      await alice.signedPost(
        `${SITE_URL}/ap/inbox`,
        commentCreate(alice.actorId, commentNote, '<p>How deep are they?</p>'),
      ),
      commentNote,
    );
    expect((await db.query(`SELECT via FROM posts.comments WHERE id = $1`, [remoteId])).rows[0].via).toBe(
      'Mastodon',
    );

    const answer = await reply(remoteId, 'Thirty centimetres.');
    expect(answer.status).toBe(201);
    expect(answer.json).toMatchObject({ postId, federated: true });
    const replyId = answer.json.id as number;
    const replyUri = `${SITE_URL}/post/${postId}#comment-${replyId}`;
    const handle = `alice@${new URL(alice.origin).host}`;

    await waitUntil(() => !!toAlice('Create', replyUri), 20_000);
    const note = toAlice('Create', replyUri)!.body.object as Json;
    expect(note).toMatchObject({
      type: 'Note',
      id: replyUri,
      inReplyTo: commentNote,
      attributedTo: `${SITE_URL}/ap/actor/blog`,
    });
    expect(note.content).toContain('Thirty centimetres.');
    expect(note.tag).toEqual(
      expect.objectContaining({ type: 'Mention', href: alice.actorId, name: `@${handle}` }),
    );
    expect(JSON.stringify(note.cc)).toContain(alice.actorId);
    // Under the post too, as the author's.
    const thread = (await threads()).find((t) => t.id === remoteId)!;
    expect(thread.replies).toEqual([expect.objectContaining({ id: replyId, byOwner: true })]);

    // Moderation deletes it: its row goes, its Delete still names the Note and reaches Alice.
    expect((await admin$(`/api/admin/comments/${replyId}`, { method: 'DELETE' })).status).toBe(200);
    await waitUntil(() => !!toAlice('Delete', replyUri), 20_000);
    const deleted = toAlice('Delete', replyUri)!.body as Json;
    expect(deleted.object).toMatchObject({ type: 'Tombstone', id: replyUri });
    expect(JSON.stringify(deleted.cc)).toContain(alice.actorId);
    expect((await threads()).find((t) => t.id === remoteId)!.replies).toEqual([]);
    expect(await eventsOf(replyId)).toEqual(['create', 'delete']);
  }, 90_000);

  it('deletes a note that answered someone with a Delete they get too', async () => {
    const statusUri = `${peer.origin}/users/bob/statuses/7`;
    const created = await admin$('/api/admin/fediverse/notes', {
      method: 'POST',
      body: { content: 'Leeks, yes.', inReplyTo: statusUri },
    });
    expect(created.status).toBe(201);
    const noteUri = `${SITE_URL}/notes/${created.json.id as number}`;
    await waitUntil(() => bobInbox.some((b) => b.type === 'Create' && b.object?.id === noteUri), 20_000);
    expect(
      (await admin$(`/api/admin/fediverse/notes/${created.json.id as number}`, { method: 'DELETE' })).status,
    ).toBe(200);
    await waitUntil(() => bobInbox.some((b) => b.type === 'Delete' && b.object?.id === noteUri), 20_000);
    const deleted = bobInbox.find((b) => b.type === 'Delete' && b.object?.id === noteUri)!;
    expect(deleted.object).toMatchObject({ type: 'Tombstone' });
    expect(JSON.stringify(deleted.cc)).toContain(bob.actorId);
  }, 60_000);

  it("takes the owner's reply back with Delete when its comment's author deletes the comment", async () => {
    const noteUri = `${alice.actorId}/statuses/2`;
    const commentId = await fediverseComment(
      await alice.signedPost(`${SITE_URL}/ap/inbox`, commentCreate(alice.actorId, noteUri)),
      noteUri,
    );
    const replyId = (await reply(commentId, 'An answer.')).json.id as number;
    const replyUri = `${SITE_URL}/post/${postId}#comment-${replyId}`;
    await waitUntil(() => !!toAlice('Create', replyUri), 20_000);

    const deletion = await alice.signedPost(`${SITE_URL}/ap/inbox`, {
      '@context': AS,
      id: `${noteUri}#delete`,
      type: 'Delete',
      actor: alice.actorId,
      to: [`${AS}#Public`],
      object: { id: noteUri, type: 'Tombstone' },
    });
    expect(await sendSigned(deletion)).toBe(202);
    await waitUntil(() => !!toAlice('Delete', replyUri), 20_000);
    expect(toAlice('Delete', replyUri)!.body.object).toMatchObject({ type: 'Tombstone', id: replyUri });
    expect(await eventsOf(replyId)).toEqual(['create', 'delete']);
    expect((await threads()).some((t) => t.id === commentId)).toBe(false);
  }, 60_000);

  it("takes the owner's reply back with Delete when a block removes its comment", async () => {
    const noteUri = `${bob.actorId}/statuses/8`;
    const commentId = await fediverseComment(
      await peer.signedPost(
        `${SITE_URL}/ap/inbox`,
        commentCreate(bob.actorId, noteUri),
        bob.rsa.privateKey,
        bob.keyId,
      ),
      noteUri,
    );
    const replyId = (await reply(commentId, 'Thanks.')).json.id as number;
    const replyUri = `${SITE_URL}/post/${postId}#comment-${replyId}`;
    await waitUntil(() => bobInbox.some((b) => b.type === 'Create' && b.object?.id === replyUri), 20_000);

    const blocked = await admin$('/api/admin/fediverse/blocks', {
      method: 'POST',
      body: { actor: bob.actorId },
    });
    expect(blocked.status).toBe(201);
    expect(blocked.json.removedComments).toBe(1);
    // Owed to the blog's followers and the mentioned author (whose server the block now skips).
    await until(async () => (await eventsOf(replyId)).join() === 'create,delete', 20_000);
    expect((await threads()).some((t) => t.id === commentId)).toBe(false);
    expect(
      (
        await db.query(
          `SELECT tombstone FROM posts.federation_events WHERE comment_id = $1 AND kind = 'delete'`,
          [replyId],
        )
      ).rows[0].tombstone,
    ).toMatchObject({ uri: replyUri });
  }, 60_000);

  it('sends a reply that was never delivered no Delete: its Create is dropped instead', async () => {
    const [{ id: commentId }] = (
      await db.query(`SELECT id FROM posts.comments WHERE via = 'Mastodon' AND post_id = $1`, [postId])
    ).rows as { id: number }[];
    // Nothing is handed over any more (social is stopped): the reply's Create is still waiting when deleted.
    await stack.services.social!.close();
    const answer = await reply(commentId!, 'One more thing.');
    expect(answer.json).toMatchObject({ federated: true });
    const replyId = answer.json.id as number;
    expect(await eventsOf(replyId)).toEqual(['create']);
    expect((await admin$(`/api/admin/comments/${replyId}`, { method: 'DELETE' })).status).toBe(200);
    expect(await eventsOf(replyId)).toEqual([]);
  });
});
