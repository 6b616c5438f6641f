import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { MediaRun, PendingMediaQuery } from '@blog/contracts';
import { DataSource, In, type EntityManager } from 'typeorm';
import { MediaItem } from '../posts/media-item.entity.js';
import { Post } from '../posts/post.entity.js';

/** A media item and its post (id and text), both row-locked for a change. */
export interface LockedMediaItem {
  /** Null when the post went meanwhile (the item then goes with it), or for a note's picture. */
  post: Pick<Post, 'id' | 'content'> | null;
  item: MediaItem;
}

/** posts.media_items as the media worker's lifecycle sees them: waiting, runs, results, retries. */
export abstract class MediaItemsRepository {
  /** Items whose original, processed file, thumbnail or cropped preview is one of `keys`. */
  abstract withAnyKey(keys: string[]): Promise<MediaItem[]>;
  /**
   * Uploaded images and videos waiting for the worker (pending, or to be processed again),
   * longest waiting first: at most `limit`, only `ids` when given, only those waiting
   * `olderThanSeconds` when given.
   */
  abstract waiting(query: PendingMediaQuery & { limit: number }): Promise<MediaItem[]>;
  /** Counts a run of an item still waiting with this original; null when it no longer waits. */
  abstract startRun(run: MediaRun): Promise<{ attempts: number; lastError: string | null } | null>;
  /** Keeps a failed run's reason on the item if it still waits with this original. */
  abstract failRun(run: MediaRun): Promise<void>;
  /** `work` on one transaction: all of it is stored, or none. */
  abstract transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T>;
  /**
   * The item `itemId` and its post, locked on `manager`: the post's row first, then the
   * item's, the order every write takes, so none deadlock. Null when the item is gone.
   */
  abstract lockWithPost(manager: EntityManager, itemId: string): Promise<LockedMediaItem | null>;
  /** Post `postId`'s item `itemId`, row-locked on `manager`; null when the post has no such item. */
  abstract lockOfPost(manager: EntityManager, postId: number, itemId: string): Promise<MediaItem | null>;
  abstract save(manager: EntityManager, item: MediaItem): Promise<void>;
}

@Injectable()
export class PostgresMediaItemsRepository extends MediaItemsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {
    super();
  }

  withAnyKey(keys: string[]): Promise<MediaItem[]> {
    return this.db.getRepository(MediaItem).find({
      where: [
        { originalKey: In(keys) },
        { storageKey: In(keys) },
        { thumbnailKey: In(keys) },
        { croppedPreviewKey: In(keys) },
      ],
    });
  }

  waiting(query: PendingMediaQuery & { limit: number }): Promise<MediaItem[]> {
    const qb = this.db
      .getRepository(MediaItem)
      .createQueryBuilder('m')
      .where(`(m.status = 'pending' OR m.reprocess)`)
      .andWhere('m.original_key IS NOT NULL')
      .andWhere(`m.type IN ('image', 'video')`)
      .orderBy('m.status_changed_at', 'ASC')
      .limit(query.limit);
    if (query.ids) qb.andWhere('m.id IN (:...ids)', { ids: query.ids });
    if (query.olderThanSeconds !== undefined)
      qb.andWhere(`m.status_changed_at <= now() - make_interval(secs => :seconds)`, {
        seconds: query.olderThanSeconds,
      });
    return qb.getMany();
  }

  async startRun(run: MediaRun): Promise<{ attempts: number; lastError: string | null } | null> {
    // An UPDATE answers [rows, count] through DataSource.query.
    const [rows] = (await this.db.query(
      `UPDATE posts.media_items SET processing_attempts = processing_attempts + 1
        WHERE id = $1 AND original_key = $2 AND (status = 'pending' OR reprocess)
        RETURNING processing_attempts AS attempts, error`,
      [run.id, run.originalKey],
    )) as [{ attempts: number; error: string | null }[], number];
    const row = rows[0];
    return row ? { attempts: row.attempts, lastError: row.error } : null;
  }

  async failRun(run: MediaRun): Promise<void> {
    await this.db.query(
      `UPDATE posts.media_items SET error = $3
        WHERE id = $1 AND original_key = $2 AND (status = 'pending' OR reprocess)`,
      [run.id, run.originalKey, run.error ?? null],
    );
  }

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.db.transaction(work);
  }

  async lockWithPost(manager: EntityManager, itemId: string): Promise<LockedMediaItem | null> {
    // The id is selected too: an entity whose every selected column is null reads as no row.
    const owner = await manager.findOne(MediaItem, {
      where: { id: itemId },
      select: { id: true, postId: true },
    });
    if (!owner) return null;
    // A note's picture has no post (and no text that places it): never look one up by a null id,
    // which TypeORM would drop from the where and so lock some other post.
    const post =
      owner.postId === null
        ? null
        : await manager.findOne(Post, {
            where: { id: owner.postId },
            select: { id: true, content: true },
            lock: { mode: 'pessimistic_write' },
          });
    const item = await manager.findOne(MediaItem, {
      where: { id: itemId },
      lock: { mode: 'pessimistic_write' },
    });
    return item ? { post, item } : null;
  }

  lockOfPost(manager: EntityManager, postId: number, itemId: string): Promise<MediaItem | null> {
    return manager.findOne(MediaItem, { where: { id: itemId, postId }, lock: { mode: 'pessimistic_write' } });
  }

  async save(manager: EntityManager, item: MediaItem): Promise<void> {
    await manager.save(item);
  }
}
