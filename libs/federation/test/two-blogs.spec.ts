import '../src/temporal.js';
import { InProcessMessageQueue } from '@fedify/fedify';
import { Create, Note, PUBLIC_COLLECTION } from '@fedify/vocab';
import { routeGlobalFetch } from '../src/index.js';
import { article, LOOPBACK, startBlog, waitUntil, type BlogInstance } from './support/rig.js';

type Body = { type?: string; id?: string; object?: { type?: string; id?: string } | string };

/** Two blogs on loopback, with queues, deliveries through the outbound policy: follow, publish, reply. */
describe('two blogs', () => {
  let a: BlogInstance;
  let b: BlogInstance;
  let restoreFetch: () => void;

  beforeAll(async () => {
    restoreFetch = routeGlobalFetch(LOOPBACK);
    a = await startBlog({ queue: new InProcessMessageQueue() });
    b = await startBlog({ queue: new InProcessMessageQueue() });
  });
  afterAll(async () => {
    restoreFetch?.();
    await a?.close();
    await b?.close();
  });

  const received = (blog: BlogInstance) => blog.inboxBodies.map((x) => x.body as Body);

  it('follow each other: each stored as the other one’s follower, each Accept matched to its Follow', async () => {
    const aFollow = await a.blog.follow(b.blog.actorUri.href);
    const bFollow = await b.blog.follow(a.blog.actorUri.href);
    await waitUntil(() => a.ports.accepted.length === 1 && b.ports.accepted.length === 1);
    expect(a.ports.accepted).toEqual([{ followActivityId: aFollow, actorUri: b.blog.actorUri.href }]);
    expect(b.ports.accepted).toEqual([{ followActivityId: bFollow, actorUri: a.blog.actorUri.href }]);
    const hostA = new URL(a.origin).host;
    expect(b.ports.followerRows.get(a.blog.actorUri.href)).toMatchObject({
      handle: `@journal@${hostA}`,
      inbox: `${a.origin}/ap/actor/blog/inbox`,
      sharedInbox: `${a.origin}/ap/inbox`,
      status: 'accepted',
    });
    expect([...a.ports.followerRows.keys()]).toEqual([b.blog.actorUri.href]);
  });

  it('A publishes an Article; B replies with a Note; A updates then deletes it, in order, and answers 410', async () => {
    const post = article(a.origin, 1, 'Seeds');
    a.ports.posts.set(1, post);
    await a.blog.publish('create', post);
    await waitUntil(() => received(b).some((x) => x.type === 'Create'));
    expect(received(b).find((x) => x.type === 'Create')).toMatchObject({
      id: `${a.origin}/post/1#create`,
      object: { type: 'Article', id: `${a.origin}/post/1` },
    });

    const ctx = b.blog.context();
    const noteId = new URL(`${b.origin}/notes/1`);
    await ctx.sendActivity(
      { identifier: 'blog' },
      { id: a.blog.actorUri, inboxId: new URL(`${a.origin}/ap/actor/blog/inbox`) },
      new Create({
        id: new URL(`${noteId.href}#create`),
        actor: b.blog.actorUri,
        to: PUBLIC_COLLECTION,
        object: new Note({
          id: noteId,
          attribution: b.blog.actorUri,
          replyTarget: a.blog.articleUri(1),
          content: '<p>Which variety?</p>',
          published: Temporal.Instant.from('2026-11-25T12:00:00Z'),
        }),
      }),
    );
    await waitUntil(() => a.ports.created.length === 1);
    expect(a.ports.created[0]).toMatchObject({
      objectUri: noteId.href,
      inReplyToUri: `${a.origin}/post/1`,
      actor: {
        uri: b.blog.actorUri.href,
        handle: `@journal@${new URL(b.origin).host}`,
        name: 'A test journal',
      },
      html: '<p>Which variety?</p>',
      published: new Date('2026-11-25T12:00:00Z'),
    });

    const edited = { ...post, title: 'Seeds, sown', updated: new Date(Date.UTC(2026, 10, 20)) };
    await a.blog.publish('update', edited);
    a.ports.posts.set(1, 'gone');
    await a.blog.publish('delete', edited);
    await waitUntil(() => received(b).some((x) => x.type === 'Delete'));
    const sequence = received(b)
      .filter((x) => ['Create', 'Update', 'Delete'].includes(x.type ?? ''))
      .map((x) => x.id);
    expect(sequence).toEqual([
      `${a.origin}/post/1#create`,
      `${a.origin}/post/1#update-${edited.updated.getTime()}`,
      `${a.origin}/post/1#delete`,
    ]);
    expect(received(b).find((x) => x.type === 'Delete')?.object).toMatchObject({
      type: 'Tombstone',
      id: `${a.origin}/post/1`,
    });
    const res = await fetch(`${a.origin}/post/1`, { headers: { accept: 'application/activity+json' } });
    expect(res.status).toBe(410);
  });
});
