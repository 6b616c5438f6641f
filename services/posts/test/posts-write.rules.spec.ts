import { PostErrors, reservedSegments, type UploadedFile } from '@blog/contracts';
import type { IdempotencyLedger, ObjectStorage } from '@blog/server-kit';
import type { EntityManager } from 'typeorm';
import { ContentService } from '../src/content/content.service.js';
import { PostsService } from '../src/posts/posts.service.js';
import type { SiteSettings } from '../src/site/site-settings.js';
import { garageSite } from './support/garage-site.js';
import { InMemoryPostsRepository } from './support/in-memory-posts.repository.js';

/**
 * PostsService's write rules against an in-memory repository: slugs (numbered, never a tree
 * segment, tried again after a race), media kept or removed with their files, who finds a
 * draft or a scheduled post. The routes and the SQL are tested through the gateway.
 */
describe('posts write rules', () => {
  const site = garageSite(['Car One']);
  const place = { category: 'Garage', submenu1: 'Automobiles', submenu2: 'Car One' };
  let store: InMemoryPostsRepository;
  let deleted: string[];
  let posts: PostsService;

  beforeEach(() => {
    store = new InMemoryPostsRepository();
    deleted = [];
    const settings = {
      current: () => site,
      reservedSegments: () => reservedSegments(site),
    } as unknown as SiteSettings;
    const storage = { deleteMany: async (keys: string[]) => void deleted.push(...keys) } as ObjectStorage;
    const ledger = {
      write: async (_request: unknown, work: (manager: EntityManager) => Promise<unknown>) => ({
        answer: await store.transaction(work),
        replayed: false,
      }),
    } as unknown as IdempotencyLedger;
    posts = new PostsService(settings, storage, new ContentService(store), ledger, store);
  });

  const image = (name: string): UploadedFile => ({
    key: `originals/${name}`,
    type: 'image',
    mimeType: 'image/jpeg',
    name,
    size: 10,
  });
  const create = async (title: string, fields: Record<string, string> = {}, files: UploadedFile[] = []) =>
    (await posts.create({ fields: { title, ...place, ...fields }, files })).answer;
  const failure = (promise: Promise<unknown>) =>
    promise.then(
      () => null,
      (error: { body: unknown }) => error.body,
    );

  it('numbers slugs on collision, counting only numbered ones, and never uses a tree segment', async () => {
    const slugs = [];
    for (const title of ['New tyres', 'New tyres pro', 'New tyres', 'New tyres', 'Automobiles', 'Car One'])
      slugs.push((await create(title)).slug);
    expect(slugs).toEqual([
      'new-tyres',
      'new-tyres-pro',
      'new-tyres-2',
      'new-tyres-3',
      'automobiles-2',
      'car-one-2',
    ]);
    expect((await posts.get(5)).url).toBe('/garage/automobiles/car-one/automobiles-2');
  });

  it('a post that took the slug at the same moment: the write tries again and numbers its own', async () => {
    await create('Race');
    // The first look misses the other writer's slug, as a look just before its commit would.
    const look = store.slugsStartingWith.bind(store);
    store.slugsStartingWith = async () => {
      store.slugsStartingWith = look;
      return [];
    };
    expect((await create('Race')).slug).toBe('race-2');
  });

  it('an update keeps the slug; media the form no longer lists go, and their files with them', async () => {
    const created = await create('Brakes', {}, [image('a.jpg'), image('b.jpg')]);
    expect(created.media.map((m) => m.path)).toEqual([
      '/uploads/originals/a.jpg',
      '/uploads/originals/b.jpg',
    ]);
    const { answer } = await posts.update({
      id: created.id,
      fields: {
        title: 'Brakes, fitted',
        ...place,
        existingFiles: JSON.stringify([{ path: '/uploads/originals/b.jpg', type: 'image', order: 0 }]),
      },
      files: [],
    });
    expect(answer).toMatchObject({ slug: 'brakes', title: 'Brakes, fitted' });
    expect(answer.media.map((m) => m.path)).toEqual(['/uploads/originals/b.jpg']);
    expect(deleted).toEqual(['originals/a.jpg']);
    expect([...store.media.values()].map((item) => item.originalKey)).toEqual(['originals/b.jpg']);
  });

  it('a refused update is a 400 naming the file, and changes nothing: no row, no file', async () => {
    const created = await create('Brakes', {}, [image('a.jpg')]);
    const refused = await failure(
      posts.update({
        id: created.id,
        fields: {
          title: 'Changed',
          ...place,
          existingFiles: JSON.stringify([{ path: '/uploads/originals/not-mine.jpg', type: 'image' }]),
        },
        files: [],
      }),
    );
    expect(refused).toMatchObject({
      status: 400,
      error: expect.stringMatching(/existingFiles\[0\]: unknown file/),
    });
    expect(store.posts.get(created.id)!.title).toBe('Brakes');
    expect(store.media.size).toBe(1);
    expect(deleted).toEqual([]);
  });

  it('deleting a post deletes its files; a post that is not there is a 404 to update or delete', async () => {
    const created = await create('Brakes', {}, [image('a.jpg'), image('b.jpg')]);
    expect((await posts.delete(created.id)).answer).toEqual({ deleted: true });
    expect(deleted.sort()).toEqual(['originals/a.jpg', 'originals/b.jpg']);
    expect([store.posts.size, store.media.size]).toEqual([0, 0]);
    const notFound = { status: 404, error: PostErrors.notFound };
    expect(await failure(posts.delete(created.id))).toMatchObject(notFound);
    expect(
      await failure(posts.update({ id: created.id, fields: { title: 'x', ...place }, files: [] })),
    ).toMatchObject(notFound);
  });

  it('a visitor finds neither a draft nor a post dated ahead; the admin finds both, by id or slug', async () => {
    const draft = await create('Draft', { status: 'draft' });
    const later = await create('Later', { date: new Date(Date.now() + 3_600_000).toISOString() });
    const now = await create('Now');
    for (const hidden of [draft, later])
      expect(await failure(posts.get(hidden.id))).toMatchObject({ status: 404, error: PostErrors.notFound });
    expect(await failure(posts.getBySlug('later'))).toMatchObject({ status: 404 });
    const admin = { includeUnpublished: true };
    expect((await posts.get(draft.id, admin)).status).toBe('draft');
    expect((await posts.getBySlug('LATER', admin)).status).toBe('scheduled');
    expect((await posts.getBySlug('NOW')).id).toBe(now.id);
  });
});
