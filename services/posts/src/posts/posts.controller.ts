import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  idempotencyKeySchema,
  idempotencyRequestSchema,
  Patterns,
  postListQuerySchema,
  postPreviewSchema,
  postUrlsQuerySchema,
  type PostReadOptions,
  type PostUpdateCommand,
  type PostWriteCommand,
  type RpcEnvelope,
} from '@blog/contracts';
import { IdempotencyLedger, parseOrThrow } from '@blog/server-kit';
import { z } from 'zod';
import { ContentService } from '../content/content.service.js';
import { MediaItemsService } from '../media-items/media-items.service.js';
import { PostsService } from './posts.service.js';

const readOptions = z
  .object({
    includeAllMedia: z.boolean().optional(),
    includeUnpublished: z.boolean().optional(),
    includeHtml: z.boolean().optional(),
    includeSource: z.boolean().optional(),
  })
  .default({});
const idSchema = z.coerce
  .number({ error: 'id must be a number' })
  .int()
  .positive('id must be a positive number');
const uploadedFile = z.object({
  key: z.string().min(1),
  type: z.enum(['image', 'video']),
  mimeType: z.string(),
  name: z.string(),
  size: z.number().int().nonnegative(),
});
const idempotency = idempotencyRequestSchema.optional();
const writeSchema = z.object({
  fields: z.record(z.string(), z.string()),
  files: z.array(uploadedFile).default([]),
  idempotency,
});
const deleteQuery = z.object({ id: idSchema, idempotency });
const retryQuery = z.object({
  id: idSchema,
  itemId: z.string().uuid('itemId must be a media item id'),
  idempotency,
});
const pendingQuery = z.object({
  ids: z.array(z.string().uuid()).max(1000).optional(),
  olderThanSeconds: z.number().int().nonnegative().optional(),
  limit: z.number().int().positive().max(1000).optional(),
});
const variant = z.object({
  key: z.string().min(1),
  format: z.string().min(1),
  width: z.number().int().nonnegative(),
  height: z.number().int().nonnegative(),
  size: z.number().int().nonnegative(),
});
const mediaRun = z.object({
  id: z.string().uuid(),
  originalKey: z.string().min(1),
  error: z.string().max(2000).optional(),
});
const crop = z.object({ x: z.number(), y: z.number(), scale: z.number() }).nullable();
const mediaResult = z.discriminatedUnion('status', [
  z.object({
    id: z.string().uuid(),
    originalKey: z.string().min(1),
    crop,
    status: z.literal('ready'),
    storageKey: z.string().min(1),
    thumbnailKey: z.string().min(1).nullable(),
    croppedPreviewKey: z.string().min(1).nullable(),
    width: z.number().int().nonnegative(),
    height: z.number().int().nonnegative(),
    durationSeconds: z.number().nonnegative().nullable(),
    variants: z.array(variant).max(100),
  }),
  z.object({
    id: z.string().uuid(),
    originalKey: z.string().min(1),
    crop,
    status: z.literal('failed'),
    error: z.string().max(1000),
  }),
]);

/** Message handlers: validate the envelope, hand over to the service. */
@Controller()
export class PostsController {
  constructor(
    private readonly posts: PostsService,
    private readonly content: ContentService,
    private readonly mediaItems: MediaItemsService,
    private readonly ledger: IdempotencyLedger,
  ) {}

  @MessagePattern(Patterns.posts.list)
  list(@Payload() { data }: RpcEnvelope<{ query: unknown; options?: PostReadOptions }>) {
    return this.posts.list(
      parseOrThrow(postListQuerySchema, data?.query ?? {}),
      parseOrThrow(readOptions, data?.options),
    );
  }

  @MessagePattern(Patterns.posts.get)
  get(@Payload() { data }: RpcEnvelope<{ id: unknown; options?: PostReadOptions }>) {
    return this.posts.get(parseOrThrow(idSchema, data?.id), parseOrThrow(readOptions, data?.options));
  }

  @MessagePattern(Patterns.posts.getBySlug)
  getBySlug(@Payload() { data }: RpcEnvelope<{ slug: unknown; options?: PostReadOptions }>) {
    return this.posts.getBySlug(
      parseOrThrow(z.string().min(1).max(200), data?.slug),
      parseOrThrow(readOptions, data?.options),
    );
  }

  @MessagePattern(Patterns.posts.urls)
  urls(@Payload() { data }: RpcEnvelope<unknown>) {
    return this.posts.urls(parseOrThrow(postUrlsQuerySchema, data ?? {}));
  }

  @MessagePattern(Patterns.posts.create)
  create(@Payload() { data }: RpcEnvelope<PostWriteCommand>) {
    return this.posts.create(parseOrThrow(writeSchema, data));
  }

  @MessagePattern(Patterns.posts.update)
  update(@Payload() { data }: RpcEnvelope<PostUpdateCommand>) {
    const command = parseOrThrow(writeSchema.extend({ id: idSchema }), data);
    return this.posts.update(command);
  }

  @MessagePattern(Patterns.posts.preview)
  preview(@Payload() { data }: RpcEnvelope<unknown>) {
    return this.content.preview(parseOrThrow(postPreviewSchema, data ?? {}));
  }

  @MessagePattern(Patterns.posts.delete)
  delete(@Payload() { data }: RpcEnvelope<unknown>) {
    const { id, idempotency } = parseOrThrow(deleteQuery, data ?? {});
    return this.posts.delete(id, idempotency);
  }

  @MessagePattern(Patterns.posts.idempotentAnswer)
  idempotentAnswer(@Payload() { data }: RpcEnvelope<{ key: unknown }>) {
    return this.ledger.answerOf(parseOrThrow(idempotencyKeySchema, data?.key));
  }

  @MessagePattern(Patterns.posts.pendingMedia)
  pendingMedia(@Payload() { data }: RpcEnvelope<unknown>) {
    return this.mediaItems.pending(parseOrThrow(pendingQuery, data ?? {}));
  }

  @MessagePattern(Patterns.posts.mediaResult)
  mediaResult(@Payload() { data }: RpcEnvelope<unknown>) {
    return this.mediaItems.applyResult(parseOrThrow(mediaResult, data));
  }

  @MessagePattern(Patterns.posts.retryMedia)
  retryMedia(@Payload() { data }: RpcEnvelope<unknown>) {
    const { id, itemId, idempotency } = parseOrThrow(retryQuery, data ?? {});
    return this.mediaItems.retry(id, itemId, idempotency);
  }

  @MessagePattern(Patterns.posts.mediaRunStarted)
  mediaRunStarted(@Payload() { data }: RpcEnvelope<unknown>) {
    return this.mediaItems.startRun(parseOrThrow(mediaRun, data));
  }

  @MessagePattern(Patterns.posts.mediaRunFailed)
  async mediaRunFailed(@Payload() { data }: RpcEnvelope<unknown>) {
    await this.mediaItems.failRun(parseOrThrow(mediaRun, data));
    return { recorded: true };
  }

  @MessagePattern(Patterns.posts.referencedKeys)
  referencedKeys(@Payload() { data }: RpcEnvelope<{ keys: unknown }>) {
    return this.mediaItems.referencedKeys(parseOrThrow(z.array(z.string()).max(1000), data?.keys));
  }
}
