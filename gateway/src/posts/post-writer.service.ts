import { Inject, Injectable } from '@nestjs/common';
import { Patterns, type PostView, type PostWriteCommand } from '@blog/contracts';
import { JsonLogger, type ObjectStorage } from '@blog/server-kit';
import type { Request, Response } from 'express';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config.js';
import { ServiceClients, ServiceUnavailableError } from '../rpc/service-clients.js';
import { PUBLIC_CACHE, STORAGE } from '../tokens.js';
import type { PublicCache } from '../common/public-cache.js';
import { receivePostForm } from './multipart-upload.js';

/** Writes can take longer than reads (many media rows); still bounded. */
const WRITE_TIMEOUT_MS = 30_000;

/**
 * Creates and updates posts from the multipart form. Files are stored first; if the posts
 * service then refuses or cannot be reached, the stored files are deleted so no orphan
 * stays. When the outcome is unknown (no answer in time) only files no post references go.
 */
@Injectable()
export class PostWriter {
  private readonly logger: JsonLogger;

  constructor(
    private readonly services: ServiceClients,
    @Inject(STORAGE) private readonly storage: ObjectStorage,
    @Inject(PUBLIC_CACHE) private readonly cache: PublicCache,
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
  ) {
    this.logger = new JsonLogger('gateway', config.LOG_LEVEL);
  }

  async create(req: Request, res: Response): Promise<PostView> {
    const form = await receivePostForm(req, res, this.storage);
    const post = await this.withCleanup(form, () =>
      this.services.call<PostView>('posts', Patterns.posts.create, form, WRITE_TIMEOUT_MS),
    );
    this.enqueueMedia(post);
    return post;
  }

  async update(id: number, req: Request, res: Response): Promise<PostView> {
    const form = await receivePostForm(req, res, this.storage);
    const post = await this.withCleanup(form, () =>
      this.services.call<PostView>('posts', Patterns.posts.update, { ...form, id }, WRITE_TIMEOUT_MS),
    );
    this.enqueueMedia(post);
    return post;
  }

  async delete(id: number): Promise<void> {
    try {
      await this.services.call('posts', Patterns.posts.delete, { id });
    } finally {
      this.cache.clear();
    }
  }

  /** A failed media item queued again (the owner's Retry); the item turns pending at once. */
  async retryMedia(id: number, itemId: string): Promise<PostView> {
    try {
      const post = await this.services.call<PostView>('posts', Patterns.posts.retryMedia, { id, itemId });
      this.enqueueMedia(post);
      return post;
    } finally {
      this.cache.clear();
    }
  }

  /**
   * Asks the media service to process the post's pending items (and re-cropped ones) now,
   * without waiting for it.
   * A lost call only delays processing: the media service re-enqueues pending items itself.
   */
  private enqueueMedia(post: PostView): void {
    // Files only; the posts service hands out those pending or due for a new rendering.
    const ids = post.media.filter((m) => m.type !== 'youtube').map((m) => m.id);
    if (ids.length === 0) return;
    this.services.call('media', Patterns.media.enqueue, { ids }).catch((error: Error) =>
      this.logger.event('warn', 'media enqueue failed; the re-enqueue will pick it up', {
        ids,
        reason: error.message,
      }),
    );
  }

  private async withCleanup<T>(form: PostWriteCommand, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      const keys = form.files.map((f) => f.key);
      if (keys.length > 0)
        await this.discard(keys, error instanceof ServiceUnavailableError && error.delivered);
      throw error;
    } finally {
      this.cache.clear();
    }
  }

  private async discard(keys: string[], outcomeUnknown: boolean): Promise<void> {
    let unreferenced = keys;
    if (outcomeUnknown) {
      try {
        const referenced = new Set(
          await this.services.call<string[]>('posts', Patterns.posts.referencedKeys, { keys }),
        );
        unreferenced = keys.filter((key) => !referenced.has(key));
      } catch {
        this.logger.event('warn', 'kept uploads of a write with an unknown outcome', { keys });
        return;
      }
    }
    await this.storage
      .deleteMany(unreferenced)
      .catch((error: Error) =>
        this.logger.event('warn', 'could not delete uploads', { keys: unreferenced, reason: error.message }),
      );
  }
}
