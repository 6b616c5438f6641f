import type { MediaRun, PendingMediaQuery } from '@blog/contracts';
import type { EntityManager } from 'typeorm';
import { MediaItemsRepository, type LockedMediaItem } from '../../src/media-items/media-items.repository.js';
import type { MediaItem } from '../../src/posts/media-item.entity.js';

const waits = (item: MediaItem) => item.status === 'pending' || item.reprocess;

/**
 * The media items in memory, for fast tests of their lifecycle's rules (the Postgres one runs in
 * the HTTP tests). `transaction` keeps all of a change or none of it; there are no locks.
 */
export class InMemoryMediaItemsRepository extends MediaItemsRepository {
  items = new Map<string, MediaItem>();
  /** The posts' texts, by id. */
  posts = new Map<number, string>();

  add(item: Partial<MediaItem> & Pick<MediaItem, 'id' | 'postId'>): MediaItem {
    const row = {
      position: 0,
      type: 'image',
      status: 'pending',
      originalKey: `originals/${item.id}`,
      storageKey: null,
      thumbnailKey: null,
      croppedPreviewKey: null,
      variants: [],
      cropX: null,
      cropY: null,
      cropScale: null,
      reprocess: false,
      processingAttempts: 0,
      error: null,
      statusChangedAt: new Date(0),
      ...item,
    } as MediaItem;
    this.items.set(row.id, row);
    return row;
  }

  async withAnyKey(keys: string[]): Promise<MediaItem[]> {
    const wanted = new Set(keys);
    return [...this.items.values()].filter((item) =>
      [item.originalKey, item.storageKey, item.thumbnailKey, item.croppedPreviewKey].some(
        (key) => key && wanted.has(key),
      ),
    );
  }

  async waiting(query: PendingMediaQuery & { limit: number }): Promise<MediaItem[]> {
    return [...this.items.values()]
      .filter((item) => waits(item) && item.originalKey !== null && ['image', 'video'].includes(item.type))
      .filter((item) => !query.ids || query.ids.includes(item.id))
      .sort((a, b) => a.statusChangedAt.getTime() - b.statusChangedAt.getTime())
      .slice(0, query.limit);
  }

  async startRun(run: MediaRun): Promise<{ attempts: number; lastError: string | null } | null> {
    const item = this.items.get(run.id);
    if (!item || item.originalKey !== run.originalKey || !waits(item)) return null;
    item.processingAttempts += 1;
    return { attempts: item.processingAttempts, lastError: item.error };
  }

  async failRun(run: MediaRun): Promise<void> {
    const item = this.items.get(run.id);
    if (item && item.originalKey === run.originalKey && waits(item)) item.error = run.error ?? null;
  }

  async transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    const before = structuredClone(this.items);
    try {
      return await work(undefined as never);
    } catch (error) {
      this.items = before;
      throw error;
    }
  }

  async lockWithPost(_manager: EntityManager, itemId: string): Promise<LockedMediaItem | null> {
    const item = this.items.get(itemId);
    if (!item) return null;
    const content = this.posts.get(item.postId);
    return { post: content === undefined ? null : { id: item.postId, content }, item: structuredClone(item) };
  }

  async lockOfPost(_manager: EntityManager, postId: number, itemId: string): Promise<MediaItem | null> {
    const item = this.items.get(itemId);
    return item && item.postId === postId ? structuredClone(item) : null;
  }

  async save(_manager: EntityManager, item: MediaItem): Promise<void> {
    this.items.set(item.id, structuredClone(item));
  }
}
