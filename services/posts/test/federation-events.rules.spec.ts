import { randomUUID } from 'node:crypto';
import type { FederationEvent } from '@blog/contracts';
import type { DataSource } from 'typeorm';
import { FederationEvents } from '../src/federation/federation-events.js';
import { MEDIA_WAIT } from '../src/federation/federation-events.repository.js';
import { PostsService } from '../src/posts/posts.service.js';
import { openFederationPosts, type FederationPosts } from './support/federation-posts.js';

const PAST = '2024-03-01T10:00:00.000Z';
const FUTURE = '2099-01-01T10:00:00.000Z';
const LATER = '2099-02-01T10:00:00.000Z';

/**
 * What a post write owes the followers, through PostsService on a real PostgreSQL:
 * the events are written in the write's own transaction, so their rows are the rule's evidence.
 */
describe('federation events', () => {
  let source: DataSource;
  let posts: PostsService;
  let events: FederationEvents;

  let rig: FederationPosts;

  beforeAll(async () => {
    rig = await openFederationPosts('federation_events');
    ({ source, posts, events } = rig);
  });
  afterAll(async () => {
    await rig?.close();
  });

  const fields = (title: string, more: Record<string, string> = {}) => ({
    title,
    content: `The text of ${title}.`,
    category: 'Garage',
    submenu1: 'Automobiles',
    submenu2: 'Car One',
    status: 'published',
    date: PAST,
    tags: 'cars',
    ...more,
  });
  const create = async (title: string, more: Record<string, string> = {}) =>
    (await posts.create({ fields: fields(title, more), files: [] })).answer.id;
  const update = (id: number, title: string, more: Record<string, string> = {}) =>
    posts.update({ id, fields: fields(title, more), files: [] });

  /** The post's events as stored, in the order written. */
  const logOf = async (postId: number) =>
    (
      (await source.query(
        `SELECT kind, due_at, done_at FROM posts.federation_events WHERE post_id = $1 ORDER BY created_at`,
        [postId],
      )) as { kind: string; due_at: Date; done_at: Date | null }[]
    ).map((row) => ({
      kind: row.kind,
      dueAt: row.due_at.toISOString(),
      done: row.done_at !== null,
    }));
  const kinds = async (postId: number) => (await logOf(postId)).map((e) => `${e.kind}${e.done ? '' : '?'}`);
  /** The social service's round: every due event of the post handed over and marked done. */
  const deliver = async (postId: number) => {
    const due: FederationEvent[] = (await events.pending(500)).filter((e) => e.postId === postId);
    for (const event of due) expect(await events.done(event.id)).toEqual({ done: true });
    return due.map((e) => e.kind);
  };

  it('a published post owes a Create due at its date; a draft owes nothing until it is published', async () => {
    const published = await create('Published at once');
    expect(await logOf(published)).toEqual([{ kind: 'create', dueAt: PAST, done: false }]);

    const draft = await create('A draft first', { status: 'draft' });
    await update(draft, 'A draft first', { status: 'draft', content: 'Changed while a draft.' });
    expect(await logOf(draft)).toEqual([]);
    await update(draft, 'A draft first', { status: 'published' });
    expect(await logOf(draft)).toEqual([{ kind: 'create', dueAt: PAST, done: false }]);
    expect(await deliver(draft)).toEqual(['create']);
  });

  it('a scheduled post’s Create waits for its time, and moves when the time moves before it is due', async () => {
    const id = await create('Scheduled', { date: FUTURE });
    expect(await logOf(id)).toEqual([{ kind: 'create', dueAt: FUTURE, done: false }]);
    expect((await events.pending(500)).some((e) => e.postId === id)).toBe(false);

    // Edits before the time change nothing but the due time (the Create reads the post when sent).
    await update(id, 'Scheduled, retitled', { date: LATER });
    expect(await logOf(id)).toEqual([{ kind: 'create', dueAt: LATER, done: false }]);
    await update(id, 'Scheduled, retitled again', { date: LATER });
    expect(await logOf(id)).toEqual([{ kind: 'create', dueAt: LATER, done: false }]);

    // Brought forward to the past: due now, listed for delivery.
    await update(id, 'Scheduled, retitled again', { date: PAST });
    expect(await logOf(id)).toEqual([{ kind: 'create', dueAt: PAST, done: false }]);
    expect(await deliver(id)).toEqual(['create']);
  });

  it('an edit of a delivered post owes an Update only when its Article changes', async () => {
    const id = await create('Delivered');
    expect(await deliver(id)).toEqual(['create']);

    // The same fields saved again, or only its date moved: nothing the Article's reader sees changed.
    await update(id, 'Delivered');
    await update(id, 'Delivered', { date: '2024-03-02T10:00:00.000Z' });
    expect(await kinds(id)).toEqual(['create']);

    const changes: Record<string, string>[] = [
      { title: 'Delivered, retitled' },
      { content: 'A new body.' },
      { tags: 'cars, tyres' },
      { submenu2: '' },
    ];
    for (const change of changes) {
      const before = (await logOf(id)).length;
      await update(id, change.title ?? 'Delivered, retitled', {
        date: '2024-03-02T10:00:00.000Z',
        ...change,
      });
      expect((await logOf(id)).slice(before).map((e) => e.kind)).toEqual(['update']);
      expect(await deliver(id)).toEqual(['update']);
    }
  });

  it('an edit while the Create is still pending owes no Update (the Create carries the edit)', async () => {
    const id = await create('Not yet handed over');
    await update(id, 'Not yet handed over, edited', { content: 'Edited.' });
    expect(await kinds(id)).toEqual(['create?']);
  });

  it('unpublished or deleted before delivery: the pending Create is dropped and nothing is owed', async () => {
    const unpublished = await create('Unpublished in time', { date: FUTURE });
    await update(unpublished, 'Unpublished in time', { status: 'draft', date: FUTURE });
    expect(await logOf(unpublished)).toEqual([]);

    const deleted = await create('Deleted in time');
    await posts.delete(deleted);
    expect(await logOf(deleted)).toEqual([]);
  });

  it('unpublished or deleted after delivery: a Delete due now; published again: a new Create', async () => {
    const id = await create('Goes and comes back');
    await deliver(id);
    await update(id, 'Goes and comes back', { content: 'An edit not yet handed over.' });
    expect(await kinds(id)).toEqual(['create', 'update?']);

    await update(id, 'Goes and comes back', { status: 'draft' });
    // The Update not handed over is dropped: the Delete supersedes it.
    expect(await kinds(id)).toEqual(['create', 'delete?']);
    const [, del] = await logOf(id);
    expect(Math.abs(Date.parse(del!.dueAt) - Date.now())).toBeLessThan(60_000);
    expect(await deliver(id)).toEqual(['delete']);

    await update(id, 'Goes and comes back', { status: 'published' });
    expect(await kinds(id)).toEqual(['create', 'delete', 'create?']);
    await deliver(id);
    await posts.delete(id);
    expect(await kinds(id)).toEqual(['create', 'delete', 'create', 'delete?']);
    expect(await deliver(id)).toEqual(['delete']);
  });

  it('a delivered post dated ahead is taken back now and sent again at its new time', async () => {
    const id = await create('Rescheduled after delivery');
    await deliver(id);
    await update(id, 'Rescheduled after delivery', { date: FUTURE });
    const log = await logOf(id);
    expect(log.map((e) => `${e.kind}${e.done ? '' : '?'}`)).toEqual(['create', 'delete?', 'create?']);
    expect(log[2]!.dueAt).toBe(FUTURE);
    expect(await deliver(id)).toEqual(['delete']);
    // Moved again before its time: the new Create moves with it.
    await update(id, 'Rescheduled after delivery', { date: LATER });
    expect((await logOf(id)).at(-1)).toEqual({ kind: 'create', dueAt: LATER, done: false });
  });

  it('an import (and so an archive’s restore) owes nothing, neither its new posts nor its updates', async () => {
    const input = {
      title: 'Imported',
      content: 'From WordPress.',
      category: 'Garage',
      submenu1: 'Automobiles',
      submenu2: 'Car One',
      tags: ['cars'],
      status: 'published' as const,
      date: new Date(PAST),
      media: [],
    };
    const origin = { sourceId: 'wxr:imported-1', oldPaths: [] };
    const id = (await posts.saveImported(input, [], origin)).answer.id;
    await posts.saveImported({ ...input, content: 'Imported again, changed.' }, [], origin, id);
    expect(await logOf(id)).toEqual([]);
  });

  it('pending lists due events oldest first, up to its limit; done is idempotent', async () => {
    await source.query(`UPDATE posts.federation_events SET done_at = now() WHERE done_at IS NULL`);
    const first = await create('Due first', { date: '2024-01-01T00:00:00.000Z' });
    const second = await create('Due second', { date: '2024-02-01T00:00:00.000Z' });
    await create('Not due', { date: FUTURE });

    const pending = await events.pending(10);
    expect(pending.map((e) => [e.postId, e.kind, e.dueAt])).toEqual([
      [first, 'create', '2024-01-01T00:00:00.000Z'],
      [second, 'create', '2024-02-01T00:00:00.000Z'],
    ]);
    expect(await events.pending(1)).toEqual([pending[0]]);

    expect(await events.done(pending[0]!.id)).toEqual({ done: true });
    expect(await events.done(pending[0]!.id)).toEqual({ done: false });
    expect(await events.done('00000000-0000-4000-8000-000000000000')).toEqual({ done: false });
    expect((await events.pending(10)).map((e) => e.postId)).toEqual([second]);
  });

  it('a Create waits while its post’s media are still processing, at most the media wait past due', async () => {
    const id = await create('Pictures on their way');
    const item = randomUUID();
    await source.query(
      `INSERT INTO posts.media_items (id, post_id, position, type, status, original_key)
       VALUES ($1, $2, 0, 'image', 'pending', 'private/originals/car.jpg')`,
      [item, id],
    );
    const listed = async () => (await events.pending(500)).some((e) => e.postId === id);
    expect(await listed()).toBe(false);
    await source.query(`UPDATE posts.media_items SET status = 'ready' WHERE id = $1`, [item]);
    expect(await listed()).toBe(true);

    // A stuck item holds it no longer than the wait (from the write, as this post is dated back):
    // then the post goes out as it is.
    await source.query(`UPDATE posts.media_items SET status = 'pending' WHERE id = $1`, [item]);
    expect(await listed()).toBe(false);
    await source.query(
      `UPDATE posts.federation_events SET created_at = now() - $2::interval - interval '1 second' WHERE post_id = $1`,
      [id, MEDIA_WAIT],
    );
    expect(await listed()).toBe(true);
    await deliver(id);

    // A Delete never waits (its post and media are gone or hidden already).
    await posts.update({ id, fields: fields('Pictures on their way', { status: 'draft' }), files: [] });
    expect(await events.pending(500)).toContainEqual(expect.objectContaining({ postId: id, kind: 'delete' }));
  });

  it('a post write that rolls back leaves no event', async () => {
    const id = await create('Rolled back');
    await deliver(id);
    const before = await logOf(id);
    // A check PostgreSQL runs at commit, after the whole write (and its event) is in: it refuses
    // this title, so the transaction rolls back as a lost connection or a failed commit would.
    await source.query(`
      CREATE FUNCTION posts.refuse_title() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.title = 'Refused at commit' THEN RAISE EXCEPTION 'refused at commit'; END IF;
        RETURN NULL;
      END $$`);
    await source.query(`
      CREATE CONSTRAINT TRIGGER refuse_title AFTER UPDATE ON posts.posts
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION posts.refuse_title()`);
    try {
      await expect(update(id, 'Refused at commit')).rejects.toThrow('refused at commit');
      expect(await logOf(id)).toEqual(before);
      // The same edit under another title commits with its Update: the write did owe one.
      await update(id, 'Accepted at commit');
      expect(await kinds(id)).toEqual(['create', 'update?']);
    } finally {
      await source.query(`DROP TRIGGER refuse_title ON posts.posts`);
      await source.query(`DROP FUNCTION posts.refuse_title()`);
    }
  });
});
