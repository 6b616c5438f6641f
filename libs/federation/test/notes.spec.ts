import '../src/temporal.js';
import type { FederationPorts, NoteData } from '../src/index.js';
import {
  startBlog,
  startMastodon,
  waitUntil,
  type BlogInstance,
  type MastodonFixture,
} from './support/rig.js';

/** A note's Create, Update and Delete reach a Mastodon-shaped follower signed; a reply reaches its author too. */
describe('notes to the fediverse', () => {
  let a: BlogInstance;
  let alice: MastodonFixture;
  let carol: MastodonFixture;

  beforeAll(async () => {
    a = await startBlog();
    alice = await startMastodon();
    carol = await startMastodon(); // not a follower: only the reply's mention brings it there
    a.ports.followerRows.set(alice.actorId, {
      actorUri: alice.actorId,
      handle: 'alice',
      name: 'Alice',
      url: null,
      iconUrl: null,
      inbox: `${alice.actorId}/inbox`,
      sharedInbox: `${alice.origin}/inbox`,
      followActivityId: `${alice.actorId}#follow`,
      status: 'accepted',
    } as never);
  });
  afterAll(async () => {
    await a?.close();
    await alice?.close();
    await carol?.close();
  });

  const note = (id: number, over: Partial<NoteData> = {}): NoteData => ({
    uri: `${a.origin}/notes/${id}`,
    url: `${a.origin}/notes/${id}`,
    html: '<p>Planted garlic.</p>',
    published: new Date('2026-11-20T10:00:00Z'),
    updated: null,
    inReplyTo: null,
    mention: null,
    ...over,
  });

  it('delivers Create, Update and Delete{Tombstone} of a note, each signed', async () => {
    const n = note(1);
    await a.blog.publishNote('create', n);
    await a.blog.publishNote('update', {
      ...n,
      html: '<p>Onions too.</p>',
      updated: new Date('2026-11-21T10:00:00Z'),
    });
    await a.blog.publishNote('delete', n);
    await waitUntil(() => alice.deliveries.length >= 3, 10_000);
    const [create, update, del] = alice.deliveries;
    expect(create!.body).toMatchObject({
      type: 'Create',
      object: { type: 'Note', id: n.uri, content: '<p>Planted garlic.</p>' },
    });
    expect(update!.body).toMatchObject({
      type: 'Update',
      object: { type: 'Note', content: '<p>Onions too.</p>' },
    });
    expect(del!.body).toMatchObject({ type: 'Delete', object: { type: 'Tombstone', id: n.uri } });
    expect(alice.deliveries.map((d) => d.verified)).toEqual([true, true, true]);
  });

  it('sends a reply with inReplyTo and a Mention to the author’s inbox as well as the followers', async () => {
    const target = `${carol.actorId}/statuses/9`;
    const handle = `alice@${new URL(carol.origin).host}`;
    const before = alice.deliveries.length;
    await a.blog.publishNote(
      'create',
      note(2, { inReplyTo: target, mention: { actorUri: carol.actorId, handle } }),
    );
    await waitUntil(() => carol.deliveries.length > 0 && alice.deliveries.length > before, 10_000);
    const got = carol.deliveries[0]!;
    expect(got.verified).toBe(true);
    expect(got.body.object).toMatchObject({
      type: 'Note',
      inReplyTo: target,
      tag: { type: 'Mention', href: carol.actorId, name: `@${handle}` },
    });
  });

  it('carries a note’s pictures as Image attachments with their type and alt text', async () => {
    const before = alice.deliveries.length;
    const images = [
      { url: `${a.origin}/uploads/media/items/1/w800.jpg`, mediaType: 'image/jpeg', alt: 'Garlic rows' },
      { url: `${a.origin}/uploads/media/items/2/w640.png`, mediaType: 'image/png', alt: '' },
    ];
    await a.blog.publishNote('create', note(5, { images }));
    await waitUntil(() => alice.deliveries.length > before, 10_000);
    const object = alice.deliveries[before]!.body.object as Record<string, unknown>;
    expect(object.attachment).toEqual([
      { type: 'Image', url: images[0]!.url, mediaType: 'image/jpeg', name: 'Garlic rows' },
      { type: 'Image', url: images[1]!.url, mediaType: 'image/png' },
    ]);
    // None: no attachment at all.
    expect(alice.deliveries[0]!.body.object).not.toHaveProperty('attachment');
  });

  it('answers the Note at /notes/{id} to ActivityPub clients, and 410 once deleted', async () => {
    (a.ports as FederationPorts).notes = {
      byId: async (id: number) => (id === 3 ? note(3) : id === 4 ? 'gone' : null),
    };
    const get = (id: number) =>
      fetch(`${a.origin}/notes/${id}`, { headers: { accept: 'application/activity+json' } });
    const found = await get(3);
    expect(found.status).toBe(200);
    expect(await found.json()).toMatchObject({ type: 'Note', id: `${a.origin}/notes/3` });
    expect((await get(4)).status).toBe(410);
  });
});
