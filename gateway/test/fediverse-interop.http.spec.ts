/**
 * Interoperability through the real gateway, posts and social services, with a Mastodon-shaped
 * server on loopback: a quote request answered with a dereferenceable stamp and counted with
 * the post's likes and boosts; a follower's Move; the owner's Move (422 unless the target lists
 * the blog; then Move to the followers and movedTo on the actor); admins only.
 */
import type express from 'express';
import type { FollowerListResult, ReactionCounts } from '@blog/contracts';
import { startPeer, type Peer, type PeerAccount } from '../../libs/federation/test/support/peer.js';
import {
  ACTIVITY_JSON,
  deliverSigned,
  eventually,
  raw,
  SITE_URL,
  startFediverseStack,
} from './support/fediverse.js';
import { fields, multipart } from './support/media-fixtures.js';
import { ADMIN, api, loginAs, type TestStack } from './support/test-stack.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const BLOG_ACTOR = `${SITE_URL}/ap/actor/blog`;
const AS = 'https://www.w3.org/ns/activitystreams';
const ALIASES = { alsoKnownAs: { '@id': 'as:alsoKnownAs', '@type': '@id' } };

describe('fediverse interoperability through the stack', () => {
  let stack: TestStack;
  let peer: Peer;
  let admin: string;
  let reader: string;
  let alice: PeerAccount;
  let bob: PeerAccount;
  let postId: number;
  const received: { inbox: string; activity: Json }[] = [];

  const deliver = async (from: PeerAccount, activity: Json) => {
    const answer = await deliverSigned(stack, peer, from, activity);
    expect(answer.status).toBe(202);
  };
  const sentTo = (account: PeerAccount, type: string, match: (a: Json) => boolean = () => true) =>
    eventually(`${type} to ${account.actorId}`, async () =>
      received.find(
        (r) => r.inbox === `${account.actorId}/inbox` && r.activity.type === type && match(r.activity),
      ),
    );
  const listen = (account: PeerAccount) =>
    peer.serve(`/users/${account.actorId.split('/').pop()}/inbox`, (req: express.Request) => {
      received.push({ inbox: `${account.actorId}/inbox`, activity: JSON.parse(String(req.body)) as Json });
      return { status: 202 };
    });
  /** An account whose actor lists `aliases` in alsoKnownAs. */
  const withAliases = async (name: string, aliases: string[]) => {
    const account = await peer.account(name);
    const actor = account.actor();
    peer.serve(`/users/${name}`, {
      body: { ...actor, '@context': [[actor['@context']].flat(), ALIASES].flat(), alsoKnownAs: aliases },
    });
    listen(account);
    return account;
  };
  const followers = async () =>
    (
      (await api(stack, '/api/admin/fediverse/followers', { token: admin }))
        .json as unknown as FollowerListResult
    ).items;
  const actor = async () =>
    JSON.parse((await raw(stack, '/ap/actor/blog', { headers: { accept: ACTIVITY_JSON } })).body) as Json;
  const follow = async (account: PeerAccount) => {
    await deliver(account, {
      '@context': AS,
      id: `${account.actorId}#follows/1`,
      type: 'Follow',
      actor: account.actorId,
      object: BLOG_ACTOR,
    });
    await eventually('follower', async () =>
      (await followers()).some((f) => f.handle.includes(account.actorId.split('/').pop()!)),
    );
  };

  beforeAll(async () => {
    peer = await startPeer();
    [alice, bob] = await Promise.all([peer.account('alice'), peer.account('bob')]);
    listen(alice);
    listen(bob);
    // The server's shared inbox: what the blog sends to all its followers there goes there.
    peer.serve('/inbox', (req: express.Request) => {
      received.push({ inbox: `${peer.origin}/inbox`, activity: JSON.parse(String(req.body)) as Json });
      return { status: 202 };
    });
    stack = await startFediverseStack({ FEDERATION_POLL_MS: '200' });
    admin = await loginAs(stack, ADMIN.username, ADMIN.password);
    await api(stack, '/api/auth/register', { body: { username: 'visitor', password: 'visitor-password-1' } });
    reader = await loginAs(stack, 'visitor', 'visitor-password-1');
    const { body, contentType } = multipart(
      fields({ content: 'Text.', category: 'More', title: 'Quotable' }),
    );
    const created = await fetch(`${stack.baseUrl}/api/posts`, {
      method: 'POST',
      headers: { 'content-type': contentType, authorization: `Bearer ${admin}` },
      body,
    });
    postId = ((await created.json()) as { id: number }).id;
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    await peer?.close();
  });

  it('answers a quote request with a stamp served at our URL, and counts the quote with the likes and boosts', async () => {
    const requestId = `${alice.actorId}/quote_requests/1`;
    await deliver(alice, {
      '@context': [AS, { QuoteRequest: 'https://w3id.org/fep/044f#QuoteRequest' }],
      id: requestId,
      type: 'QuoteRequest',
      actor: alice.actorId,
      object: `${SITE_URL}/post/${postId}`,
      instrument: `${alice.actorId}/statuses/1`,
    });
    const accept = (await sentTo(alice, 'Accept', (a) => a.object === requestId)).activity;
    expect(accept.result).toMatch(new RegExp(`^${SITE_URL}/ap/quotes/[A-Za-z0-9_-]{22}$`));
    const stamp = await raw(stack, new URL(accept.result as string).pathname, {
      headers: { accept: ACTIVITY_JSON },
    });
    expect(stamp.status).toBe(200);
    expect(JSON.parse(stamp.body)).toMatchObject({
      type: 'QuoteAuthorization',
      attributedTo: BLOG_ACTOR,
      interactingObject: `${alice.actorId}/statuses/1`,
      interactionTarget: `${SITE_URL}/post/${postId}`,
    });
    const counts = (await api(stack, `/api/admin/fediverse/reactions?ids=${postId}`, { token: admin }))
      .json as unknown as ReactionCounts;
    expect(counts[postId]).toEqual({ likes: 0, announces: 0, quotes: 1 });
  });

  it("counts a note's likes, boosts and quotes as a post's, and takes an undone like back", async () => {
    const written = await api(stack, '/api/admin/fediverse/notes', {
      body: { content: 'Short and sweet.' },
      token: admin,
    });
    expect(written.status).toBe(201);
    const noteId = written.json.id as number;
    const noteUri = `${SITE_URL}/notes/${noteId}`;
    const like = { id: `${bob.actorId}#likes/note-1`, type: 'Like', actor: bob.actorId, object: noteUri };
    await deliver(bob, { '@context': AS, ...like });
    await deliver(bob, {
      '@context': AS,
      id: `${bob.actorId}/statuses/9/activity`,
      type: 'Announce',
      actor: bob.actorId,
      object: noteUri,
      to: [`${AS}#Public`],
    });
    const requestId = `${bob.actorId}/quote_requests/note-1`;
    await deliver(bob, {
      '@context': [AS, { QuoteRequest: 'https://w3id.org/fep/044f#QuoteRequest' }],
      id: requestId,
      type: 'QuoteRequest',
      actor: bob.actorId,
      object: noteUri,
      instrument: `${bob.actorId}/statuses/10`,
    });
    await sentTo(bob, 'Accept', (a) => a.object === requestId);
    const counts = async () =>
      (await api(stack, `/api/admin/fediverse/reactions?notes=${noteId}`, { token: admin }))
        .json as unknown as ReactionCounts;
    await eventually(
      'the note counted',
      async () =>
        JSON.stringify((await counts())[noteId]) === JSON.stringify({ likes: 1, announces: 1, quotes: 1 }) ||
        undefined,
    );

    await deliver(bob, {
      '@context': AS,
      id: `${bob.actorId}#undo/note-1`,
      type: 'Undo',
      actor: bob.actorId,
      object: like,
    });
    await eventually('the like taken back', async () =>
      (await counts())[noteId]?.likes === 0 ? true : undefined,
    );
    const both = await api(stack, `/api/admin/fediverse/reactions?ids=1&notes=${noteId}`, { token: admin });
    expect([both.status, both.json.error]).toEqual([400, 'give ids (posts) or notes, not both']);
    expect((await api(stack, '/api/admin/fediverse/reactions?notes=x', { token: admin })).status).toBe(400);
  });

  it("a follower's Move to an account listing the old one makes the new account the follower", async () => {
    await follow(bob);
    const newBob = await withAliases('bob_new', [bob.actorId]);
    await deliver(bob, {
      '@context': AS,
      id: `${bob.actorId}#moves/1`,
      type: 'Move',
      actor: bob.actorId,
      object: bob.actorId,
      target: newBob.actorId,
    });
    await eventually('moved follower', async () =>
      (await followers()).some((f) => f.handle.startsWith('@bob_new@')),
    );
    expect((await followers()).some((f) => f.handle.startsWith('@bob@'))).toBe(false);
  });

  it("the owner's move: admins only, 400 for a bad target, 422 unless the target lists the blog; then Move and movedTo", async () => {
    await follow(alice);
    const path = '/api/admin/fediverse/move';
    expect((await api(stack, path, { body: { target: alice.actorId } })).status).toBe(401);
    expect((await api(stack, path, { body: { target: alice.actorId }, token: reader })).status).toBe(403);
    expect((await api(stack, path, { body: { target: 'not a url' }, token: admin })).status).toBe(400);
    const refused = await api(stack, path, { body: { target: alice.actorId }, token: admin });
    expect(refused.status).toBe(422);
    expect(refused.json.error).toMatch(/alsoKnownAs/);
    expect((await actor()).movedTo).toBeUndefined();

    const home = await withAliases('home', [BLOG_ACTOR]);
    const moved = await api(stack, path, { body: { target: home.actorId }, token: admin });
    expect([moved.status, moved.json]).toEqual([200, { movedTo: home.actorId }]);
    const move = (
      await eventually('Move at the shared inbox', async () =>
        received.find((r) => r.inbox === `${peer.origin}/inbox` && r.activity.type === 'Move'),
      )
    ).activity;
    expect(move).toMatchObject({ actor: BLOG_ACTOR, object: BLOG_ACTOR, target: home.actorId });
    const site = (await api(stack, '/api/site')).json as Json;
    expect(site.fediverse.movedTo).toBe(home.actorId);
    // The social service reads the site at most 5 s late.
    await eventually('movedTo on the actor', async () => (await actor()).movedTo === home.actorId, 15_000);
  });
});
