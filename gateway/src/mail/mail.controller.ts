import { Body, Controller, Get, HttpCode, Post, Query, Req, Res } from '@nestjs/common';
import {
  contactSchema,
  MailText,
  Patterns,
  subscribeSchema,
  type ContactCommand,
  type ContactRequest,
  type MailAck,
  type SubscribeCommand,
  type SubscribeRequest,
  type SubscriptionLinkResult,
} from '@blog/contracts';
import type { Request, Response } from 'express';
import { ApiError } from '../common/api-error.js';
import { ZodPipe } from '../common/zod.pipe.js';
import { ServiceClients } from '../rpc/service-clients.js';
import { sendPage, type PageContent } from './pages.js';

const HOME = { href: '/', text: 'Go to the blog' };
const ABOUT = { href: '/about', text: 'Subscribe again on the About page' };

/** The public forms of the About page and the pages their e-mail links open. */
@Controller('api')
export class MailController {
  constructor(private readonly services: ServiceClients) {}

  /** docs/api.md: POST {api}/contact {name, email, subject, message}; any 2xx is success. */
  @Post('contact')
  @HttpCode(200)
  contact(@Body(new ZodPipe(contactSchema)) body: ContactRequest, @Req() req: Request): Promise<MailAck> {
    const command: ContactCommand = { ...body, ip: req.ip ?? 'unknown' };
    return this.services.call('mail', Patterns.mail.contact, command);
  }

  /** docs/api.md: POST {api}/subscribe {email}. The answer is the same whatever the address's state. */
  @Post('subscribe')
  @HttpCode(200)
  subscribe(
    @Body(new ZodPipe(subscribeSchema)) body: SubscribeRequest,
    @Req() req: Request,
  ): Promise<MailAck> {
    const command: SubscribeCommand = { ...body, ip: req.ip ?? 'unknown' };
    return this.services.call('mail', Patterns.mail.subscribe, command);
  }

  /** The link in the confirmation e-mail: opening it confirms. */
  @Get('subscribe/confirm')
  async confirm(@Query('token') token: unknown, @Res() res: Response): Promise<void> {
    await this.page(res, Patterns.mail.confirm, token, (result) => ({
      title: 'Subscription confirmed',
      paragraphs: [`Thank you! ${result.email} will get an e-mail with the new posts every week.`],
      link: HOME,
    }));
  }

  /** The unsubscribe link of a digest, opened in a browser: asks before acting. */
  @Get('unsubscribe')
  async unsubscribePage(@Query('token') token: unknown, @Res() res: Response): Promise<void> {
    await this.page(res, Patterns.mail.unsubscribeInfo, token, (result) =>
      result.status === 'unsubscribed'
        ? {
            title: 'You are unsubscribed',
            paragraphs: [`${result.email} gets no weekly e-mail any more.`],
            link: ABOUT,
          }
        : {
            title: 'Unsubscribe?',
            paragraphs: [`Stop the weekly e-mail with the new posts to ${result.email}?`],
            form: { button: 'Unsubscribe' },
            link: HOME,
          },
    );
  }

  /**
   * Unsubscribes at once: the page's button, and RFC 8058 one-click from mail clients
   * (a POST to the List-Unsubscribe URL with "List-Unsubscribe=One-Click"; its body carries nothing else).
   */
  @Post('unsubscribe')
  async unsubscribe(
    @Query('token') token: unknown,
    @Body() body: unknown,
    @Res() res: Response,
  ): Promise<void> {
    const fromBody =
      typeof body === 'object' && body !== null ? (body as { token?: unknown }).token : undefined;
    await this.page(res, Patterns.mail.unsubscribe, token ?? fromBody, (result) => ({
      title: 'You are unsubscribed',
      paragraphs: [`${result.email} will get no more weekly e-mails.`],
      link: ABOUT,
    }));
  }

  /** Calls the mail service with the link's token and answers with a page, errors included. */
  private async page(
    res: Response,
    pattern:
      typeof Patterns.mail.confirm | typeof Patterns.mail.unsubscribeInfo | typeof Patterns.mail.unsubscribe,
    token: unknown,
    success: (result: SubscriptionLinkResult) => PageContent,
  ): Promise<void> {
    let result: SubscriptionLinkResult;
    try {
      if (typeof token !== 'string') throw new ApiError(404, MailText.invalidLink);
      result = await this.services.call('mail', pattern, { token });
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      const status = error.getStatus();
      if (status === 404 || status === 400) {
        return sendPage(res, 404, {
          title: 'This link does not work',
          paragraphs: [MailText.invalidLink],
          link: ABOUT,
        });
      }
      return sendPage(res, status, {
        title: 'Something went wrong',
        paragraphs: ['The blog cannot answer right now. Please open the link again in a few minutes.'],
        link: HOME,
      });
    }
    sendPage(res, 200, success(result));
  }
}
