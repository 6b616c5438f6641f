import { Inject, Injectable } from '@nestjs/common';
import { Patterns, type IdempotentAnswer, type PostView, type PostWriteCommand } from '@blog/contracts';
import { JsonLogger, type ObjectStorage } from '@blog/server-kit';
import type { Request, Response } from 'express';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config.js';
import { ServiceClients, ServiceUnavailableError } from '../rpc/service-clients.js';
import { discardUploads, enqueueMedia, type UploadFollowupDeps } from './upload-followup.js';
import { PUBLIC_CACHE, STORAGE } from '../tokens.js';
import type { PublicCache } from '../common/public-cache.js';
import { fingerprintOf, idempotencyKeyOf, idempotencyOf, replay, sendAnswer } from '../common/idempotency.js';
import { receivePostForm } from './multipart-upload.js';

/** Writes can take longer than reads (many media rows); still bounded. */
const WRITE_TIMEOUT_MS = 30_000;

/**
 * The admin's post writes. Files are stored first; if the posts service then refuses or
 * cannot be reached, the stored files are deleted so no orphan stays. When the outcome is
 * unknown (no answer in time) only files no post references go. Every write takes an
 * Idempotency-Key, so the owner's Retry never makes a second post.
 */
@Injectable()
export class PostWriter {
  private readonly logger: JsonLogger;
  private readonly uploads: UploadFollowupDeps;

  constructor(
    private readonly services: ServiceClients,
    @Inject(STORAGE) private readonly storage: ObjectStorage,
    @Inject(PUBLIC_CACHE) private readonly cache: PublicCache,
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
  ) {
    this.logger = new JsonLogger('gateway', config.LOG_LEVEL);
    this.uploads = { services, storage, logger: this.logger };
  }

  create(req: Request, res: Response): Promise<PostView> {
    return this.submitForm(req, res, 'POST /api/posts', (command) =>
      this.services.call('posts', Patterns.posts.create, command, WRITE_TIMEOUT_MS),
    );
  }

  update(id: number, req: Request, res: Response): Promise<PostView> {
    return this.submitForm(req, res, `PUT /api/posts/${id}`, (command) =>
      this.services.call('posts', Patterns.posts.update, { ...command, id }, WRITE_TIMEOUT_MS),
    );
  }

  async delete(id: number, req: Request, res: Response): Promise<void> {
    const idempotency = idempotencyOf(req, `DELETE /api/posts/${id}`);
    try {
      sendAnswer(
        res,
        await this.services.call('posts', Patterns.posts.delete, {
          id,
          idempotency,
        }),
      );
    } finally {
      this.cache.clear();
    }
  }

  /** A failed media item queued again (the owner's Retry); the item turns pending at once. */
  async retryMedia(id: number, itemId: string, req: Request, res: Response): Promise<PostView> {
    const idempotency = idempotencyOf(req, `POST /api/posts/${id}/media/${itemId}/retry`);
    try {
      const result = await this.services.call('posts', Patterns.posts.retryMedia, {
        id,
        itemId,
        idempotency,
      });
      if (!result.replayed) this.enqueueMedia(result.answer);
      return sendAnswer(res, result);
    } finally {
      this.cache.clear();
    }
  }

  /**
   * The post form, written once per Idempotency-Key. A key whose answer is stored gets it
   * back without its files being stored again (they are only hashed, to check the request is
   * the same); a duplicate that raced the first one has its files deleted.
   */
  private async submitForm(
    req: Request,
    res: Response,
    route: string,
    send: (command: PostWriteCommand) => Promise<IdempotentAnswer<PostView>>,
  ): Promise<PostView> {
    const key = idempotencyKeyOf(req);
    const stored = key ? await this.services.call('posts', Patterns.posts.idempotentAnswer, { key }) : null;
    if (stored) {
      const { digest } = await receivePostForm(req, res, this.storage, { store: false });
      return replay(res, stored, fingerprintOf(route, digest));
    }
    const { form, digest } = await receivePostForm(req, res, this.storage);
    const idempotency = key ? { key, fingerprint: fingerprintOf(route, digest) } : undefined;
    const result = await this.withCleanup(form, () => send({ ...form, idempotency }));
    if (result.replayed)
      await discardUploads(
        this.uploads,
        form.files.map((f) => f.key),
        false,
      );
    else this.enqueueMedia(result.answer);
    return sendAnswer(res, result);
  }

  /**
   * Asks the media service to process the post's pending items (and re-cropped ones) now,
   * without waiting for it.
   * A lost call only delays processing: the media service re-enqueues pending items itself.
   */
  private enqueueMedia(post: PostView): void {
    // Files only; the posts service hands out those pending or due for a new rendering.
    const ids = post.media.filter((m) => m.type !== 'youtube').map((m) => m.id);
    enqueueMedia(this.uploads, ids);
  }

  private async withCleanup<T>(form: PostWriteCommand, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      const keys = form.files.map((f) => f.key);
      if (keys.length > 0)
        await discardUploads(this.uploads, keys, error instanceof ServiceUnavailableError && error.delivered);
      throw error;
    } finally {
      this.cache.clear();
    }
  }
}
