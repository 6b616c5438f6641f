import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import type { ClientProxy } from '@nestjs/microservices';
import { Patterns, type RpcAnswer, type RpcRequest, type TypedPattern } from '@blog/contracts';
import { createRpcClient, currentRequestId, sendTyped } from '@blog/server-kit';
import { SOCIAL_CONFIG, type SocialConfig } from '../config.js';

/** Reads are on the path of a remote server's request; a comment write may take a little longer. */
const READ_TIMEOUT_MS = 10_000;
const WRITE_TIMEOUT_MS = 20_000;

/**
 * The social service's client of the posts service: the site, Articles and the outbox, the
 * federation's events, and the comments that replies become.
 */
@Injectable()
export class PostsClient implements OnApplicationShutdown {
  private readonly client: ClientProxy;

  constructor(@Inject(SOCIAL_CONFIG) config: SocialConfig) {
    this.client = createRpcClient(config, 'social', { host: config.POSTS_HOST, port: config.POSTS_PORT });
  }

  site() {
    return this.call(Patterns.posts.site, {}, READ_TIMEOUT_MS);
  }

  article(postId: number) {
    return this.call(Patterns.posts.article, { postId }, READ_TIMEOUT_MS);
  }

  outbox(offset: number, limit: number) {
    return this.call(Patterns.posts.articleOutbox, { offset, limit }, READ_TIMEOUT_MS);
  }

  /** A note's (or an owner's reply's) Note. */
  federatedNote(kind: 'note' | 'comment', id: number) {
    return this.call(Patterns.posts.federatedNote, { kind, id }, READ_TIMEOUT_MS);
  }

  pendingEvents(limit: number) {
    return this.call(Patterns.posts.federationPending, { limit }, READ_TIMEOUT_MS);
  }

  eventDone(id: string) {
    return this.call(Patterns.posts.federationDone, { id }, READ_TIMEOUT_MS);
  }

  createComment(command: RpcRequest<typeof Patterns.posts.commentCreateRemote>) {
    return this.call(Patterns.posts.commentCreateRemote, command, WRITE_TIMEOUT_MS);
  }

  updateComment(command: RpcRequest<typeof Patterns.posts.commentUpdateRemote>) {
    return this.call(Patterns.posts.commentUpdateRemote, command, WRITE_TIMEOUT_MS);
  }

  deleteComment(command: RpcRequest<typeof Patterns.posts.commentDeleteRemote>) {
    return this.call(Patterns.posts.commentDeleteRemote, command, WRITE_TIMEOUT_MS);
  }

  private call<P extends TypedPattern>(
    pattern: P,
    data: RpcRequest<P>,
    timeoutMs: number,
  ): Promise<RpcAnswer<P>> {
    return sendTyped(this.client, pattern, data, {
      requestId: currentRequestId() ?? 'federation',
      timeoutMs,
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.client.close();
  }
}
