import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Patterns, type RpcEnvelope } from '@blog/contracts';
import { parseRequest } from '@blog/server-kit';
import { BackgroundTasks } from '../common/background-tasks.js';
import { SiteTitle } from '../common/site-title.js';
import { MAIL_CONFIG, type MailConfig } from '../config.js';
import { MailTransport } from '../transport/mail-transport.js';

/**
 * The owner's "backups need a look" mail, in plain text. The posts service decides when (at
 * most one a day, while the last backup failed or the last good one is old); this sends it.
 */
@Controller()
export class BackupWarningController {
  constructor(
    private readonly transport: MailTransport,
    private readonly background: BackgroundTasks,
    private readonly siteTitle: SiteTitle,
    @Inject(MAIL_CONFIG) private readonly config: MailConfig,
  ) {}

  @MessagePattern(Patterns.mail.backupWarning)
  warn(@Payload() message: RpcEnvelope<unknown>): { sent: boolean } {
    const notice = parseRequest(Patterns.mail.backupWarning, message);
    this.background.run('backup warning', async () => {
      const title = await this.siteTitle.current();
      await this.transport.send({
        to: this.config.OWNER_EMAIL,
        subject: `[${title}] Backups need a look`,
        text:
          `${notice.warning}\n\n` +
          `Backups go to ${notice.target}. See them, and back up now, in the dashboard's Backup tab: ` +
          `${this.config.SITE_URL}/admin?tab=backup\n\n` +
          `This e-mail is sent at most once a day while the backups need a look.\n`,
      });
    });
    return { sent: true };
  }
}
