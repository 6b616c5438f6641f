import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Patterns, RpcContracts, type RpcEnvelope } from '@blog/contracts';
import { IdempotencyLedger, parseOrThrow, parseRequest } from '@blog/server-kit';
import { ContentService } from '../content/content.service.js';
import { MediaItemsService } from '../media-items/media-items.service.js';
import { PostsService } from './posts.service.js';

// The reads and the ledger's lookup check each field with its contract's schema on its own,
// so a 400 names the field as before (`limit`, not `query.limit`).
const list = RpcContracts[Patterns.posts.list].request.shape;
const get = RpcContracts[Patterns.posts.get].request.shape;
const bySlug = RpcContracts[Patterns.posts.getBySlug].request.shape;
const answerOf = RpcContracts[Patterns.posts.idempotentAnswer].request.shape;
const referenced = RpcContracts[Patterns.posts.referencedKeys].request.shape;

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
  list(@Payload() { data }: RpcEnvelope<{ query?: unknown; options?: unknown } | undefined>) {
    return this.posts.list(
      parseOrThrow(list.query, data?.query ?? {}),
      parseOrThrow(list.options, data?.options),
    );
  }

  @MessagePattern(Patterns.posts.get)
  get(@Payload() { data }: RpcEnvelope<{ id?: unknown; options?: unknown } | undefined>) {
    return this.posts.get(parseOrThrow(get.id, data?.id), parseOrThrow(get.options, data?.options));
  }

  @MessagePattern(Patterns.posts.getBySlug)
  getBySlug(@Payload() { data }: RpcEnvelope<{ slug?: unknown; options?: unknown } | undefined>) {
    return this.posts.getBySlug(
      parseOrThrow(bySlug.slug, data?.slug),
      parseOrThrow(bySlug.options, data?.options),
    );
  }

  @MessagePattern(Patterns.posts.urls)
  urls(@Payload() message: RpcEnvelope<unknown>) {
    return this.posts.urls(parseRequest(Patterns.posts.urls, message));
  }

  @MessagePattern(Patterns.posts.create)
  create(@Payload() message: RpcEnvelope<unknown>) {
    return this.posts.create(parseRequest(Patterns.posts.create, message));
  }

  @MessagePattern(Patterns.posts.update)
  update(@Payload() message: RpcEnvelope<unknown>) {
    return this.posts.update(parseRequest(Patterns.posts.update, message));
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
  idempotentAnswer(@Payload() { data }: RpcEnvelope<{ key?: unknown } | undefined>) {
    return this.ledger.answerOf(parseOrThrow(answerOf.key, data?.key));
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
  referencedKeys(@Payload() { data }: RpcEnvelope<{ keys?: unknown } | undefined>) {
    return this.mediaItems.referencedKeys(parseOrThrow(referenced.keys, data?.keys));
  }
}
