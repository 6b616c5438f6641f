import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  idempotencyKeySchema,
  idempotencyRequestSchema,
  Patterns,
  postListQuerySchema,
  type PostReadOptions,
  type PostUpdateCommand,
  type PostWriteCommand,
  type RpcEnvelope,
} from '@blog/contracts';
import { IdempotencyLedger, parseOrThrow, parseRequest } from '@blog/server-kit';
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
  urls(@Payload() message: RpcEnvelope<unknown>) {
    return this.posts.urls(parseRequest(Patterns.posts.urls, message));
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
  preview(@Payload() message: RpcEnvelope<unknown>) {
    return this.content.preview(parseRequest(Patterns.posts.preview, message));
  }

  @MessagePattern(Patterns.posts.delete)
  delete(@Payload() message: RpcEnvelope<unknown>) {
    const { id, idempotency } = parseRequest(Patterns.posts.delete, message);
    return this.posts.delete(id, idempotency);
  }

  @MessagePattern(Patterns.posts.idempotentAnswer)
  idempotentAnswer(@Payload() { data }: RpcEnvelope<{ key: unknown }>) {
    return this.ledger.answerOf(parseOrThrow(idempotencyKeySchema, data?.key));
  }

  @MessagePattern(Patterns.posts.pendingMedia)
  pendingMedia(@Payload() message: RpcEnvelope<unknown>) {
    return this.mediaItems.pending(parseRequest(Patterns.posts.pendingMedia, message));
  }

  @MessagePattern(Patterns.posts.mediaResult)
  mediaResult(@Payload() message: RpcEnvelope<unknown>) {
    return this.mediaItems.applyResult(parseRequest(Patterns.posts.mediaResult, message));
  }

  @MessagePattern(Patterns.posts.retryMedia)
  retryMedia(@Payload() message: RpcEnvelope<unknown>) {
    const { id, itemId, idempotency } = parseRequest(Patterns.posts.retryMedia, message);
    return this.mediaItems.retry(id, itemId, idempotency);
  }

  @MessagePattern(Patterns.posts.mediaRunStarted)
  mediaRunStarted(@Payload() message: RpcEnvelope<unknown>) {
    return this.mediaItems.startRun(parseRequest(Patterns.posts.mediaRunStarted, message));
  }

  @MessagePattern(Patterns.posts.mediaRunFailed)
  async mediaRunFailed(@Payload() message: RpcEnvelope<unknown>) {
    await this.mediaItems.failRun(parseRequest(Patterns.posts.mediaRunFailed, message));
    return { recorded: true };
  }

  @MessagePattern(Patterns.posts.referencedKeys)
  referencedKeys(@Payload() { data }: RpcEnvelope<{ keys: unknown }>) {
    return this.mediaItems.referencedKeys(parseOrThrow(z.array(z.string()).max(1000), data?.keys));
  }
}
