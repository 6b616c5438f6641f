import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Patterns, type RpcEnvelope } from '@blog/contracts';
import { parseRequest } from '@blog/server-kit';
import { NewsletterService } from './newsletter.service.js';

/** What the mail service asks of posts for every post by e-mail. */
@Controller()
export class NewsletterController {
  constructor(private readonly newsletter: NewsletterService) {}

  @MessagePattern(Patterns.posts.newsletterPending)
  pending(@Payload() message: RpcEnvelope<unknown>) {
    return this.newsletter.pending(parseRequest(Patterns.posts.newsletterPending, message).limit);
  }

  @MessagePattern(Patterns.posts.newsletterDone)
  done(@Payload() message: RpcEnvelope<unknown>) {
    return this.newsletter.done(parseRequest(Patterns.posts.newsletterDone, message).id);
  }

  @MessagePattern(Patterns.posts.newsletterPost)
  post(@Payload() message: RpcEnvelope<unknown>) {
    const { postId, preview } = parseRequest(Patterns.posts.newsletterPost, message);
    return this.newsletter.post(postId, preview ?? false);
  }
}
