import { Controller, Get, Header, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import {
  csvCell,
  messageListQuerySchema,
  Patterns,
  SUBSCRIBER_CSV_COLUMNS,
  subscriberListQuerySchema,
  type SubscriberCounts,
  type SubscriberImportReport,
  type ContactMessageView,
  type DigestRunResult,
  type MessageListQuery,
  type SubscriberListQuery,
  type SubscriberView,
} from '@blog/contracts';
import type { Request, Response } from 'express';
import { z } from 'zod';
import { ApiError } from '../common/api-error.js';
import { AdminOnly } from '../common/auth.guard.js';
import { ZodPipe } from '../common/zod.pipe.js';
import { ServiceClients } from '../rpc/service-clients.js';
import { importSubscribers } from './subscriber-import.js';

const importId = z.uuid();
const EXPORT_PAGE = 1000;

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

  @Get('subscribers/counts')
  @AdminOnly()
  @Header('Cache-Control', 'no-store')
  subscriberCounts(): Promise<SubscriberCounts> {
    return this.services.read('mail', Patterns.mail.subscriberCounts, {});
  }

  /** Every subscriber as CSV, streamed a page at a time; every cell escaped against spreadsheet formulas. */
  @Get('subscribers/export')
  @AdminOnly()
  async exportSubscribers(@Res() res: Response): Promise<void> {
    // The first page before the headers: a mail service that is down is a plain 503.
    let page = await this.services.read('mail', Patterns.mail.subscriberExportPage, {
      afterId: 0,
      limit: EXPORT_PAGE,
    });
    const date = new Date().toISOString().slice(0, 10);
    res.status(200).set({
      'Content-Type': 'text/csv; charset=utf-8',
      'Content-Disposition': `attachment; filename="subscribers-${date}.csv"`,
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
    });
    const write = async (text: string) => {
      if (!res.write(text)) await new Promise((resolve) => res.once('drain', resolve));
    };
    try {
      await write(`${SUBSCRIBER_CSV_COLUMNS.map(csvCell).join(',')}\r\n`);
      for (;;) {
        const lines = page.items.map(
          (s) => `${SUBSCRIBER_CSV_COLUMNS.map((column) => csvCell(s[column])).join(',')}\r\n`,
        );
        if (lines.length) await write(lines.join(''));
        if (page.nextAfterId === null || res.destroyed) break;
        page = await this.services.read('mail', Patterns.mail.subscriberExportPage, {
          afterId: page.nextAfterId,
          limit: EXPORT_PAGE,
        });
      }
      res.end();
    } catch {
      // Half a file must not look whole: the download fails.
      res.destroy();
    }
  }

  /**
   * A CSV of subscribers (Ghost, Substack, Mailchimp, Buttondown), streamed to the mail service
   * in batches. `X-Import-Id` (a UUID of the client's) names the import so that GET
   * …/import/{id} follows it while the upload runs. 200 the report when the upload ends.
   */
  @Post('subscribers/import')
  @AdminOnly()
  @HttpCode(200)
  @Header('Cache-Control', 'no-store')
  importSubscribers(@Req() req: Request): Promise<SubscriberImportReport> {
    const header = req.headers['x-import-id'];
    let id: string | undefined;
    if (header !== undefined) {
      const parsed = importId.safeParse(header);
      if (!parsed.success) throw new ApiError(400, 'X-Import-Id must be a UUID');
      id = parsed.data;
    }
    return importSubscribers(req, this.services, id);
  }

  @Get('subscribers/import/:id')
  @AdminOnly()
  @Header('Cache-Control', 'no-store')
  importReport(@Param('id') id: string): Promise<SubscriberImportReport> {
    if (!importId.safeParse(id).success) throw new ApiError(404, 'Import not found');
    return this.services.read('mail', Patterns.mail.subscriberImportStatus, { id });
  }

  @Post('subscribers/:id/reset-bounce')
  @AdminOnly()
  @HttpCode(200)
  resetBounce(@Param('id') id: string): Promise<SubscriberView> {
    if (!/^[1-9]\d{0,8}$/.test(id)) throw new ApiError(404, 'Subscriber not found');
    return this.services.call('mail', Patterns.mail.subscriberResetBounce, { id: Number(id) });
  }
}
