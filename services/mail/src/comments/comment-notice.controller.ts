import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Patterns, type RpcEnvelope } from '@blog/contracts';
import { parseRequest } from '@blog/server-kit';
import { BackgroundTasks } from '../common/background-tasks.js';
import { SiteTitle } from '../common/site-title.js';
import { MAIL_CONFIG, type MailConfig } from '../config.js';
import { MailTransport } from '../transport/mail-transport.js';

/**
 * The owner's "comments wait for approval" mail. The posts service decides when (at most one
 * an hour); this sends it once, in the background: a lost one is followed by the next hour's.
 */
@Controller()
export class CommentNoticeController {
  constructor(
    private readonly transport: MailTransport,
    private readonly background: BackgroundTasks,
    private readonly siteTitle: SiteTitle,
    @Inject(MAIL_CONFIG) private readonly config: MailConfig,
  ) {}

  @MessagePattern(Patterns.mail.commentPending)
  pending(@Payload() message: RpcEnvelope<unknown>): { sent: boolean } {
    const notice = parseRequest(Patterns.mail.commentPending, message);
    this.background.run('comment notice', async () => {
      const title = await this.siteTitle.current();
      const waiting = notice.pending === 1 ? '1 comment waits' : `${notice.pending} comments wait`;
      await this.transport.send({
        to: this.config.OWNER_EMAIL,
        subject: `[${title}] New comment to approve`,
        text:
          `${notice.authorName} commented on "${notice.postTitle}" (${this.config.SITE_URL}${notice.postUrl}):\n\n` +
          `${notice.excerpt}\n\n` +
          `${waiting} for approval in the dashboard's Comments tab: ${this.config.SITE_URL}/admin\n`,
      });
    });
    return { sent: true };
  }
}
