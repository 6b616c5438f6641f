import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  isHoneypotFilled,
  MailText,
  maskEmail,
  type MailAck,
  type MailListResult,
  type SubscribeCommand,
  type SubscriberListQuery,
  type SubscriberView,
  type SubscriptionLinkResult,
} from '@blog/contracts';
import { RpcError } from '@blog/server-kit';
import { BackgroundTasks } from '../common/background-tasks.js';
import { confirmationEmail } from '../common/emails.js';
import { FormLimits } from '../common/form-limits.js';
import { hashToken, newLinkToken } from '../common/link-tokens.js';
import { errorText, retryDelayMs, SEND_LEASE_MS } from '../common/retry.js';
import { MAIL_CONFIG, type MailConfig } from '../config.js';
import { SiteTitle } from '../common/site-title.js';
import { MailTransport } from '../transport/mail-transport.js';
import { Subscriber } from './subscriber.entity.js';
import {
  SubscriptionsRepository,
  type ConfirmationDue,
  type RestoredSubscriber,
} from './subscriptions.repository.js';

const ACK: MailAck = { success: true, message: MailText.subscribeRequested };
/** A confirmation e-mail that still fails after this many tries is given up (the visitor can subscribe again). */
const CONFIRMATION_MAX_ATTEMPTS = 8;

export function toSubscriberView(row: Subscriber): SubscriberView {
  return {
    id: row.id,
    email: row.email,
    status: row.status,
    frequency: row.frequency,
    bounced: row.bouncedAt !== null,
    created_at: row.createdAt.toISOString(),
    confirmed_at: row.confirmedAt?.toISOString() ?? null,
    unsubscribed_at: row.unsubscribedAt?.toISOString() ?? null,
  };
}

/**
 * Double opt-in subscriptions: subscribing stores a pending row (one per address) and
 * e-mails a confirmation link; the link confirms. Unsubscribe links come with every digest.
 * Link tokens are stored hashed and each serves one purpose.
 */
@Injectable()
export class SubscriptionsService {
  private readonly logger = new Logger(SubscriptionsService.name);
  private draining = false;

  constructor(
    private readonly store: SubscriptionsRepository,
    private readonly limits: FormLimits,
    private readonly transport: MailTransport,
    private readonly background: BackgroundTasks,
    @Inject(MAIL_CONFIG) private readonly config: MailConfig,
    private readonly siteTitle: SiteTitle,
  ) {}

  /**
   * The same answer whether the address is new, pending, confirmed or unsubscribed: each gets
   * a fresh confirmation e-mail and still one row. A confirmed address stays confirmed; an
   * unsubscribed one is pending again until its owner confirms. The frequency asked for is
   * kept unless the address is confirmed already (then its preferences page changes it: a
   * form anyone can post does not).
   */
  async subscribe(command: SubscribeCommand): Promise<MailAck> {
    if (isHoneypotFilled(command)) return ACK;
    await this.limits.admit('subscribe', command.ip, MailText.tooManySubscriptions);
    const subscriber = await this.store.subscribe(command.email, command.frequency, SEND_LEASE_MS / 1000);
    this.background.run(`confirmation for subscriber ${subscriber.id}`, () =>
      this.sendConfirmation(subscriber),
    );
    return ACK;
  }

  /** Opening the confirmation link confirms (again opening it changes nothing). */
  async confirm(token: string): Promise<SubscriptionLinkResult> {
    const row = await this.store.confirm(hashToken(token));
    if (!row) throw RpcError.notFound(MailText.invalidLink);
    return { email: maskEmail(row.email), status: row.status };
  }

  /** What an unsubscribe link is about, for the page that asks before acting. */
  async unsubscribeInfo(token: string): Promise<SubscriptionLinkResult> {
    const row = await this.store.unsubscribeTarget(hashToken(token));
    if (!row) throw RpcError.notFound(MailText.invalidLink);
    return { email: maskEmail(row.email), status: row.status };
  }

  /**
   * Takes effect at once: no digest is claimed for the address any more, its pending retries
   * are cancelled, and earlier confirmation links stop working.
   */
  async unsubscribe(token: string): Promise<SubscriptionLinkResult> {
    const row = await this.store.unsubscribe(hashToken(token));
    if (!row) throw RpcError.notFound(MailText.invalidLink);
    return { email: maskEmail(row.email), status: 'unsubscribed' };
  }

  /** Confirmation e-mails whose send failed (or whose sender died) are sent again with a fresh link. */
  async retryConfirmations(limit = 20): Promise<number> {
    const due = await this.store.takeDueConfirmations(SEND_LEASE_MS / 1000, CONFIRMATION_MAX_ATTEMPTS, limit);
    let sent = 0;
    for (const subscriber of due) if (await this.sendConfirmation(subscriber)) sent++;
    return sent;
  }

  /**
   * Subscribers brought back from an export: their status and dates as they were, no
   * confirmation e-mail (a pending one may subscribe again); an address already here stays.
   * From another blog's archive (`madeHere` false) a confirmed address comes in pending, with
   * no confirmation date: it confirmed to that blog, not to this one, so it gets no digest
   * until its owner subscribes here and confirms. `unconfirmed` counts those.
   */
  async restore(
    rows: RestoredSubscriber[],
    madeHere: boolean,
  ): Promise<{ restored: number; unconfirmed: number }> {
    if (!rows.length) return { restored: 0, unconfirmed: 0 };
    const demote = (row: RestoredSubscriber) => !madeHere && row.status === 'confirmed';
    const inserted = await this.store.restore(
      rows.map((row) => (demote(row) ? { ...row, status: 'pending', confirmedAt: null } : row)),
    );
    const demoted = new Set(rows.filter(demote).map((r) => r.email.toLowerCase()));
    return {
      restored: inserted.length,
      unconfirmed: inserted.filter((row) => demoted.has(row.email.toLowerCase())).length,
    };
  }

  async list(query: SubscriberListQuery): Promise<MailListResult<SubscriberView>> {
    const { rows, total } = await this.store.page(query);
    return { items: rows.map(toSubscriberView), total };
  }

  /**
   * Sends the confirmations due now (an import's) in the background, a batch at a time, until
   * none is left or a batch fails to send (the sweep then retries). One drain per process.
   */
  sendDueConfirmations(batch = 50): void {
    if (this.draining) return;
    this.draining = true;
    this.background.run('due confirmations', async () => {
      try {
        while ((await this.retryConfirmations(batch)) === batch);
      } finally {
        this.draining = false;
      }
    });
  }

  private async sendConfirmation(subscriber: ConfirmationDue): Promise<boolean> {
    const { token, hash } = newLinkToken();
    await this.store.addConfirmToken(subscriber.id, hash, this.config.CONFIRM_TOKEN_TTL);
    const link = `${this.config.SITE_URL}/api/subscribe/confirm?token=${token}`;
    try {
      await this.transport.send(
        confirmationEmail(subscriber.email, link, await this.siteTitle.current(), this.config),
      );
    } catch (error) {
      const delay = retryDelayMs(this.config, subscriber.confirmation_attempts);
      this.logger.warn(
        `confirmation for subscriber ${subscriber.id} not sent (try ${subscriber.confirmation_attempts}): ${errorText(error)}`,
      );
      await this.store.confirmationFailed(subscriber.id, delay / 1000);
      return false;
    }
    await this.store.confirmationSent(subscriber.id);
    return true;
  }

  /** Expired confirmation links are useless; keeps the table small. */
  async purgeExpiredTokens(): Promise<void> {
    await this.store.purgeExpiredTokens();
  }
}
