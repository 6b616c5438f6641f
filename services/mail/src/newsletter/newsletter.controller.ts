import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Patterns, type RpcEnvelope } from '@blog/contracts';
import { parseRequest } from '@blog/server-kit';
import { NewsletterService } from './newsletter.service.js';

/** The owner's view of a post's e-mail: how its send stands, a test copy, and who would get it. */
@Controller()
export class NewsletterController {
  constructor(private readonly newsletter: NewsletterService) {}

  @MessagePattern(Patterns.mail.newsletterStatus)
  status(@Payload() message: RpcEnvelope<unknown>) {
    return this.newsletter.status(parseRequest(Patterns.mail.newsletterStatus, message).postId);
  }

  @MessagePattern(Patterns.mail.newsletterTest)
  test(@Payload() message: RpcEnvelope<unknown>) {
    return this.newsletter.test(parseRequest(Patterns.mail.newsletterTest, message).postId);
  }

  @MessagePattern(Patterns.mail.newsletterAudience)
  audience() {
    return this.newsletter.audience();
  }
}
