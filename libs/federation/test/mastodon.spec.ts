import '../src/temporal.js';
import {
  article,
  startBlog,
  startMastodon,
  waitUntil,
  type BlogInstance,
  type MastodonFixture,
} from './support/rig.js';

const AS = 'https://www.w3.org/ns/activitystreams';

/** A Mastodon-shaped account follows the blog, reads an Article, replies, edits, deletes, likes, leaves. */
describe('a Mastodon-shaped remote account', () => {
  let a: BlogInstance;
  let alice: MastodonFixture;
  let inbox: string;
  let blogActor: string;

  beforeAll(async () => {
    a = await startBlog();
    alice = await startMastodon();
    inbox = `${a.origin}/ap/inbox`;
    blogActor = `${a.origin}/ap/actor/blog`;
    a.ports.posts.set(7, article(a.origin, 7, 'Tomatoes'));
  });
  afterAll(async () => {
    await a?.close();
    await alice?.close();
  });

  const post = async (url: string, activity: object) =>
    (await fetch(await alice.signedPost(url, activity))).status;
  const note = (n: number, content: string) => ({
    id: `${alice.actorId}/statuses/${n}`,
    type: 'Note',
    summary: null,
    inReplyTo: `${a.origin}/post/7`,
    published: '2026-11-25T10:00:00Z',
    url: `${alice.origin}/@alice/${n}`,
    attributedTo: alice.actorId,
    to: ['https://www.w3.org/ns/activitystreams#Public'],
    cc: [`${alice.actorId}/followers`, blogActor],
    sensitive: false,
    atomUri: `${alice.actorId}/statuses/${n}`,
    inReplyToAtomUri: `${a.origin}/post/7`,
    conversation: `tag:${new URL(alice.origin).host},2026-11-25:objectId=${n}:objectType=Conversation`,
    content,
    contentMap: { en: content },
    attachment: [],
    tag: [{ type: 'Mention', href: blogActor, name: '@journal@127.0.0.1' }],
    replies: {
      id: `${alice.actorId}/statuses/${n}/replies`,
      type: 'Collection',
      first: {
        type: 'CollectionPage',
        next: `${alice.actorId}/statuses/${n}/replies?page=true`,
        partOf: `${alice.actorId}/statuses/${n}/replies`,
        items: [],
      },
    },
  });
  const wrap = (type: string, id: string, object: unknown) => ({
    '@context': [
      AS,
      {
        ostatus: 'http://ostatus.org#',
        atomUri: 'ostatus:atomUri',
        inReplyToAtomUri: 'ostatus:inReplyToAtomUri',
        conversation: 'ostatus:conversation',
        sensitive: 'as:sensitive',
      },
    ],
    id,
    type,
    actor: alice.actorId,
    published: '2026-11-25T10:00:00Z',
    to: ['https://www.w3.org/ns/activitystreams#Public'],
    cc: [`${alice.actorId}/followers`, blogActor],
    object,
  });

  it('follows: stored as a follower, and a signed Accept of that Follow reaches its own inbox', async () => {
    const followId = `${alice.origin}/5a3c0e2e-follow`;
    const status = await post(`${blogActor}/inbox`, {
      '@context': AS,
      id: followId,
      type: 'Follow',
      actor: alice.actorId,
      object: blogActor,
    });
    expect(status).toBe(202);
    expect(a.ports.followerRows.get(alice.actorId)).toEqual({
      actorUri: alice.actorId,
      handle: `@alice@${new URL(alice.origin).host}`,
      name: 'Alice',
      url: `${alice.origin}/@alice`,
      inbox: `${alice.actorId}/inbox`,
      sharedInbox: `${alice.origin}/inbox`,
      iconUrl: `${alice.origin}/avatars/alice.png`,
      followActivityId: followId,
      status: 'accepted',
    });
    await waitUntil(() => alice.deliveries.length === 1);
    const [accept] = alice.deliveries;
    expect(accept).toMatchObject({
      path: '/users/alice/inbox',
      verified: true,
      body: { type: 'Accept', actor: blogActor },
    });
    const object = accept!.body.object as string | { id: string };
    expect(typeof object === 'string' ? object : object.id).toBe(followId);
  });

  it('receives the Article at its shared inbox, signed', async () => {
    await a.blog.publish('create', article(a.origin, 7, 'Tomatoes'));
    await waitUntil(() => alice.deliveries.length === 2);
    const create = alice.deliveries[1]!;
    expect(create).toMatchObject({
      path: '/inbox',
      verified: true,
      body: {
        type: 'Create',
        id: `${a.origin}/post/7#create`,
        object: { type: 'Article', id: `${a.origin}/post/7`, name: 'Tomatoes' },
      },
    });
  });

  it('replies with Create{Note}: the comment port gets the reply with its author', async () => {
    const html = `<p><span class="h-card"><a href="${blogActor}" class="u-url mention">@<span>journal</span></a></span> Lovely tomatoes!</p>`;
    expect(await post(inbox, wrap('Create', `${alice.actorId}/statuses/1/activity`, note(1, html)))).toBe(
      202,
    );
    expect(a.ports.created).toEqual([
      {
        objectUri: `${alice.actorId}/statuses/1`,
        inReplyToUri: `${a.origin}/post/7`,
        actor: {
          uri: alice.actorId,
          handle: `@alice@${new URL(alice.origin).host}`,
          name: 'Alice',
          url: `${alice.origin}/@alice`,
          iconUrl: `${alice.origin}/avatars/alice.png`,
        },
        html,
        published: new Date('2026-11-25T10:00:00Z'),
      },
    ]);
    // The same activity again: per-inbox idempotency drops it.
    expect(await post(inbox, wrap('Create', `${alice.actorId}/statuses/1/activity`, note(1, html)))).toBe(
      202,
    );
    expect(a.ports.created).toHaveLength(1);
  });

  it("a Note written for someone else, or answering another site's page of ours, is not taken", async () => {
    const forged = { ...note(2, '<p>forged</p>'), attributedTo: `${alice.origin}/users/bob` };
    expect(await post(inbox, wrap('Create', `${alice.actorId}/statuses/2/activity`, forged))).toBe(202);
    const notAnArticle = { ...note(3, '<p>x</p>'), inReplyTo: `${a.origin}/about` };
    expect(await post(inbox, wrap('Create', `${alice.actorId}/statuses/3/activity`, notAnArticle))).toBe(202);
    expect(a.ports.created).toHaveLength(1);
  });

  it('the author edits (Update) and deletes (Delete{Tombstone}) the reply', async () => {
    expect(
      await post(inbox, wrap('Update', `${alice.actorId}/statuses/1#updates/1`, note(1, '<p>Edited</p>'))),
    ).toBe(202);
    expect(a.ports.updated).toMatchObject([
      { objectUri: `${alice.actorId}/statuses/1`, html: '<p>Edited</p>' },
    ]);
    const tombstone = {
      id: `${alice.actorId}/statuses/1`,
      type: 'Tombstone',
      atomUri: `${alice.actorId}/statuses/1`,
    };
    expect(await post(inbox, wrap('Delete', `${alice.actorId}/statuses/1#delete`, tombstone))).toBe(202);
    expect(a.ports.deleted).toEqual([{ objectUri: `${alice.actorId}/statuses/1`, actorUri: alice.actorId }]);
  });

  it('Like is counted, Undo(Like) takes it back; a Like of something not ours is ignored', async () => {
    const like = {
      '@context': AS,
      id: `${alice.actorId}#likes/1`,
      type: 'Like',
      actor: alice.actorId,
      object: `${a.origin}/post/7`,
    };
    expect(await post(inbox, like)).toBe(202);
    expect(
      await post(inbox, {
        ...like,
        id: `${alice.actorId}#likes/2`,
        object: 'https://elsewhere.example/notes/1',
      }),
    ).toBe(202);
    expect(a.ports.reactions).toEqual([
      { kind: 'like', activityId: like.id, actorUri: alice.actorId, objectUri: `${a.origin}/post/7` },
    ]);
    const undo = {
      '@context': AS,
      id: `${alice.actorId}#likes/1/undo`,
      type: 'Undo',
      actor: alice.actorId,
      object: like,
    };
    expect(await post(inbox, undo)).toBe(202);
    expect(a.ports.reactions).toEqual([]);
  });

  it('Undo(Follow) removes the follower; a blocked account is not followed nor heard', async () => {
    const follow = {
      id: `${alice.origin}/5a3c0e2e-follow`,
      type: 'Follow',
      actor: alice.actorId,
      object: blogActor,
    };
    expect(
      await post(inbox, {
        '@context': AS,
        id: `${alice.actorId}#follows/1/undo`,
        type: 'Undo',
        actor: alice.actorId,
        object: follow,
      }),
    ).toBe(202);
    expect(a.ports.followerRows.size).toBe(0);

    a.ports.blockedActors.add(new URL(alice.origin).host);
    const before = { deliveries: alice.deliveries.length, writes: a.ports.writes };
    expect(
      await post(inbox, {
        '@context': AS,
        id: `${alice.origin}/second-follow`,
        type: 'Follow',
        actor: alice.actorId,
        object: blogActor,
      }),
    ).toBe(202);
    expect(
      await post(inbox, wrap('Create', `${alice.actorId}/statuses/9/activity`, note(9, '<p>hi</p>'))),
    ).toBe(202);
    expect(a.ports.writes).toBe(before.writes);
    expect(alice.deliveries).toHaveLength(before.deliveries);
    a.ports.blockedActors.clear();
  });
});
