import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  PostErrors,
  type IdempotencyRequest,
  type IdempotentAnswer,
  type MediaResult,
  type MediaRun,
  type MediaRunStarted,
  type PendingMediaItem,
  type PendingMediaQuery,
  type PostView,
} from '@blog/contracts';
import { IdempotencyLedger, RpcError, type ObjectStorage } from '@blog/server-kit';
import { ContentService } from '../content/content.service.js';
import { PostsService } from '../posts/posts.service.js';
import { STORAGE } from '../tokens.js';
import { MediaItemsRepository } from './media-items.repository.js';
import { cropOf, deleteFiles, derivedKeysOf, keysOf } from './media-keys.js';

/**
 * The processing lifecycle of uploaded media: what waits for the worker, its runs, its
 * results swapped in (and the post's HTML rendered again when its text places the item), an
 * admin's retry, and which stored files a post still references.
 */
@Injectable()
export class MediaItemsService {
  private readonly logger = new Logger(MediaItemsService.name);

  constructor(
    private readonly items: MediaItemsRepository,
    @Inject(STORAGE) private readonly storage: ObjectStorage,
    private readonly posts: PostsService,
    private readonly content: ContentService,
    private readonly ledger: IdempotencyLedger,
  ) {}

  /** Which of `keys` some post still references (the gateway asks before cleaning up after a timeout). */
  async referencedKeys(keys: string[]): Promise<string[]> {
    if (keys.length === 0) return [];
    const rows = await this.items.withAnyKey(keys);
    const referenced = new Set(rows.flatMap(keysOf));
    return keys.filter((key) => referenced.has(key));
  }

  /** Uploaded files still waiting for the media worker: by id, or pending for longer than N seconds. */
  async pending(query: PendingMediaQuery): Promise<PendingMediaItem[]> {
    if (query.ids?.length === 0) return [];
    const items = await this.items.waiting({ ...query, limit: query.limit ?? 500 });
    return items.map((m) => ({
      id: m.id,
      type: m.type as 'image' | 'video',
      originalKey: m.originalKey!,
      mimeType: m.mimeType,
      crop: cropOf(m),
    }));
  }

  /** Counts a processing run that begins; null when the item no longer waits for one. */
  startRun(run: MediaRun): Promise<MediaRunStarted> {
    return this.items.startRun(run);
  }

  /** Keeps a failed run's reason on the still waiting item: the run that gives up reports it. */
  async failRun(run: MediaRun): Promise<void> {
    await this.items.failRun(run);
  }

  /**
   * Swaps the worker's result into the item. Applied only while the item still exists with
   * the same original; the same result twice changes nothing. Files of an older result that
   * the new one no longer uses are deleted.
   */
  async applyResult(result: MediaResult): Promise<{ applied: boolean }> {
    const replaced = await this.items.transaction(async (manager) => {
      const locked = await this.items.lockWithPost(manager, result.id);
      if (!locked) return null;
      const { post, item } = locked;
      if (item.originalKey !== result.originalKey) return null;
      // Re-cropped since the job started: the job for the new crop brings the right result.
      if (JSON.stringify(cropOf(item)) !== JSON.stringify(result.crop)) return null;
      const before = derivedKeysOf(item);
      if (result.status === 'ready') {
        Object.assign(item, {
          status: 'ready',
          storageKey: result.storageKey,
          thumbnailKey: result.thumbnailKey,
          croppedPreviewKey: result.croppedPreviewKey,
          width: result.width,
          height: result.height,
          durationSeconds: result.durationSeconds,
          variants: result.variants,
          error: null,
        });
      } else {
        Object.assign(item, {
          status: 'failed',
          storageKey: null,
          thumbnailKey: null,
          croppedPreviewKey: null,
          variants: [],
          error: result.error,
        });
      }
      item.statusChangedAt = new Date();
      item.reprocess = false;
      // Ended: a later re-crop or an admin's retry starts counting runs afresh.
      item.processingAttempts = 0;
      await this.items.save(manager, item);
      if (post) await this.content.refreshFor(manager, post, item);
      const now = new Set(keysOf(item));
      return before.filter((key) => !now.has(key));
    });
    if (replaced === null) return { applied: false };
    await deleteFiles(this.storage, replaced, this.logger);
    return { applied: true };
  }

  /**
   * Puts a failed upload back to pending (admin Retry); the caller queues it. The original is
   * kept while an item exists, so the worker starts again from the owner's file.
   */
  async retry(
    postId: number,
    itemId: string,
    idempotency?: IdempotencyRequest,
  ): Promise<IdempotentAnswer<PostView>> {
    return this.ledger.write(idempotency, async (manager) => {
      const item = await this.items.lockOfPost(manager, postId, itemId);
      if (!item || !item.originalKey) throw RpcError.notFound(PostErrors.mediaNotFound);
      if (item.status !== 'failed') throw RpcError.conflict(PostErrors.mediaNotFailed);
      // A retry gets MEDIA_JOB_ATTEMPTS runs of its own.
      Object.assign(item, {
        status: 'pending',
        error: null,
        statusChangedAt: new Date(),
        processingAttempts: 0,
      });
      await this.items.save(manager, item);
      return this.posts.viewIn(manager, postId);
    });
  }
}
