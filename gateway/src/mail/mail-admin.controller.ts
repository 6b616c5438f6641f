import { Controller, Get, Header, HttpCode, Post, Query, Res } from '@nestjs/common';
import {
  messageListQuerySchema,
  Patterns,
  subscriberListQuerySchema,
  type ContactMessageView,
  type DigestRunResult,
  type MessageListQuery,
  type SubscriberListQuery,
  type SubscriberView,
} from '@blog/contracts';
import type { Response } from 'express';
import { AdminOnly } from '../common/auth.guard.js';
import { ZodPipe } from '../common/zod.pipe.js';
import { ServiceClients } from '../rpc/service-clients.js';

/** Sending a digest to every subscriber takes longer than an ordinary call may. */
const DIGEST_TIMEOUT_MS = 30 * 60_000;

/** The owner's view of the mail service. Lists are newest first; the total is in X-Total-Count. */
@Controller('api/admin')
export class MailAdminController {
  constructor(private readonly services: ServiceClients) {}

  /** Sends this week's digest now (the same job as the schedule, never twice to one subscriber in a week). */
  @Post('digest')
  @AdminOnly()
  @HttpCode(200)
  digest(): Promise<DigestRunResult> {
    return this.services.call('mail', Patterns.mail.runDigest, {}, DIGEST_TIMEOUT_MS);
  }

  @Get('messages')
  @AdminOnly()
  @Header('Cache-Control', 'no-store')
  async messages(
    @Query(new ZodPipe(messageListQuerySchema)) query: MessageListQuery,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ContactMessageView[]> {
    const result = await this.services.read('mail', Patterns.mail.listMessages, query);
    res.setHeader('X-Total-Count', String(result.total));
    return result.items;
  }

  @Get('subscribers')
  @AdminOnly()
  @Header('Cache-Control', 'no-store')
  async subscribers(
    @Query(new ZodPipe(subscriberListQuerySchema)) query: SubscriberListQuery,
    @Res({ passthrough: true }) res: Response,
  ): Promise<SubscriberView[]> {
    const result = await this.services.read('mail', Patterns.mail.listSubscribers, query);
    res.setHeader('X-Total-Count', String(result.total));
    return result.items;
  }
}
