import type { MediaResult } from '@blog/contracts';
import type { IdempotencyLedger, ObjectStorage } from '@blog/server-kit';
import type { ContentService } from '../src/content/content.service.js';
import { MediaItemsService } from '../src/media-items/media-items.service.js';
import type { PostsService } from '../src/posts/posts.service.js';
import { InMemoryMediaItemsRepository } from './support/in-memory-media-items.repository.js';

/**
 * The media lifecycle's rules against an in-memory repository: which keys are still used, what
 * waits, runs, a result swapped in (or refused), and an admin's retry.
 */
describe('media items rules', () => {
  const ID = '00000000-0000-4000-8000-000000000001';
  let store: InMemoryMediaItemsRepository;
  let deleted: string[];
  let refreshed: string[];
  let media: MediaItemsService;

  beforeEach(() => {
    store = new InMemoryMediaItemsRepository();
    store.posts.set(7, 'text');
    deleted = [];
    refreshed = [];
    const storage = { deleteMany: async (keys: string[]) => void deleted.push(...keys) } as ObjectStorage;
    const content = {
      refreshFor: async (_m: unknown, _post: unknown, item: { id: string }) => void refreshed.push(item.id),
    } as unknown as ContentService;
    const posts = {
      viewIn: async (_m: unknown, postId: number) => ({ id: postId }),
    } as unknown as PostsService;
    const ledger = {
      write: async (_request: unknown, work: (manager: never) => Promise<unknown>) => ({
        answer: await store.transaction(work),
        replayed: false,
      }),
    } as unknown as IdempotencyLedger;
    media = new MediaItemsService(store, storage, posts, content, ledger);
  });

  const ready = (over: Partial<MediaResult> = {}): MediaResult =>
    ({
      id: ID,
      originalKey: `originals/${ID}`,
      crop: null,
      status: 'ready',
      storageKey: 'media/new.webp',
      thumbnailKey: 'media/new-thumb.webp',
      croppedPreviewKey: null,
      width: 10,
      height: 5,
      durationSeconds: null,
      variants: [],
      ...(over as object),
    }) as MediaResult;

  it('answers which keys an item still references, in the order asked', async () => {
    store.add({ id: ID, postId: 7, storageKey: 'media/a.webp' });
    expect(await media.referencedKeys(['gone', 'media/a.webp', `originals/${ID}`])).toEqual([
      'media/a.webp',
      `originals/${ID}`,
    ]);
    expect(await media.referencedKeys([])).toEqual([]);
  });

  it('lists waiting uploads; an empty id list asks for none', async () => {
    store.add({ id: ID, postId: 7 });
    expect((await media.pending({})).map((m) => m.id)).toEqual([ID]);
    expect(await media.pending({ ids: [] })).toEqual([]);
  });

  it('counts runs of a waiting item only; a run of another original is not counted', async () => {
    store.add({ id: ID, postId: 7 });
    expect(await media.startRun({ id: ID, originalKey: `originals/${ID}` })).toEqual({
      attempts: 1,
      lastError: null,
    });
    await media.failRun({ id: ID, originalKey: `originals/${ID}`, error: 'bad file' });
    expect(await media.startRun({ id: ID, originalKey: `originals/${ID}` })).toEqual({
      attempts: 2,
      lastError: 'bad file',
    });
    expect(await media.startRun({ id: ID, originalKey: 'originals/other' })).toBeNull();
  });

  it('swaps a result in, renders the post again, ends the runs and deletes the older result’s files', async () => {
    store.add({
      id: ID,
      postId: 7,
      status: 'ready',
      reprocess: true,
      storageKey: 'media/old.webp',
      processingAttempts: 2,
    });
    expect(await media.applyResult(ready())).toEqual({ applied: true });
    const item = store.items.get(ID)!;
    expect(item).toMatchObject({
      status: 'ready',
      storageKey: 'media/new.webp',
      reprocess: false,
      processingAttempts: 0,
    });
    expect(refreshed).toEqual([ID]);
    expect(deleted).toEqual(['media/old.webp']);
  });

  it('refuses a result for another original or another crop, and changes nothing', async () => {
    store.add({ id: ID, postId: 7, cropX: 0, cropY: 0, cropScale: 2 });
    expect(await media.applyResult(ready({ originalKey: 'originals/other' }))).toEqual({ applied: false });
    expect(await media.applyResult(ready({ crop: null }))).toEqual({ applied: false });
    expect(await media.applyResult(ready({ id: '00000000-0000-4000-8000-000000000002' }))).toEqual({
      applied: false,
    });
    expect(store.items.get(ID)!.status).toBe('pending');
    expect(refreshed).toEqual([]);
  });

  it('a failed result clears the processed files and keeps the reason', async () => {
    store.add({ id: ID, postId: 7, status: 'ready', reprocess: true, storageKey: 'media/old.webp' });
    await media.applyResult({
      id: ID,
      originalKey: `originals/${ID}`,
      crop: null,
      status: 'failed',
      error: 'corrupt',
    });
    expect(store.items.get(ID)).toMatchObject({ status: 'failed', storageKey: null, error: 'corrupt' });
    expect(deleted).toEqual(['media/old.webp']);
  });

  it('a retry puts only a failed item of that post back to pending', async () => {
    const failure = (promise: Promise<unknown>) =>
      promise.then(
        () => null,
        (error: { body: { status: number } }) => error.body.status,
      );
    store.add({ id: ID, postId: 7, status: 'failed', error: 'corrupt', processingAttempts: 3 });
    expect(await failure(media.retry(8, ID))).toBe(404);
    await media.retry(7, ID);
    expect(store.items.get(ID)).toMatchObject({ status: 'pending', error: null, processingAttempts: 0 });
    expect(await failure(media.retry(7, ID))).toBe(409);
  });
});
