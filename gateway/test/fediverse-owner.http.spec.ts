/**
 * The owner's side of the fediverse through the real gateway, social and media services, with
 * a Mastodon-shaped server on loopback: following by handle (WebFinger) and by URL, its Accept
 * and Reject, an Undo on unfollow; the Reader (a followed account's Note, sanitised, with its
 * content warning and its picture cached, a boost of someone else's post, an edit, a delete,
 * the retention); likes and boosts with their Undo; notifications with the unread count.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyRequest } from '@fedify/fedify';
import type express from 'express';
import pg from 'pg';
import sharp from 'sharp';
import {
  OwnerFediverseErrors,
  type FollowingListResult,
  type FollowingView,
  type NotificationsPage,
  type ReaderPage,
} from '@blog/contracts';
import {
  serveWebFinger,
  startPeer,
  type Peer,
  type PeerAccount,
} from '../../libs/federation/test/support/peer.js';
import { deliverSigned, eventually, raw, SITE_URL, startFediverseStack } from './support/fediverse.js';
import { fields, multipart } from './support/media-fixtures.js';
import { ADMIN, api, loginAs, type TestStack } from './support/test-stack.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const BLOG_ACTOR = `${SITE_URL}/ap/actor/blog`;
const AS = 'https://www.w3.org/ns/activitystreams';

describe('the owner in the fediverse', () => {
  let stack: TestStack;
  let peer: Peer;
  let admin: string;
  let reader: string;
  let alice: PeerAccount;
  let bob: PeerAccount;
  let carol: PeerAccount;
  let db: pg.Client;
  let pictures: Server;
  let picturesOrigin: string;
  /** What each peer inbox was sent, with whether its signature verified against the blog's key. */
  const received: { inbox: string; activity: Json; request: Request }[] = [];

  const admin$ = (path: string, init: { method?: string; body?: unknown } = {}) =>
    api(stack, path, { ...init, token: admin });

  /** A signed POST from a peer account to the blog's shared inbox, as its server sends one. */
  const deliver = async (from: PeerAccount, activity: Json) => {
    const answer = await deliverSigned(stack, peer, from, activity);
    expect([answer.status, answer.body]).toEqual([202, 'Activity is enqueued.']);
  };
  const sentTo = (account: PeerAccount, type: string, match: (a: Json) => boolean = () => true) =>
    eventually(`${type} to ${account.actorId}`, async () =>
      received.find(
        (r) => r.inbox === `${account.actorId}/inbox` && r.activity.type === type && match(r.activity),
      ),
    );
  const readerPage = async (cursor?: string) =>
    (await admin$(`/api/admin/fediverse/reader${cursor ? `?cursor=${cursor}` : ''}`))
      .json as unknown as ReaderPage;
  const following = async () =>
    (await admin$('/api/admin/fediverse/following')).json as unknown as FollowingListResult;
  const notifications = async () =>
    (await admin$('/api/admin/fediverse/notifications')).json as unknown as NotificationsPage;

  const note = (author: PeerAccount, n: number, extra: Json = {}) => ({
    id: `${author.actorId}/statuses/${n}`,
    type: 'Note',
    attributedTo: author.actorId,
    content: `<p>Note ${n} from ${author.actorId.split('/').pop()}</p>`,
    published: new Date().toISOString(),
    to: [`${AS}#Public`],
    url: `${author.actorId.replace('/users/', '/@')}/${n}`,
    ...extra,
  });
  const create = (author: PeerAccount, object: Json) => ({
    '@context': AS,
    id: `${object.id}/activity`,
    type: 'Create',
    actor: author.actorId,
    object,
    to: [`${AS}#Public`],
  });

  beforeAll(async () => {
    peer = await startPeer();
    [alice, bob, carol] = await Promise.all([
      peer.account('alice'),
      peer.account('bob'),
      peer.account('carol'),
    ]);
    serveWebFinger(peer, ['alice', 'bob', 'carol']);
    for (const account of [alice, bob, carol])
      peer.serve(`/users/${account.actorId.split('/').pop()}/inbox`, async (req: express.Request) => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(req.headers))
          if (typeof value === 'string') headers.set(name, value);
        const request = new Request(`${peer.origin}${req.originalUrl}`, {
          method: 'POST',
          headers,
          body: req.body,
        });
        received.push({
          inbox: `${account.actorId}/inbox`,
          activity: JSON.parse(String(req.body)) as Json,
          request,
        });
        return { status: 202 };
      });
    const png = await sharp({
      create: { width: 1600, height: 900, channels: 3, background: { r: 200, g: 40, b: 40 } },
    })
      .png()
      .toBuffer();
    // The pictures' own server (the peer answers JSON only).
    pictures = createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(png));
    pictures.listen(0, '127.0.0.1');
    await once(pictures, 'listening');
    picturesOrigin = `http://127.0.0.1:${(pictures.address() as AddressInfo).port}`;
    stack = await startFediverseStack({ READER_PURGE_MS: '500', FEDERATION_POLL_MS: '200' });
    admin = await loginAs(stack, ADMIN.username, ADMIN.password);
    await api(stack, '/api/auth/register', { body: { username: 'visitor', password: 'visitor-password-1' } });
    reader = await loginAs(stack, 'visitor', 'visitor-password-1');
    db = new pg.Client({ connectionString: stack.env.DATABASE_URL });
    await db.connect();
  }, 120_000);
  afterAll(async () => {
    await db?.end();
    await stack?.stop();
    await peer?.close();
    pictures?.close();
  });

  it('refuses every route to a visitor (401) and to a reader who is not an admin (403)', async () => {
    const routes: [string, string, unknown?][] = [
      ['POST', '/api/admin/fediverse/following', { account: '@alice@example.org' }],
      ['GET', '/api/admin/fediverse/following'],
      ['DELETE', '/api/admin/fediverse/following/1'],
      ['GET', '/api/admin/fediverse/reader'],
      ['POST', '/api/admin/fediverse/likes', { object: 'https://example.org/notes/1' }],
      ['DELETE', '/api/admin/fediverse/boosts', { object: 'https://example.org/notes/1' }],
      ['GET', '/api/admin/fediverse/notifications'],
      ['GET', '/api/admin/fediverse/notifications/unread'],
      ['POST', '/api/admin/fediverse/notifications/read', {}],
    ];
    for (const [method, path, body] of routes) {
      expect([path, (await api(stack, path, { method, body })).status]).toEqual([path, 401]);
      expect([path, (await api(stack, path, { method, body, token: reader })).status]).toEqual([path, 403]);
    }
  });

  it('answers bad input with 400 and an account that does not answer with 422, following no one', async () => {
    for (const body of [
      {},
      { account: 42 },
      { account: 'alice' },
      { account: 'javascript:alert(1)' },
      { account: 'x'.repeat(3000) },
    ])
      expect((await admin$('/api/admin/fediverse/following', { method: 'POST', body })).status).toBe(400);
    const host = new URL(peer.origin).host;
    const nobody = await admin$('/api/admin/fediverse/following', {
      method: 'POST',
      body: { account: `@nobody@${host}` },
    });
    expect([nobody.status, nobody.json.error]).toEqual([422, OwnerFediverseErrors.notFound]);
    // A private address the outbound policy does not allow is not fetched at all.
    const privateHost = await admin$('/api/admin/fediverse/following', {
      method: 'POST',
      body: { account: 'http://10.1.2.3/users/x' },
    });
    expect(privateHost.status).toBe(422);
    expect((await admin$('/api/admin/fediverse/reader?cursor=abc')).status).toBe(400);
    expect(
      (await admin$('/api/admin/fediverse/likes', { method: 'POST', body: { object: 'ftp://x/y' } })).status,
    ).toBe(400);
    expect((await following()).items).toEqual([]);
  });

  it('follows by handle through WebFinger: a signed Follow, pending until the Accept', async () => {
    const host = new URL(peer.origin).host;
    const answer = await admin$('/api/admin/fediverse/following', {
      method: 'POST',
      body: { account: `@alice@${host}` },
    });
    expect(answer.status).toBe(201);
    const view = answer.json as unknown as FollowingView;
    expect(view).toMatchObject({ uri: alice.actorId, handle: `@alice@${host}`, status: 'pending' });
    const follow = (await sentTo(alice, 'Follow')).activity;
    expect(follow).toMatchObject({ actor: BLOG_ACTOR, object: alice.actorId });
    // Alice's server accepts it: the blog now follows her.
    await deliver(alice, {
      '@context': AS,
      id: `${alice.actorId}#accepts/1`,
      type: 'Accept',
      actor: alice.actorId,
      object: follow.id,
    });
    await eventually('accepted', async () => (await following()).items.find((f) => f.status === 'accepted'));
    // The actor's following collection lists her.
    const collection = await raw(stack, '/ap/actor/blog/following?cursor=0', {
      headers: { accept: 'application/activity+json' },
    });
    expect(collection.body).toContain(alice.actorId);
  });

  it('follows by actor URL too, and honours a Reject', async () => {
    const answer = await admin$('/api/admin/fediverse/following', {
      method: 'POST',
      body: { account: bob.actorId },
    });
    expect(answer.status).toBe(201);
    const follow = (await sentTo(bob, 'Follow')).activity;
    await deliver(bob, {
      '@context': AS,
      id: `${bob.actorId}#rejects/1`,
      type: 'Reject',
      actor: bob.actorId,
      object: follow.id,
    });
    await eventually('rejected', async () =>
      (await following()).items.find((f) => f.uri === bob.actorId && f.status === 'rejected'),
    );
    // Following again is a new request; bob accepts this time.
    await admin$('/api/admin/fediverse/following', { method: 'POST', body: { account: bob.actorId } });
    const again = (await sentTo(bob, 'Follow', (a) => a !== follow)).activity;
    await deliver(bob, {
      '@context': AS,
      id: `${bob.actorId}#accepts/2`,
      type: 'Accept',
      actor: bob.actorId,
      object: again.id,
    });
    await eventually('bob accepted', async () =>
      (await following()).items.find((f) => f.uri === bob.actorId && f.status === 'accepted'),
    );
  });

  it('puts what a followed account posts in the Reader: sanitised, folded behind its warning, its picture cached', async () => {
    await deliver(
      alice,
      create(
        alice,
        note(alice, 1, {
          content:
            '<p>Hello <script>alert(1)</script><a href="javascript:alert(2)" onclick="x()">there</a> <img src=x onerror=alert(3)></p>',
          summary: 'Spoilers',
          sensitive: true,
          attachment: [
            {
              type: 'Document',
              mediaType: 'image/png',
              url: `${picturesOrigin}/media/red.png`,
              name: 'A red square',
            },
          ],
        }),
      ),
    );
    const page = await eventually('the Reader entry', async () => {
      const p = await readerPage();
      return p.items.length > 0 ? p : null;
    });
    const item = page.items[0]!;
    expect(item).toMatchObject({
      object: `${alice.actorId}/statuses/1`,
      type: 'Note',
      summary: 'Spoilers',
      sensitive: true,
      boostedBy: null,
      liked: false,
      boosted: false,
      author: { uri: alice.actorId, name: 'alice' },
    });
    expect(item.content).not.toMatch(/script|onerror|onclick|javascript:|<img/i);
    expect(item.content).toContain('there');
    expect(item.attachments).toHaveLength(1);
    expect(item.attachments[0]).toMatchObject({ mediaType: 'image/webp', alt: 'A red square' });
    expect(item.attachments[0]!.url).toMatch(/^\/uploads\/media\/pictures\/[0-9a-f]{64}\/\d{12}\.webp$/);
    // The copy is the blog's own: re-encoded, at most 1280 px wide.
    const copy = await fetch(`${stack.baseUrl}${item.attachments[0]!.url}`);
    expect(copy.status).toBe(200);
    const meta = await sharp(Buffer.from(await copy.arrayBuffer())).metadata();
    expect([meta.format, meta.width]).toEqual(['webp', 1280]);
  });

  it('keeps what an account the blog does not follow out of the Reader, and takes a boost by one it follows', async () => {
    await deliver(carol, create(carol, note(carol, 7)));
    await deliver(bob, {
      '@context': AS,
      id: `${bob.actorId}/statuses/99/activity`,
      type: 'Announce',
      actor: bob.actorId,
      object: `${carol.actorId}/statuses/7`,
      to: [`${AS}#Public`],
    });
    peer.serve('/users/carol/statuses/7', { body: { '@context': AS, ...note(carol, 7) } });
    const boosted = await eventually('the boost', async () =>
      (await readerPage()).items.find((i) => i.boostedBy?.uri === bob.actorId),
    );
    expect(boosted).toMatchObject({ object: `${carol.actorId}/statuses/7`, author: { uri: carol.actorId } });
    // Carol's own Create (the blog does not follow her) made no entry of its own.
    expect((await readerPage()).items.filter((i) => i.object === `${carol.actorId}/statuses/7`)).toHaveLength(
      1,
    );
    // Bob takes the boost back: the entry goes.
    await deliver(bob, {
      '@context': AS,
      id: `${bob.actorId}/statuses/99/undo`,
      type: 'Undo',
      actor: bob.actorId,
      object: `${bob.actorId}/statuses/99/activity`,
    });
    await eventually('the boost gone', async () =>
      (await readerPage()).items.every((i) => i.boostedBy === null),
    );
  });

  it('sends a like and a boost to the author, and their Undo; the Reader shows them', async () => {
    const object = `${alice.actorId}/statuses/1`;
    peer.serve('/users/alice/statuses/1', { body: { '@context': AS, ...note(alice, 1) } });
    const like = await admin$('/api/admin/fediverse/likes', { method: 'POST', body: { object } });
    expect([like.status, like.json]).toEqual([200, { object, kind: 'like', active: true }]);
    const liked = (await sentTo(alice, 'Like')).activity;
    expect(liked).toMatchObject({ actor: BLOG_ACTOR, object });
    const boost = await admin$('/api/admin/fediverse/boosts', { method: 'POST', body: { object } });
    expect(boost.status).toBe(200);
    const announce = (await sentTo(alice, 'Announce')).activity;
    expect(announce).toMatchObject({ actor: BLOG_ACTOR, object });
    const item = (await readerPage()).items.find((i) => i.object === object)!;
    expect([item.liked, item.boosted]).toEqual([true, true]);
    // A repeat sends nothing new.
    await admin$('/api/admin/fediverse/likes', { method: 'POST', body: { object } });
    expect((await admin$('/api/admin/fediverse/likes', { method: 'DELETE', body: { object } })).status).toBe(
      200,
    );
    const undoLike = (await sentTo(alice, 'Undo', (a) => a.object?.type === 'Like')).activity;
    expect(undoLike.object.id).toBe(liked.id);
    await admin$('/api/admin/fediverse/boosts', { method: 'DELETE', body: { object } });
    const undoBoost = (await sentTo(alice, 'Undo', (a) => a.object?.type === 'Announce')).activity;
    expect(undoBoost.object.id).toBe(announce.id);
    expect(received.filter((r) => r.activity.type === 'Like')).toHaveLength(1);
    const after = (await readerPage()).items.find((i) => i.object === object)!;
    expect([after.liked, after.boosted]).toEqual([false, false]);
    // A post that cannot be fetched is a 422, and nothing is sent.
    const missing = await admin$('/api/admin/fediverse/likes', {
      method: 'POST',
      body: { object: `${alice.actorId}/statuses/404` },
    });
    expect([missing.status, missing.json.error]).toEqual([422, OwnerFediverseErrors.objectNotFound]);
  });

  it('signs what it sends with the blog actor key, which its actor document lists', async () => {
    // The blog's documents, fetched from the stack (its SITE_URL is not a real host).
    const documentLoader = async (url: string) => {
      const answer = await raw(stack, new URL(url).pathname, {
        headers: { accept: 'application/activity+json' },
      });
      return { contextUrl: null, documentUrl: url, document: JSON.parse(answer.body) as unknown };
    };
    for (const type of ['Follow', 'Like', 'Announce']) {
      const sent = received.find((r) => r.activity.type === type)!;
      const key = await verifyRequest(sent.request.clone(), { documentLoader });
      expect([type, key?.id?.href]).toEqual([type, `${BLOG_ACTOR}#main-key`]);
    }
    // A body changed on the way no longer verifies.
    const like = received.find((r) => r.activity.type === 'Like')!;
    const tampered = new Request(like.request.url, {
      method: 'POST',
      headers: like.request.headers,
      body: JSON.stringify({ ...like.activity, object: `${carol.actorId}/statuses/7` }),
    });
    expect(await verifyRequest(tampered, { documentLoader })).toBeNull();
  });

  it('applies an edit and a delete by the author to the Reader', async () => {
    const object = `${alice.actorId}/statuses/1`;
    await deliver(alice, {
      '@context': AS,
      id: `${object}#update-1`,
      type: 'Update',
      actor: alice.actorId,
      object: note(alice, 1, { content: '<p>Edited text</p>' }),
    });
    await eventually('the edit', async () =>
      (await readerPage()).items.find((i) => i.object === object && i.content.includes('Edited text')),
    );
    await deliver(alice, {
      '@context': AS,
      id: `${object}#delete`,
      type: 'Delete',
      actor: alice.actorId,
      object: { type: 'Tombstone', id: object },
    });
    await eventually('the delete', async () => !(await readerPage()).items.some((i) => i.object === object));
  });

  it('pages the Reader newest first with a cursor', async () => {
    for (let n = 10; n < 35; n++) await deliver(alice, create(alice, note(alice, n)));
    await eventually('25 notes', async () => {
      const { rows } = await db.query(
        `SELECT count(*)::int AS n FROM social.reader_items WHERE object_uri LIKE $1`,
        [`${alice.actorId}/statuses/%`],
      );
      return rows[0].n >= 25;
    });
    const first = await readerPage();
    expect(first.items).toHaveLength(20);
    expect(first.next).toBe(first.items.at(-1)!.id);
    const second = await readerPage(first.next!);
    const ids = [...first.items, ...second.items].map((i) => Number(i.id));
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(new Set(ids).size).toBe(ids.length);
    expect(second.next).toBeNull();
  });

  it('tells the owner of follows, mentions, replies and likes, with an unread count', async () => {
    await deliver(carol, {
      '@context': AS,
      id: `${carol.actorId}#follows/1`,
      type: 'Follow',
      actor: carol.actorId,
      object: BLOG_ACTOR,
    });
    await deliver(
      carol,
      create(
        carol,
        note(carol, 50, {
          content: '<p>Hey <a href="https://blog.example/">@blog</a> look</p>',
          tag: [{ type: 'Mention', href: BLOG_ACTOR, name: '@blog@blog.example' }],
        }),
      ),
    );
    // A reply to one of the blog's posts, and a like of it.
    const { body, contentType } = multipart(
      fields({ content: 'Text.', category: 'More', title: 'Replied to' }),
    );
    const created = await fetch(`${stack.baseUrl}/api/posts`, {
      method: 'POST',
      headers: { 'content-type': contentType, authorization: `Bearer ${admin}` },
      body,
    });
    const postId = ((await created.json()) as { id: number }).id;
    const article = `${SITE_URL}/post/${postId}`;
    await deliver(carol, create(carol, note(carol, 51, { content: '<p>Nice post</p>', inReplyTo: article })));
    await deliver(carol, {
      '@context': AS,
      id: `${carol.actorId}#likes/1`,
      type: 'Like',
      actor: carol.actorId,
      object: article,
    });
    const page = await eventually('four notifications', async () => {
      const p = await notifications();
      return p.items.length >= 4 ? p : null;
    });
    expect(page.items.map((i) => i.kind).sort()).toEqual(['follow', 'like', 'mention', 'reply']);
    const mention = page.items.find((i) => i.kind === 'mention')!;
    expect(mention).toMatchObject({ actor: { uri: carol.actorId }, excerpt: 'Hey @blog look', read: false });
    expect(page.items.find((i) => i.kind === 'reply')).toMatchObject({
      object: `${carol.actorId}/statuses/51`,
      excerpt: 'Nice post',
    });
    expect(page.items.find((i) => i.kind === 'like')).toMatchObject({ object: article, excerpt: null });
    expect(page.unread).toBe(4);
    expect((await admin$('/api/admin/fediverse/notifications/unread')).json).toEqual({ unread: 4 });
    // The same activity delivered again is told once.
    await deliver(carol, {
      '@context': AS,
      id: `${carol.actorId}#follows/1`,
      type: 'Follow',
      actor: carol.actorId,
      object: BLOG_ACTOR,
    });
    // Read up to the second newest: the newest stays unread.
    const upTo = page.items[1]!.id;
    expect(
      (await admin$('/api/admin/fediverse/notifications/read', { method: 'POST', body: { upTo } })).json,
    ).toEqual({
      marked: 3,
    });
    expect(
      (await admin$('/api/admin/fediverse/notifications/read', { method: 'POST', body: {} })).json,
    ).toEqual({
      marked: 1,
    });
    const after = await notifications();
    expect([after.unread, after.items.length, after.items.every((i) => i.read)]).toEqual([0, 4, true]);
    expect(
      (await admin$('/api/admin/fediverse/notifications/read', { method: 'POST', body: { upTo: 'x' } }))
        .status,
    ).toBe(400);
  });

  it('deletes Reader entries past the retention, and their cached pictures', async () => {
    await deliver(
      bob,
      create(
        bob,
        note(bob, 3, {
          attachment: [
            { type: 'Image', mediaType: 'image/png', url: `${picturesOrigin}/media/red.png?b=1`, name: '' },
          ],
        }),
      ),
    );
    const item = await eventually('bob’s entry', async () =>
      (await readerPage()).items.find((i) => i.object === `${bob.actorId}/statuses/3`),
    );
    const picture = item.attachments[0]!.url;
    expect((await fetch(`${stack.baseUrl}${picture}`)).status).toBe(200);
    await db.query(
      `UPDATE social.reader_items SET received_at = now() - interval '31 days' WHERE object_uri = $1`,
      [item.object],
    );
    await eventually(
      'the purge',
      async () => !(await readerPage()).items.some((i) => i.object === item.object),
    );
    await eventually(
      'the picture gone',
      async () => (await fetch(`${stack.baseUrl}${picture}`)).status === 404,
    );
  });

  it('unfollows with Undo{Follow}: the account leaves the list and its posts stop reaching the Reader', async () => {
    const row = (await following()).items.find((f) => f.uri === alice.actorId)!;
    expect((await admin$(`/api/admin/fediverse/following/${row.id}`, { method: 'DELETE' })).status).toBe(200);
    const undo = (await sentTo(alice, 'Undo', (a) => a.object?.type === 'Follow')).activity;
    expect(undo.object).toMatchObject({ actor: BLOG_ACTOR, object: alice.actorId });
    expect((await following()).items.some((f) => f.uri === alice.actorId)).toBe(false);
    expect((await admin$(`/api/admin/fediverse/following/${row.id}`, { method: 'DELETE' })).status).toBe(404);
    await deliver(alice, create(alice, note(alice, 200)));
    // Bob's next note still arrives: after it, alice's would have too.
    await deliver(bob, create(bob, note(bob, 201)));
    await eventually('bob’s note', async () =>
      (await readerPage()).items.some((i) => i.object === `${bob.actorId}/statuses/201`),
    );
    expect((await readerPage()).items.some((i) => i.object === `${alice.actorId}/statuses/200`)).toBe(false);
  });
});
