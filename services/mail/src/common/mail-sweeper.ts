import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { ContactService } from '../contact/contact.service.js';
import { MAIL_CONFIG, type MailConfig } from '../config.js';
import { DigestService } from '../digest/digest.service.js';
import { NewsletterService } from '../newsletter/newsletter.service.js';
import { SubscriptionsService } from '../subscriptions/subscriptions.service.js';
import { FormLimits } from './form-limits.js';
import { errorText } from './retry.js';

const HOUSEKEEPING_MS = 3600 * 1000;

/**
 * The database is the truth, so nothing waits on a queue: every MAIL_RETRY_INTERVAL_MS each
 * replica sends what is due (contact messages and confirmations whose send failed or whose
 * sender died, digest e-mails that failed), resumes digests left unfinished, and takes over
 * the posts owed by e-mail and sends (or resumes) them. It runs once right after start, which
 * is how a restart finishes an interrupted digest or post e-mail.
 */
@Injectable()
export class MailSweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(MailSweeper.name);
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private lastHousekeeping = 0;
  private stopped = false;

  constructor(
    private readonly contact: ContactService,
    private readonly subscriptions: SubscriptionsService,
    private readonly digest: DigestService,
    private readonly newsletter: NewsletterService,
    private readonly limits: FormLimits,
    @Inject(MAIL_CONFIG) private readonly config: MailConfig,
  ) {}

  onApplicationBootstrap() {
    this.timer = setInterval(() => void this.sweep(), this.config.MAIL_RETRY_INTERVAL_MS);
    this.timer.unref();
    setImmediate(() => void this.sweep());
  }

  async onModuleDestroy() {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
  }

  /** One pass; a pass still running makes the next tick a no-op. */
  sweep(): Promise<void> {
    if (this.stopped || this.running) return this.running ?? Promise.resolve();
    this.running = this.pass().finally(() => (this.running = undefined));
    return this.running;
  }

  private async pass() {
    const steps: [string, () => Promise<unknown>][] = [
      ['contact messages', () => this.contact.retryDue()],
      ['confirmations', () => this.subscriptions.retryConfirmations()],
      ['digest claims', () => this.digest.expireLostClaims()],
      ['digest retries', () => this.digest.retryFailed()],
      ['unfinished digests', () => this.digest.resumeUnfinished()],
      ['per-post e-mails', () => this.newsletter.sweep()],
    ];
    if (Date.now() - this.lastHousekeeping > HOUSEKEEPING_MS) {
      this.lastHousekeeping = Date.now();
      steps.push(['form limits', () => this.limits.purgeExpired()]);
      steps.push(['expired links', () => this.subscriptions.purgeExpiredTokens()]);
    }
    for (const [name, step] of steps) {
      if (this.stopped) return;
      try {
        await step();
      } catch (error) {
        this.logger.warn(`sweep of ${name} failed: ${errorText(error)}`);
      }
    }
  }
}
