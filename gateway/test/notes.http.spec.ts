/**
 * Notes through the real gateway and services: the admin API (admin only, 400 on bad input with
 * nothing stored), the server-rendered `/notes` and `/notes/{id}` pages and their RSS feed, the Note
 * to ActivityPub clients, 410 after a delete (HTML and ActivityPub), and delivery through the
 * posts outbox and social: a Mastodon-shaped follower gets Create, Update and Delete{Tombstone}
 * (their signatures are checked in libs/federation's notes spec, whose blog is on loopback); a reply reaches the replied author's inbox with inReplyTo and a Mention. The owner's
 * reply to a comment shows under the post as the blog's. Pictures: a multipart note's images
 * go through the media pipeline (a fifth, a video or a fake image is a 400 with nothing stored),
 * show on its pages once processed, and ride its Create and Update as Image attachments.
 */
import { FileErrors, NOTE_CONTENT_MAX, NoteErrors } from '@blog/contracts';
import { createStorage, type ObjectStorage } from '@blog/server-kit';
import pg from 'pg';
import { startPeer, type Peer, type PeerAccount } from '../../libs/federation/test/support/peer.js';
import { startMastodon, waitUntil, type MastodonFixture } from '../../libs/federation/test/support/rig.js';
import { ACTIVITY_JSON, raw, SITE_URL, startFediverseStack } from './support/fediverse.js';
import { fields, makeImage, makeMp4, multipart, type Part } from './support/media-fixtures.js';
import { ADMIN, api, loginAs, type TestStack } from './support/test-stack.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('notes', () => {
  let stack: TestStack;
  let admin: string;
  let reader: string;
  let db: pg.Client;
  let storage: ObjectStorage;
  let alice: MastodonFixture;
  let peer: Peer;
  let bob: PeerAccount;
  const bobInbox: Json[] = [];

  const admin$ = (path: string, init: { method?: string; body?: unknown } = {}) =>
    api(stack, path, { ...init, token: admin });

  beforeAll(async () => {
    alice = await startMastodon();
    peer = await startPeer();
    bob = await peer.account('bob');
    const keep = (req: { body: Buffer }) => {
      bobInbox.push(JSON.parse(req.body.toString('utf8')) as Json);
      return { status: 202 };
    };
    peer.serve('/inbox', keep);
    peer.serve('/users/bob/inbox', keep);
    peer.serve('/users/bob/statuses/1', {
      body: {
        '@context': 'https://www.w3.org/ns/activitystreams',
        id: `${peer.origin}/users/bob/statuses/1`,
        type: 'Note',
        attributedTo: bob.actorId,
        content: '<p>What do you grow?</p>',
        to: ['https://www.w3.org/ns/activitystreams#Public'],
      },
    });
    stack = await startFediverseStack({ FEDERATION_POLL_MS: '200' });
    admin = await loginAs(stack, ADMIN.username, ADMIN.password);
    await api(stack, '/api/auth/register', { body: { username: 'visitor', password: 'visitor-password-1' } });
    reader = await loginAs(stack, 'visitor', 'visitor-password-1');
    db = new pg.Client({ connectionString: stack.env.DATABASE_URL });
    await db.connect();
    storage = await createStorage(stack.env);
    // Alice follows the blog (as the inbox would have stored her).
    const [{ id }] = (
      await db.query(
        `INSERT INTO social.remote_actors (uri, host, handle, inbox, shared_inbox) VALUES ($1, $2, 'alice', $3, $4) RETURNING id`,
        [alice.actorId, new URL(alice.origin).host, `${alice.actorId}/inbox`, `${alice.origin}/inbox`],
      )
    ).rows as { id: number }[];
    await db.query(
      `INSERT INTO social.followers (remote_actor_id, follow_activity_id, status) VALUES ($1, $2, 'accepted')`,
      [id, `${alice.actorId}#follow-1`],
    );
  }, 120_000);
  afterAll(async () => {
    await db?.end();
    await stack?.stop();
    await alice?.close();
    await peer?.close();
  });

  it('refuses every route to a visitor (401) and to a reader who is not an admin (403)', async () => {
    const routes: [string, string, unknown?][] = [
      ['POST', '/api/admin/fediverse/notes', { content: 'Hello' }],
      ['GET', '/api/admin/fediverse/notes'],
      ['PATCH', '/api/admin/fediverse/notes/1', { content: 'Hello' }],
      ['PUT', '/api/admin/fediverse/notes/1', { content: 'Hello' }],
      ['DELETE', '/api/admin/fediverse/notes/1'],
      ['POST', '/api/admin/comments/1/reply', { content: 'Thanks' }],
    ];
    for (const [method, path, body] of routes) {
      expect([path, (await api(stack, path, { method, body })).status]).toEqual([path, 401]);
      expect([path, (await api(stack, path, { method, body, token: reader })).status]).toEqual([path, 403]);
    }
  });

  it('answers bad input with 400 and stores nothing', async () => {
    const bad: [unknown, string?][] = [
      [{}, NoteErrors.content],
      [{ content: '   ' }, NoteErrors.content],
      [{ content: 'x'.repeat(NOTE_CONTENT_MAX + 1) }, NoteErrors.contentTooLong],
      [{ content: 'Hi', inReplyTo: 'javascript:alert(1)' }],
      [{ content: 'Hi', inReplyTo: 42 }],
      [{ content: 'Hi', extra: true }],
    ];
    for (const [body, error] of bad) {
      const answer = await admin$('/api/admin/fediverse/notes', { method: 'POST', body });
      expect([JSON.stringify(body).slice(0, 40), answer.status]).toEqual([
        JSON.stringify(body).slice(0, 40),
        400,
      ]);
      if (error) expect(JSON.stringify(answer.json)).toContain(error);
    }
    expect((await admin$('/api/admin/fediverse/notes?cursor=abc')).status).toBe(400);
    expect(
      (await admin$('/api/admin/fediverse/notes/1', { method: 'PATCH', body: { content: '' } })).status,
    ).toBe(400);
    // A reply to something that cannot be fetched is refused before anything is stored.
    const unreachable = await admin$('/api/admin/fediverse/notes', {
      method: 'POST',
      body: { content: 'Hi', inReplyTo: `${peer.origin}/users/bob/statuses/404` },
    });
    expect([unreachable.status, unreachable.json.error]).toEqual([422, NoteErrors.replyTarget]);
    expect((await admin$('/api/admin/fediverse/notes')).json).toEqual({ items: [], next: null });
    expect((await admin$('/api/admin/fediverse/notes/999', { method: 'DELETE' })).status).toBe(404);
  });

  it('writes, shows, edits and deletes a note, delivering Create, Update and Delete to a follower', async () => {
    const created = await admin$('/api/admin/fediverse/notes', {
      method: 'POST',
      body: { content: 'Planted **garlic** today. <script>alert(1)</script>' },
    });
    expect(created.status).toBe(201);
    const note = created.json as Json;
    expect(note).toMatchObject({ url: `/notes/${note.id}`, inReplyTo: null });
    expect(note.html).toContain('<strong>garlic</strong>');
    expect(note.html).not.toContain('<script');

    const page = await raw(stack, `/notes/${note.id}`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toContain('<strong>garlic</strong>');
    expect(page.body).not.toContain('<script>alert');
    const list = await raw(stack, '/notes');
    expect([list.status, list.body.includes(`href="/notes/${note.id}"`)]).toEqual([200, true]);
    const rss = await raw(stack, '/notes/rss.xml');
    expect(rss.headers['content-type']).toMatch(/^application\/rss\+xml/);
    expect(rss.body).toContain(`<link>${SITE_URL}/notes/${note.id}</link>`);

    const ap = await raw(stack, `/notes/${note.id}`, { headers: { accept: ACTIVITY_JSON } });
    expect(ap.status).toBe(200);
    expect(ap.headers['content-type']).toMatch(/^application\/activity\+json/);
    const object = JSON.parse(ap.body) as Json;
    expect(object).toMatchObject({
      id: `${SITE_URL}/notes/${note.id}`,
      type: 'Note',
      attributedTo: `${SITE_URL}/ap/actor/blog`,
    });
    expect(object.content).toContain('<strong>garlic</strong>');

    const noteUri = `${SITE_URL}/notes/${note.id}`;
    const delivered = (type: string) =>
      alice.deliveries.find((d) => d.body.type === type && JSON.stringify(d.body).includes(noteUri));
    await waitUntil(() => !!delivered('Create'), 20_000);
    expect((delivered('Create')!.body.object as Json).content).toContain('garlic');

    const edited = await admin$(`/api/admin/fediverse/notes/${note.id}`, {
      method: 'PATCH',
      body: { content: 'Planted *onions*.' },
    });
    expect(edited.status).toBe(200);
    expect((edited.json as Json).html).toContain('<em>onions</em>');
    expect((await raw(stack, `/notes/${note.id}`)).body).toContain('<em>onions</em>');
    await waitUntil(() => !!delivered('Update'), 20_000);
    expect((delivered('Update')!.body.object as Json).content).toContain('onions');

    expect((await admin$(`/api/admin/fediverse/notes/${note.id}`, { method: 'DELETE' })).status).toBe(200);
    await waitUntil(() => !!delivered('Delete'), 20_000);
    expect(delivered('Delete')!.body.object).toMatchObject({ type: 'Tombstone', id: noteUri });
    expect((await raw(stack, `/notes/${note.id}`)).status).toBe(410);
    expect((await raw(stack, `/notes/${note.id}`, { headers: { accept: ACTIVITY_JSON } })).status).toBe(410);
    expect((await raw(stack, '/notes/987654')).status).toBe(404);
    expect((await admin$(`/api/admin/fediverse/notes/${note.id}`, { method: 'DELETE' })).status).toBe(404);
    expect((await admin$('/api/admin/fediverse/notes')).json).toEqual({ items: [], next: null });
  }, 90_000);

  it('sends a reply with inReplyTo and a Mention to the replied author’s inbox and the followers', async () => {
    const statusUri = `${peer.origin}/users/bob/statuses/1`;
    const created = await admin$('/api/admin/fediverse/notes', {
      method: 'POST',
      body: { content: 'Tomatoes, mostly.', inReplyTo: statusUri },
    });
    expect(created.status).toBe(201);
    const handle = `bob@${new URL(peer.origin).host}`;
    expect(created.json).toMatchObject({ inReplyTo: statusUri, mention: { actorUri: bob.actorId, handle } });
    const noteUri = `${SITE_URL}/notes/${(created.json as Json).id}`;
    await waitUntil(() => bobInbox.some((b) => b.type === 'Create' && b.object?.id === noteUri), 20_000);
    const create = bobInbox.find((b) => b.type === 'Create' && b.object?.id === noteUri)!;
    expect(create.object.inReplyTo).toBe(statusUri);
    expect(create.object.tag).toEqual(
      expect.objectContaining({ type: 'Mention', href: bob.actorId, name: `@${handle}` }),
    );
    expect(JSON.stringify(create.object.cc)).toContain(bob.actorId);
    await waitUntil(
      () => alice.deliveries.some((d) => (d.body.object as Json | undefined)?.id === noteUri),
      20_000,
    );
  }, 60_000);
  /** A multipart note (the dashboard's form when it carries pictures). */
  const sendForm = async (method: string, path: string, parts: Part[]) => {
    const { body, contentType } = multipart(parts);
    const response = await fetch(`${stack.baseUrl}${path}`, {
      method,
      headers: { 'content-type': contentType, authorization: `Bearer ${admin}` },
      body,
    });
    return { status: response.status, json: (await response.json()) as Json };
  };
  const picture = (filename: string, data: Buffer, type = 'image/png'): Part => ({
    name: 'pictures',
    file: { filename, type, data },
  });
  const originals = async () => (await storage.list('private/')).length;
  const noteRows = async () =>
    Number((await db.query(`SELECT count(*) FROM posts.notes`)).rows[0].count as string);
  /** The note as the dashboard lists it, once none of its pictures is processing. */
  const settled = async (id: number): Promise<Json> => {
    const until = Date.now() + 30_000;
    for (;;) {
      const page = (await admin$('/api/admin/fediverse/notes')).json as Json;
      const note = (page.items as Json[]).find((n) => n.id === id);
      if (note && (note.pictures as Json[]).every((p) => p.status !== 'pending')) return note;
      if (Date.now() > until)
        throw new Error(
          `still pending: ${JSON.stringify((await db.query(`SELECT status, error, processing_attempts, original_key FROM posts.media_items WHERE note_id = $1`, [id])).rows)}`,
        );
      await new Promise((r) => setTimeout(r, 200));
    }
  };

  it('refuses a fifth picture, a video and a file that is no image (400), storing nothing', async () => {
    const [filesBefore, notesBefore] = [await originals(), await noteRows()];
    const png = await makeImage('png');
    const five = await sendForm('POST', '/api/admin/fediverse/notes', [
      ...fields({ content: 'Five pictures' }),
      ...[1, 2, 3, 4, 5].map((i) => picture(`p${i}.png`, png)),
    ]);
    expect([five.status, five.json.error]).toEqual([400, NoteErrors.tooManyPictures]);
    const fake = await sendForm('POST', '/api/admin/fediverse/notes', [
      ...fields({ content: 'A fake picture' }),
      picture('ok.png', png),
      picture('fake.png', Buffer.from('not an image at all, only text')),
    ]);
    expect([fake.status, fake.json.error]).toEqual([400, FileErrors.unsupported('fake.png')]);
    const video = await sendForm('POST', '/api/admin/fediverse/notes', [
      ...fields({ content: 'A video' }),
      picture('clip.mp4', makeMp4(), 'video/mp4'),
    ]);
    expect([video.status, video.json.error]).toEqual([400, NoteErrors.pictureNotImage('clip.mp4')]);
    const noText = await sendForm('POST', '/api/admin/fediverse/notes', [picture('ok.png', png)]);
    expect([noText.status, noText.json.error]).toEqual([400, NoteErrors.content]);
    const badAlts = await sendForm('POST', '/api/admin/fediverse/notes', [
      ...fields({ content: 'Alts', alts: '{"not":"a list"}' }),
      picture('ok.png', png),
    ]);
    expect([badAlts.status, badAlts.json.error]).toEqual([400, NoteErrors.alts]);
    expect([await originals(), await noteRows()]).toEqual([filesBefore, notesBefore]);
  }, 60_000);

  it('carries two pictures, processed, on its page, in its feed and as the Note’s Image attachments', async () => {
    const created = await sendForm('POST', '/api/admin/fediverse/notes', [
      ...fields({
        content: 'The **beds** this morning.',
        alts: JSON.stringify(['Garlic rows', 'Onion <sets>']),
      }),
      picture('garlic.jpg', await makeImage('jpeg', 640, 480), 'image/jpeg'),
      picture('onions.png', await makeImage('png', 320, 240)),
    ]);
    expect(created.status).toBe(201);
    const id = created.json.id as number;
    expect((created.json.pictures as Json[]).map((p) => [p.status, p.alt])).toEqual([
      ['pending', 'Garlic rows'],
      ['pending', 'Onion <sets>'],
    ]);
    // The pictures are a note's only: no post shows them.
    const rows = (await db.query(`SELECT post_id, note_id FROM posts.media_items WHERE note_id = $1`, [id]))
      .rows;
    expect(rows).toEqual([
      { post_id: null, note_id: id },
      { post_id: null, note_id: id },
    ]);

    const note = await settled(id);
    const [garlic, onions] = note.pictures as Json[];
    expect([garlic.status, onions.status]).toEqual(['ready', 'ready']);
    expect(garlic).toMatchObject({ alt: 'Garlic rows', width: 640, height: 480 });
    expect(garlic.src).toMatch(/^\/uploads\/media\//);
    expect((await fetch(`${stack.baseUrl}${garlic.src as string}`)).status).toBe(200);

    const page = await raw(stack, `/notes/${id}`);
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.body).toContain(`src="${garlic.src as string}"`);
    expect(page.body).toContain('alt="Garlic rows" width="640" height="480"');
    expect(page.body).toContain('alt="Onion &lt;sets&gt;"');
    expect((await raw(stack, '/notes')).body).toContain(`src="${onions.src as string}"`);
    expect((await raw(stack, '/notes/rss.xml')).body).toContain(`src="${SITE_URL}${garlic.src as string}"`);

    const noteUri = `${SITE_URL}/notes/${id}`;
    // The Create waited for the pictures: it carries both.
    await waitUntil(
      () => alice.deliveries.some((d) => d.body.type === 'Create' && (d.body.object as Json)?.id === noteUri),
      20_000,
    );
    const create = alice.deliveries.find(
      (d) => d.body.type === 'Create' && (d.body.object as Json)?.id === noteUri,
    )!;
    const attachments = [(create.body.object as Json).attachment].flat() as Json[];
    expect(attachments).toEqual([
      expect.objectContaining({
        type: 'Image',
        url: `${SITE_URL}${garlic.src as string}`,
        name: 'Garlic rows',
        mediaType: 'image/jpeg',
      }),
      expect.objectContaining({
        type: 'Image',
        url: `${SITE_URL}${onions.src as string}`,
        name: 'Onion <sets>',
      }),
    ]);
    const ap = JSON.parse(
      (await raw(stack, `/notes/${id}`, { headers: { accept: ACTIVITY_JSON } })).body,
    ) as Json;
    expect([ap.attachment].flat()).toHaveLength(2);

    // An edit drops one picture (its files go) and keeps the other; a fourth and fifth would be too many.
    const before = await originals();
    const png = await makeImage('png');
    const full = await sendForm('PATCH', `/api/admin/fediverse/notes/${id}`, [
      ...fields({ content: 'The beds.' }),
      ...[1, 2, 3].map((i) => picture(`more${i}.png`, png)),
    ]);
    expect([full.status, full.json.error]).toEqual([400, NoteErrors.tooManyPictures]);
    expect(await originals()).toBe(before);
    const edited = await sendForm('PATCH', `/api/admin/fediverse/notes/${id}`, [
      ...fields({ content: 'The beds, later.', keepPictures: JSON.stringify([onions.id]) }),
    ]);
    expect(edited.status).toBe(200);
    expect((edited.json.pictures as Json[]).map((p) => p.id)).toEqual([onions.id]);
    const gone = await fetch(`${stack.baseUrl}${garlic.src as string}`);
    expect(gone.status).toBe(404);
    await waitUntil(
      () => alice.deliveries.some((d) => d.body.type === 'Update' && (d.body.object as Json)?.id === noteUri),
      20_000,
    );
    const update = alice.deliveries.find(
      (d) => d.body.type === 'Update' && (d.body.object as Json)?.id === noteUri,
    )!;
    expect([(update.body.object as Json).attachment].flat()).toHaveLength(1);
    // A JSON edit keeps the pictures.
    const text = await admin$(`/api/admin/fediverse/notes/${id}`, {
      method: 'PATCH',
      body: { content: 'Beds.' },
    });
    expect(((text.json as Json).pictures as Json[]).map((p) => p.id)).toEqual([onions.id]);

    // Deleted: its pictures go with it.
    expect((await admin$(`/api/admin/fediverse/notes/${id}`, { method: 'DELETE' })).status).toBe(200);
    expect((await db.query(`SELECT 1 FROM posts.media_items WHERE note_id = $1`, [id])).rows).toEqual([]);
    expect((await fetch(`${stack.baseUrl}${onions.src as string}`)).status).toBe(404);
  }, 120_000);
});
