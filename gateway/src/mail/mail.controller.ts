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
  type PreferencesView,
} from '@blog/contracts';
import express, { type Request, type Response } from 'express';
import { ApiError } from '../common/api-error.js';
import { ZodPipe } from '../common/zod.pipe.js';
import { ServiceClients } from '../rpc/service-clients.js';
import { sendPage, type PageContent } from './pages.js';

/** The preferences page's forms, posted without JavaScript: tiny, URL-encoded. */
const parseForm = express.urlencoded({ extended: false, limit: '4kb', parameterLimit: 4 });

const STATUS_TEXT: Record<PreferencesView['status'], string> = {
  confirmed: 'is subscribed',
  pending: 'is waiting for you to open the confirmation link we sent',
  unsubscribed: 'is unsubscribed: it gets no e-mail from the blog',
};

/** The preferences page: how often, and unsubscribe (a form each, posting back to the same link). */
function preferencesPage(view: PreferencesView, saved: string | null): PageContent {
  return {
    title: 'Your subscription',
    paragraphs: [...(saved ? [saved] : []), `${view.email} ${STATUS_TEXT[view.status]}.`],
    forms:
      view.status === 'unsubscribed'
        ? []
        : [
            {
              button: 'Save',
              choice: {
                name: 'frequency',
                legend: 'How often would you like e-mail?',
                options: [
                  {
                    value: 'each-post',
                    label: 'Every new post, as it is published',
                    checked: view.frequency === 'each-post',
                  },
                  { value: 'weekly', label: 'A weekly digest', checked: view.frequency === 'weekly' },
                ],
              },
            },
            { button: 'Unsubscribe', hidden: { unsubscribe: 'true' } },
          ],
    link: view.status === 'unsubscribed' ? ABOUT : HOME,
  };
}

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

  /** docs/api.md: POST {api}/subscribe {email, frequency}. The answer is the same whatever the address's state. */
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
    await this.linkPage(res, Patterns.mail.confirm, token, (result) => ({
      title: 'Subscription confirmed',
      paragraphs: [`Thank you! ${result.email} will get an e-mail with the new posts every week.`],
      link: HOME,
    }));
  }

  /** The unsubscribe link of a digest, opened in a browser: asks before acting. */
  @Get('unsubscribe')
  async unsubscribePage(@Query('token') token: unknown, @Res() res: Response): Promise<void> {
    await this.linkPage(res, Patterns.mail.unsubscribeInfo, token, (result) =>
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
    await this.linkPage(res, Patterns.mail.unsubscribe, token ?? fromBody, (result) => ({
      title: 'You are unsubscribed',
      paragraphs: [`${result.email} will get no more weekly e-mails.`],
      link: ABOUT,
    }));
  }

  /** The preferences link of a newsletter or digest: how often, or unsubscribe; no account needed. */
  @Get('preferences')
  async preferencesPage(@Query('token') token: unknown, @Res() res: Response): Promise<void> {
    await this.page(
      res,
      () => this.preferencesCall(Patterns.mail.preferences, { token }),
      (view) => preferencesPage(view, null),
    );
  }

  /**
   * The preferences page's forms (URL-encoded `frequency`, or `unsubscribe=true`; the token in
   * the link's query), answered with the page; a JSON body `{token, frequency?, unsubscribe?}`
   * is answered with JSON. The unguessable token is the credential, so a form from another
   * site cannot change anything.
   */
  @Post('preferences')
  async preferences(
    @Query('token') token: unknown,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    if (req.is('application/json')) {
      const body = (req.body ?? {}) as Record<string, unknown>;
      const view = await this.preferencesCall(Patterns.mail.preferencesUpdate, {
        ...body,
        token: body.token ?? token,
      });
      res.status(200).set('Cache-Control', 'no-store').json(view);
      return;
    }
    await new Promise<void>((resolve, reject) =>
      parseForm(req, res, (error) => (error ? reject(error) : resolve())),
    );
    const form = (req.body ?? {}) as Record<string, unknown>;
    const unsubscribe = form.unsubscribe === 'true';
    const update = {
      token: token ?? form.token,
      ...(unsubscribe ? { unsubscribe } : { frequency: form.frequency }),
    };
    await this.page(
      res,
      () => this.preferencesCall(Patterns.mail.preferencesUpdate, update),
      (view) =>
        preferencesPage(
          view,
          unsubscribe
            ? 'You are unsubscribed: no more e-mail from the blog.'
            : view.frequency === 'weekly'
              ? 'Saved: you will get a weekly digest.'
              : 'Saved: you will get every new post by e-mail.',
        ),
    );
  }

  /** A preferences RPC; a token that is not a string, or malformed, is an invalid link (404). */
  private preferencesCall(
    pattern: typeof Patterns.mail.preferences | typeof Patterns.mail.preferencesUpdate,
    data: Record<string, unknown>,
  ): Promise<PreferencesView> {
    if (typeof data.token !== 'string') throw new ApiError(404, MailText.invalidLink);
    return this.services.call('mail', pattern, data as never);
  }

  /** Calls the mail service with the link's token and answers with a page, errors included. */
  private async linkPage(
    res: Response,
    pattern:
      typeof Patterns.mail.confirm | typeof Patterns.mail.unsubscribeInfo | typeof Patterns.mail.unsubscribe,
    token: unknown,
    success: (result: SubscriptionLinkResult) => PageContent,
  ): Promise<void> {
    await this.page(
      res,
      () => {
        if (typeof token !== 'string') throw new ApiError(404, MailText.invalidLink);
        return this.services.call('mail', pattern, { token });
      },
      success,
    );
  }

  /** Answers with `success`'s page, or with the page of the error (an invalid link is a 404). */
  private async page<T>(
    res: Response,
    call: () => Promise<T>,
    success: (result: T) => PageContent,
  ): Promise<void> {
    let result: T;
    try {
      result = await call();
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      const status = error.getStatus();
      const text = (error.getResponse() as { error?: string }).error ?? MailText.invalidLink;
      if (status === 400 && text !== MailText.invalidLink) {
        return sendPage(res, 400, { title: 'This did not work', paragraphs: [text], link: HOME });
      }
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
