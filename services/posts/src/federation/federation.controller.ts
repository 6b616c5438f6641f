import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Patterns, type RpcEnvelope } from '@blog/contracts';
import { parseRequest } from '@blog/server-kit';
import { ArticlesService } from './articles.service.js';
import { FederationEvents } from './federation-events.js';

/** What the social service asks of posts: Articles, and the events owed to followers. */
@Controller()
export class FederationController {
  constructor(
    private readonly articles: ArticlesService,
    private readonly events: FederationEvents,
  ) {}

  @MessagePattern(Patterns.posts.article)
  article(@Payload() message: RpcEnvelope<unknown>) {
    return this.articles.get(parseRequest(Patterns.posts.article, message).postId);
  }

  @MessagePattern(Patterns.posts.articleOutbox)
  outbox(@Payload() message: RpcEnvelope<unknown>) {
    const { offset, limit } = parseRequest(Patterns.posts.articleOutbox, message);
    return this.articles.outbox(offset, limit);
  }

  @MessagePattern(Patterns.posts.federationPending)
  pending(@Payload() message: RpcEnvelope<unknown>) {
    return this.events.pending(parseRequest(Patterns.posts.federationPending, message).limit);
  }

  @MessagePattern(Patterns.posts.federationDone)
  done(@Payload() message: RpcEnvelope<unknown>) {
    return this.events.done(parseRequest(Patterns.posts.federationDone, message).id);
  }
}
