import { Controller, Get, Header, HttpCode, Param, Post } from '@nestjs/common';
import { Patterns, type NewsletterStatus, type NewsletterTestResult } from '@blog/contracts';
import { ApiError } from '../common/api-error.js';
import { AdminOnly } from '../common/auth.guard.js';
import { ServiceClients } from '../rpc/service-clients.js';

/** A post id as the path carries it; anything else is a 400 before any service is asked. */
function postId(raw: string): number {
  if (!/^[1-9]\d{0,8}$/.test(raw)) throw new ApiError(400, 'id must be a positive whole number');
  return Number(raw);
}

/**
 * A post's e-mail, as the post form and the dashboard's list show it: how its send stands, a
 * test to the owner, and how many subscribers a post's e-mail reaches. The mail service answers.
 */
@Controller('api/admin')
export class NewsletterAdminController {
  constructor(private readonly services: ServiceClients) {}

  @Get('posts/:id/email')
  @AdminOnly()
  @Header('Cache-Control', 'no-store')
  status(@Param('id') id: string): Promise<NewsletterStatus> {
    return this.services.read('mail', Patterns.mail.newsletterStatus, { postId: postId(id) });
  }

  @Post('posts/:id/email/test')
  @AdminOnly()
  @HttpCode(200)
  test(@Param('id') id: string): Promise<NewsletterTestResult> {
    return this.services.call('mail', Patterns.mail.newsletterTest, { postId: postId(id) });
  }

  @Get('newsletter/audience')
  @AdminOnly()
  @Header('Cache-Control', 'no-store')
  audience(): Promise<{ eachPost: number }> {
    return this.services.read('mail', Patterns.mail.newsletterAudience, {});
  }
}
