import '../../../libs/federation/src/temporal.js';
import type { Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestMicroservice } from '@nestjs/common';
import {
  FEDERATION_MAX_BODY_BYTES,
  type AdminCommentsResult,
  Patterns,
  type FederationEvent,
  type FederationHttpAnswer,
  type FederationHttpRequest,
  type FollowerListResult,
  type IdempotentAnswer,
  type PostView,
} from '@blog/contracts';
import { loadPostsConfig, startPostsService } from '@blog/posts';
import { freePort, rpcTestClient, type RpcTestClient } from '@blog/server-kit/testing';
import { startMastodon, waitUntil, type MastodonFixture } from '../../../libs/federation/test/support/rig.js';
import { OutboundActivitiesRepository } from '../src/federation/outbound-activities.repository.js';
import { decodeAnswer, eventually, startGatewayStandIn, type Answer } from './support/gateway-stand-in.js';
import { startSocialStack, type SocialReplica, type SocialStack } from './support/social-stack.js';

const AP = 'application/activity+json';
const AS = 'https://www.w3.org/ns/activitystreams';
const POLL_MS = 200;

/**
 * The federation running in the social service, reached as the gateway reaches it
 * (social.federation.http), with the real posts service. A loopback stand-in for the gateway
 * serves SITE_URL over the same RPC, so the Mastodon-shaped fixture can fetch the blog's key
 * and check the signatures of what the blog delivers.
 */
describe('the federation in the social service', () => {
  let stack: SocialStack;
  let social: SocialReplica;
  let posts: INestMicroservice;
  let postsRpc: RpcTestClient;
  let front: Server;
  let dataDir: string;
  let site: string;
  let alice: MastodonFixture;
  let blogActor: string;

  beforeAll(async () => {
    stack = await startSocialStack();
    dataDir = await mkdtemp(join(tmpdir(), 'social-federation-'));
    const [postsPort, frontPort] = await Promise.all([freePort(), freePort()]);
    site = `http://127.0.0.1:${frontPort}`;
    blogActor = `${site}/ap/actor/blog`;
    const postsEnv = {
      DATABASE_URL: stack.db.url,
      DATA_DIR: dataDir,
      POSTS_PORT: String(postsPort),
      SITE_URL: site,
      LOG_LEVEL: 'error',
    };
    posts = await startPostsService(loadPostsConfig(postsEnv), postsEnv);
    postsRpc = rpcTestClient(postsPort);
    social = await stack.start({
      POSTS_PORT: String(postsPort),
      SITE_URL: site,
      // Tests only: the fixture and the stand-in gateway listen on loopback.
      OUTBOUND_ALLOW: '127.0.0.1',
      FEDERATION_POLL_MS: String(POLL_MS),
    });
    front = await startGatewayStandIn(frontPort, site, (pattern, request) => social.send(pattern, request));
    alice = await startMastodon();
  });

  afterAll(async () => {
    front?.closeAllConnections();
    front?.close();
    await alice?.close();
    postsRpc?.close();
    await stack?.stop();
    await posts?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  /** One request through social.federation.http, as the gateway sends it. */
  const federation = async (request: FederationHttpRequest) =>
    decodeAnswer(await social.send<FederationHttpAnswer>(Patterns.social.http, request));
  const get = (path: string, accept = AP) =>
    federation({ method: 'GET', url: `${site}${path}`, headers: [['accept', accept]] });
  const answered = async (path: string, accept?: string): Promise<Answer> => {
    const answer = await get(path, accept);
    if (answer === 'pass') throw new Error(`${path} passed to the blog's own routes`);
    return answer;
  };
  /** A Request (signed by the fixture, or not) through social.federation.http. */
  const deliver = async (request: Request) =>
    federation({
      method: 'POST',
      url: request.url,
      headers: [...request.headers],
      body: Buffer.from(await request.arrayBuffer()).toString('base64'),
    });
  const statusOf = (answer: Answer | 'pass') => (answer === 'pass' ? 'pass' : answer.status);

  const followers = () => social.send<FollowerListResult>(Patterns.social.listFollowers, {});
  const createPost = async (fields: Record<string, string>) =>
    (
      await postsRpc.send<IdempotentAnswer<PostView>>(Patterns.posts.create, {
        fields: { category: 'Projects', ...fields },
        files: [],
      })
    ).answer;

  it('webfinger answers the configured handle with a self link to the actor', async () => {
    const host = new URL(site).host;
    const answer = await answered(
      `/.well-known/webfinger?resource=${encodeURIComponent(`acct:blog@${host}`)}`,
      'application/jrd+json',
    );
    expect(answer.status).toBe(200);
    expect(answer.json.subject).toBe(`acct:blog@${host}`);
    expect(answer.json.links).toEqual(expect.arrayContaining([{ rel: 'self', type: AP, href: blogActor }]));
    // Another handle: the blog's own 404.
    expect(await get(`/.well-known/webfinger?resource=acct:nobody@${host}`)).toBe('pass');
  });

  it('the actor carries the site title, the welcome text, its keys, inboxes and collections', async () => {
    const answer = await answered('/ap/actor/blog');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toContain(AP);
    const actor = answer.json as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(actor).toMatchObject({
      id: blogActor,
      type: 'Person',
      preferredUsername: 'blog',
      name: 'My Personal Blog',
      inbox: `${blogActor}/inbox`,
      outbox: `${blogActor}/outbox`,
      followers: `${blogActor}/followers`,
      following: `${blogActor}/following`,
      endpoints: { sharedInbox: `${site}/ap/inbox` },
      image: { url: `${site}/banner.svg` },
      manuallyApprovesFollowers: false,
    });
    // The welcome text, escaped as HTML ("I'm" keeps its apostrophe as an entity).
    expect(actor.summary).toMatch(/^<p>Hi, I&#39;m the author of this blog\..*<\/p>$/);
    expect(actor.publicKey).toMatchObject({ id: expect.stringContaining(blogActor), owner: blogActor });
    expect(actor.publicKey.publicKeyPem).toContain('BEGIN PUBLIC KEY');
    expect(actor.assertionMethod).toHaveLength(2); // RSA and Ed25519 (FEP-521a)
    // A browser asking for the actor's URL gets the blog's own page (or its 404), not JSON.
    expect(await get('/ap/actor/blog', 'text/html')).toBe('pass');
  });

  it('NodeInfo 2.1 is linked from /.well-known/nodeinfo', async () => {
    const links = await answered('/.well-known/nodeinfo', 'application/json');
    expect(links.status).toBe(200);
    expect(links.json.links).toEqual(
      expect.arrayContaining([expect.objectContaining({ href: `${site}/nodeinfo/2.1` })]),
    );
    const info = await answered('/nodeinfo/2.1', 'application/json');
    expect(info.status).toBe(200);
    expect(info.json).toMatchObject({ version: '2.1', protocols: ['activitypub'], openRegistrations: false });
  });

  it("a visible post's Article by its id; a draft is the blog's 404", async () => {
    const post = await createPost({ title: 'Tomatoes in November', content: 'Still *red*.' });
    const answer = await answered(`/post/${post.id}`);
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({
      id: `${site}/post/${post.id}`,
      type: 'Article',
      name: 'Tomatoes in November',
      attributedTo: blogActor,
    });
    expect(String(answer.json.content)).toContain('<em>red</em>');
    const draft = await createPost({ title: 'Not yet', content: 'Draft.', status: 'draft' });
    expect(await get(`/post/${draft.id}`)).toBe('pass');
    expect(await get('/post/999999')).toBe('pass');
  });

  it('an unsigned inbox POST is refused with 401 and stores nothing', async () => {
    const follow = {
      '@context': AS,
      id: `${alice.origin}/unsigned-follow`,
      type: 'Follow',
      actor: alice.actorId,
      object: blogActor,
    };
    const unsigned = new Request(`${site}/ap/inbox`, {
      method: 'POST',
      headers: { 'content-type': AP },
      body: JSON.stringify(follow),
    });
    expect(statusOf(await deliver(unsigned))).toBe(401);
    // Signed two hours ago: outside the signature's time window.
    expect(
      statusOf(await deliver(await alice.signedPost(`${blogActor}/inbox`, follow, { hoursAgo: 2 }))),
    ).toBe(401);
    expect((await followers()).total).toBe(0);
  });

  it('a signed activity whose JSON-LD context cannot be loaded is a 400, not a failure of ours', async () => {
    const follow = {
      '@context': `${alice.origin}/no-such-context`,
      id: `${alice.origin}/follow-with-a-missing-context`,
      type: 'Follow',
      actor: alice.actorId,
      object: blogActor,
    };
    // Signed by alice: the gate lets it through, and Fedify then cannot read it.
    expect(statusOf(await deliver(await alice.signedPost(`${site}/ap/inbox`, follow)))).toBe(400);
    expect((await followers()).total).toBe(0);
  });

  it('a signed Follow to the inbox of an actor the blog does not have is not taken (the blog’s 404)', async () => {
    const follow = {
      '@context': AS,
      id: `${alice.origin}/follow-to-nobody`,
      type: 'Follow',
      actor: alice.actorId,
      object: `${site}/ap/actor/nobody`,
    };
    const answer = await deliver(await alice.signedPost(`${site}/ap/actor/nobody/inbox`, follow));
    expect(statusOf(answer)).toBe('pass');
    expect((await followers()).total).toBe(0);
  });

  it('a body past the cap answers 413 without reaching Fedify', async () => {
    const body = Buffer.alloc(FEDERATION_MAX_BODY_BYTES + 1, 0x20).toString('base64');
    const answer = await federation({
      method: 'POST',
      url: `${site}/ap/inbox`,
      headers: [['content-type', AP]],
      body,
    });
    expect(statusOf(answer)).toBe(413);
  });

  it('a signed Follow is stored and answered with a signed Accept at the follower’s inbox', async () => {
    // The posts written so far went out (to no one) before alice follows: the poller is done with them.
    await eventually(
      async () => (await postsRpc.send<FederationEvent[]>(Patterns.posts.federationPending, {})).length === 0,
    );
    const followId = `${alice.origin}/follows/1`;
    const follow = { '@context': AS, id: followId, type: 'Follow', actor: alice.actorId, object: blogActor };
    expect(statusOf(await deliver(await alice.signedPost(`${blogActor}/inbox`, follow)))).toBe(202);
    await waitUntil(() => alice.deliveries.some((d) => d.body.type === 'Accept'), 10_000);
    const accept = alice.deliveries.find((d) => d.body.type === 'Accept')!;
    expect(accept).toMatchObject({ path: '/users/alice/inbox', verified: true, body: { actor: blogActor } });
    const object = accept.body.object as string | { id: string };
    expect(typeof object === 'string' ? object : object.id).toBe(followId);
    const list = await followers();
    expect(list.items).toEqual([
      expect.objectContaining({ handle: `@alice@${new URL(alice.origin).host}`, status: 'accepted' }),
    ]);
  });

  it('publishing a post sends Create{Article} to the follower, an edit Update, deleting it Delete, then 410', async () => {
    const before = alice.deliveries.length;
    const post = await createPost({ title: 'Jet ski, fixed', content: 'It floats.' });
    const articleId = `${site}/post/${post.id}`;
    await waitUntil(() => alice.deliveries.some((d) => d.body.id === `${articleId}#create`), 10_000);
    const create = alice.deliveries.find((d) => d.body.id === `${articleId}#create`)!;
    expect(create).toMatchObject({
      path: '/inbox', // the shared inbox
      verified: true,
      body: {
        type: 'Create',
        actor: blogActor,
        object: { type: 'Article', id: articleId, name: 'Jet ski, fixed' },
      },
    });
    // The earlier post (published before anyone followed) is not sent again, nor is this one twice.
    await new Promise((resolve) => setTimeout(resolve, POLL_MS * 3));
    expect(alice.deliveries.slice(before).filter((d) => d.body.type === 'Create')).toHaveLength(1);

    await postsRpc.send(Patterns.posts.update, {
      id: post.id,
      fields: { category: 'Projects', title: 'Jet ski, fixed again', content: 'It floats, mostly.' },
      files: [],
    });
    await waitUntil(() => alice.deliveries.some((d) => d.body.type === 'Update'), 10_000);
    const update = alice.deliveries.find((d) => d.body.type === 'Update')!;
    expect(update).toMatchObject({
      verified: true,
      body: { actor: blogActor, object: { type: 'Article', id: articleId, name: 'Jet ski, fixed again' } },
    });
    expect(update.body.id).toMatch(new RegExp(`^${articleId}#update-\\d+$`));

    await postsRpc.send(Patterns.posts.delete, { id: post.id });
    await waitUntil(() => alice.deliveries.some((d) => d.body.id === `${articleId}#delete`), 10_000);
    const del = alice.deliveries.find((d) => d.body.id === `${articleId}#delete`)!;
    expect(del).toMatchObject({
      verified: true,
      body: { type: 'Delete', actor: blogActor, object: { type: 'Tombstone', id: articleId } },
    });
    const gone = await answered(`/post/${post.id}`);
    expect(gone.status).toBe(410);
  });

  it('hands an activity to delivery once, whichever replica races for it; a failed hand-over is tried again', async () => {
    const outbound = social.app.get(OutboundActivitiesRepository);
    const activity = { activityId: `${site}/post/777#create`, postId: 777, kind: 'create' as const };
    let sent = 0;
    const send = async () => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      sent++;
    };
    const results = await Promise.all([1, 2, 3].map(() => outbound.sendOnce(activity, send)));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(sent).toBe(1);

    const failing = { ...activity, activityId: `${site}/post/777#update-1` };
    await expect(outbound.sendOnce(failing, () => Promise.reject(new Error('queue away')))).rejects.toThrow(
      'queue away',
    );
    expect(await outbound.sendOnce(failing, send)).toBe(true); // nothing was recorded by the failure
    expect(sent).toBe(2);
  });

  it("a reply (Create{Note}) becomes a pending comment under the post; its author's Update and Delete are honoured", async () => {
    const post = await createPost({ title: 'Aquarium, day one', content: 'Water in.' });
    const noteId = `${alice.actorId}/statuses/42`;
    const note = (content: string) => ({
      id: noteId,
      type: 'Note',
      inReplyTo: `${site}/post/${post.id}`,
      published: '2026-11-25T10:00:00Z',
      attributedTo: alice.actorId,
      to: [`${AS}#Public`],
      cc: [blogActor],
      content,
    });
    const activity = (type: string, object: unknown, n: number) => ({
      '@context': AS,
      id: `${noteId}/activity-${n}`,
      type,
      actor: alice.actorId,
      to: [`${AS}#Public`],
      object,
    });
    const pending = async () =>
      (
        await postsRpc.send<AdminCommentsResult>(Patterns.posts.commentsAdmin, { status: 'pending' })
      ).items.filter((c) => c.postId === post.id);

    const reply = activity('Create', note('<p>Lovely fish!<script>alert(1)</script></p>'), 1);
    expect(statusOf(await deliver(await alice.signedPost(`${site}/ap/inbox`, reply)))).toBe(202);
    const [comment] = await eventually(async () => {
      const comments = await pending();
      return comments.length > 0 && comments;
    });
    expect(comment).toMatchObject({
      status: 'pending',
      parentId: null,
      via: 'Mastodon',
      author: { name: 'Alice', handle: `@alice@${new URL(alice.origin).host}`, local: false },
    });
    expect(comment!.content).toContain('Lovely fish!');
    expect(comment!.content).not.toContain('<script');

    const update = activity('Update', note('<p>Lovely fish, and snails.</p>'), 2);
    expect(statusOf(await deliver(await alice.signedPost(`${site}/ap/inbox`, update)))).toBe(202);
    await eventually(async () => (await pending())[0]?.content.includes('snails'));

    const del = activity('Delete', { id: noteId, type: 'Tombstone' }, 3);
    expect(statusOf(await deliver(await alice.signedPost(`${site}/ap/inbox`, del)))).toBe(202);
    await eventually(async () => (await pending()).length === 0);

    // The Article's replies: an approved reply, by its Note id; a pending one is not there.
    const secondId = `${noteId}-2`;
    const second = {
      ...activity('Create', { ...note('<p>Second.</p>'), id: secondId }, 4),
      id: `${secondId}/activity`,
    };
    expect(statusOf(await deliver(await alice.signedPost(`${site}/ap/inbox`, second)))).toBe(202);
    const [waiting] = await eventually(async () => {
      const comments = await pending();
      return comments.length > 0 && comments;
    });
    const replies = async () => (await answered(`/post/${post.id}`)).json.replies as Record<string, unknown>;
    expect(await replies()).toMatchObject({ type: 'Collection', totalItems: 0 });
    await postsRpc.send(Patterns.posts.commentModerate, { id: waiting!.id, status: 'approved' });
    const approved = await replies();
    expect([approved.totalItems, [approved.items].flat()]).toEqual([1, [secondId]]);
  });

  it('an approved pending follower gets a signed Accept of its Follow', async () => {
    const bob = await startMastodon();
    try {
      const followId = `${bob.origin}/follows/7`;
      const pending = await social.send<{ id: number; status: string }>(Patterns.social.follow, {
        actorUri: bob.actorId,
        handle: 'alice', // the fixture's account is always called alice
        inbox: `${bob.actorId}/inbox`,
        sharedInbox: `${bob.origin}/inbox`,
        followActivityId: followId,
        requireApproval: true,
      });
      expect(pending.status).toBe('pending');
      await new Promise((resolve) => setTimeout(resolve, POLL_MS * 2));
      expect(bob.deliveries).toHaveLength(0); // nothing before the owner approves
      await social.send(Patterns.social.approveFollower, { id: pending.id });
      await waitUntil(() => bob.deliveries.length === 1, 10_000);
      const [accept] = bob.deliveries;
      expect(accept).toMatchObject({
        path: '/users/alice/inbox',
        verified: true,
        body: { type: 'Accept', actor: blogActor },
      });
      const object = accept!.body.object as string | { id: string };
      expect(typeof object === 'string' ? object : object.id).toBe(followId);
    } finally {
      await bob.close();
    }
  });

  it('the followers collection: its total, then pages by cursor with each accepted follower once, in id order', async () => {
    // 260 more followers, every fifth pending: three pages of 100 and more. Taken away after, so
    // that nothing later delivers to them.
    await stack.sql.query(
      `WITH actors AS (
         INSERT INTO social.remote_actors (uri, host, handle, inbox)
         SELECT 'https://crowd.example/users/u' || n, 'crowd.example', 'u' || n || '@crowd.example',
                'https://crowd.example/users/u' || n || '/inbox'
         FROM generate_series(1, 260) AS n RETURNING id, uri)
       INSERT INTO social.followers (remote_actor_id, follow_activity_id, status)
       SELECT id, uri || '/follow', CASE WHEN substring(uri FROM '[0-9]+$')::int % 5 = 0 THEN 'pending' ELSE 'accepted' END
       FROM actors ORDER BY id`,
    );
    try {
      const { rows } = await stack.sql.query(
        `SELECT a.uri FROM social.followers f JOIN social.remote_actors a ON a.id = f.remote_actor_id
         WHERE f.status = 'accepted' ORDER BY f.id`,
      );
      const accepted = rows.map((row) => row.uri as string);
      expect(accepted.length).toBeGreaterThan(200);

      const collection = await answered('/ap/actor/blog/followers');
      expect(collection.status).toBe(200);
      expect(collection.json).toMatchObject({ type: 'OrderedCollection', totalItems: accepted.length });
      const walked: string[] = [];
      const pages: Record<string, unknown>[] = [];
      for (let next = collection.json.first as string | undefined; next;) {
        const page = await answered(new URL(next).pathname + new URL(next).search);
        expect(page.status).toBe(200);
        const items = [page.json.orderedItems ?? []].flat() as string[];
        walked.push(...items);
        pages.push(page.json);
        next = page.json.next;
        // One who unfollows during the walk moves no one else out of the next page.
        if (pages.length === 1)
          await stack.sql.query(
            `DELETE FROM social.followers f USING social.remote_actors a
             WHERE a.id = f.remote_actor_id AND a.uri = $1`,
            [items.at(-1)],
          );
      }
      expect(walked).toEqual(accepted);
      expect(pages.map((page) => [page.orderedItems ?? []].flat().length)).toEqual([
        100,
        100,
        accepted.length - 200,
      ]);
      expect(pages.at(-1)).not.toHaveProperty('next');
      // A cursor that is not one is a 404 (the blog's own), not a failure.
      expect(await get('/ap/actor/blog/followers?cursor=abc')).toBe('pass');
    } finally {
      await stack.sql.query(
        `DELETE FROM social.remote_actors WHERE host = 'crowd.example'`, // followers go with them
      );
    }
  });
});
