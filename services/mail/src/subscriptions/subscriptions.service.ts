import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
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
  type SubscriptionStatus,
} from '@blog/contracts';
import { RpcError } from '@blog/server-kit';
import { DataSource, Repository } from 'typeorm';
import { BackgroundTasks } from '../common/background-tasks.js';
import { confirmationEmail } from '../common/emails.js';
import { FormLimits } from '../common/form-limits.js';
import { hashToken, newLinkToken } from '../common/link-tokens.js';
import { errorText, retryDelayMs, SEND_LEASE_MS } from '../common/retry.js';
import { MAIL_CONFIG, type MailConfig } from '../config.js';
import { SiteTitle } from '../common/site-title.js';
import { MailTransport } from '../transport/mail-transport.js';
import { Subscriber } from './subscriber.entity.js';
import { queryRows } from '../common/sql.js';

const ACK: MailAck = { success: true, message: MailText.subscribeRequested };
/** A confirmation e-mail that still fails after this many tries is given up (the visitor can subscribe again). */
const CONFIRMATION_MAX_ATTEMPTS = 8;

interface ConfirmationDue {
  id: number;
  email: string;
  confirmation_attempts: number;
}

export function toSubscriberView(row: Subscriber): SubscriberView {
  return {
    id: row.id,
    email: row.email,
    status: row.status,
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

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @InjectRepository(Subscriber) private readonly subscribers: Repository<Subscriber>,
    private readonly limits: FormLimits,
    private readonly transport: MailTransport,
    private readonly background: BackgroundTasks,
    @Inject(MAIL_CONFIG) private readonly config: MailConfig,
    private readonly siteTitle: SiteTitle,
  ) {}

  /**
   * The same answer whether the address is new, pending, confirmed or unsubscribed: each gets
   * a fresh confirmation e-mail and still one row. A confirmed address stays confirmed; an
   * unsubscribed one is pending again until its owner confirms.
   */
  async subscribe(command: SubscribeCommand): Promise<MailAck> {
    if (isHoneypotFilled(command)) return ACK;
    await this.limits.admit('subscribe', command.ip, MailText.tooManySubscriptions);
    const rows = await queryRows<ConfirmationDue>(
      this.db,
      `INSERT INTO subscribers AS s (email, status, confirmation_due_at, confirmation_attempts)
       VALUES ($1, 'pending', now() + make_interval(secs => $2), 1)
       ON CONFLICT ((lower(email))) DO UPDATE SET
         status = CASE WHEN s.status = 'unsubscribed' THEN 'pending' ELSE s.status END,
         confirmation_due_at = EXCLUDED.confirmation_due_at,
         confirmation_attempts = 1
       RETURNING id, email, confirmation_attempts`,
      [command.email, SEND_LEASE_MS / 1000],
    );
    const subscriber = rows[0]!;
    this.background.run(`confirmation for subscriber ${subscriber.id}`, () =>
      this.sendConfirmation(subscriber),
    );
    return ACK;
  }

  /** Opening the confirmation link confirms (again opening it changes nothing). */
  async confirm(token: string): Promise<SubscriptionLinkResult> {
    const rows = await queryRows<{ email: string; status: SubscriptionStatus }>(
      this.db,
      `UPDATE subscribers s SET
         status = 'confirmed',
         confirmed_at = CASE WHEN s.status = 'confirmed' THEN s.confirmed_at ELSE now() END,
         confirmation_due_at = NULL
       FROM mail_tokens t
       WHERE t.hash = $1 AND t.purpose = 'confirm' AND (t.expires_at IS NULL OR t.expires_at > now())
         AND s.id = t.subscriber_id
       RETURNING s.email, s.status`,
      [hashToken(token)],
    );
    const row = rows[0];
    if (!row) throw RpcError.notFound(MailText.invalidLink);
    return { email: maskEmail(row.email), status: row.status };
  }

  /** What an unsubscribe link is about, for the page that asks before acting. */
  async unsubscribeInfo(token: string): Promise<SubscriptionLinkResult> {
    const rows = await queryRows<{ email: string; status: SubscriptionStatus }>(
      this.db,
      `SELECT s.email, s.status FROM mail_tokens t JOIN subscribers s ON s.id = t.subscriber_id
       WHERE t.hash = $1 AND t.purpose = 'unsubscribe'`,
      [hashToken(token)],
    );
    const row = rows[0];
    if (!row) throw RpcError.notFound(MailText.invalidLink);
    return { email: maskEmail(row.email), status: row.status };
  }

  /**
   * Takes effect at once: no digest is claimed for the address any more, its pending retries
   * are cancelled, and earlier confirmation links stop working.
   */
  async unsubscribe(token: string): Promise<SubscriptionLinkResult> {
    return this.db.transaction(async (manager) => {
      const rows = await queryRows<{ id: number; email: string }>(
        manager,
        `UPDATE subscribers s SET
           status = 'unsubscribed',
           unsubscribed_at = CASE WHEN s.status = 'unsubscribed' THEN s.unsubscribed_at ELSE now() END,
           confirmation_due_at = NULL
         FROM mail_tokens t
         WHERE t.hash = $1 AND t.purpose = 'unsubscribe' AND s.id = t.subscriber_id
         RETURNING s.id, s.email`,
        [hashToken(token)],
      );
      const row = rows[0];
      if (!row) throw RpcError.notFound(MailText.invalidLink);
      await manager.query(`DELETE FROM mail_tokens WHERE subscriber_id = $1 AND purpose = 'confirm'`, [
        row.id,
      ]);
      await manager.query(
        `UPDATE digest_deliveries SET status = 'cancelled', next_attempt_at = NULL
         WHERE subscriber_id = $1 AND status = 'failed'`,
        [row.id],
      );
      return { email: maskEmail(row.email), status: 'unsubscribed' as const };
    });
  }

  /** Confirmation e-mails whose send failed (or whose sender died) are sent again with a fresh link. */
  async retryConfirmations(limit = 20): Promise<number> {
    const due = await queryRows<ConfirmationDue>(
      this.db,
      `UPDATE subscribers SET
         confirmation_attempts = confirmation_attempts + 1,
         confirmation_due_at = now() + make_interval(secs => $1)
       WHERE id IN (
         SELECT id FROM subscribers
         WHERE confirmation_due_at <= now() AND confirmation_attempts < $2 AND status <> 'unsubscribed'
         ORDER BY confirmation_due_at LIMIT $3 FOR UPDATE SKIP LOCKED)
       RETURNING id, email, confirmation_attempts`,
      [SEND_LEASE_MS / 1000, CONFIRMATION_MAX_ATTEMPTS, limit],
    );
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
    rows: {
      email: string;
      status: SubscriptionStatus;
      createdAt: string;
      confirmedAt: string | null;
      unsubscribedAt: string | null;
    }[],
    madeHere: boolean,
  ): Promise<{ restored: number; unconfirmed: number }> {
    if (!rows.length) return { restored: 0, unconfirmed: 0 };
    const demote = (row: (typeof rows)[number]) => !madeHere && row.status === 'confirmed';
    const inserted = (await this.subscribers.query(
      `INSERT INTO subscribers (email, status, created_at, confirmed_at, unsubscribed_at, confirmation_attempts)
       SELECT * FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::timestamptz[], $5::timestamptz[], $6::int[])
       ON CONFLICT ((lower(email))) DO NOTHING RETURNING email, status`,
      [
        rows.map((r) => r.email),
        rows.map((r) => (demote(r) ? 'pending' : r.status)),
        rows.map((r) => r.createdAt),
        rows.map((r) => (demote(r) ? null : r.confirmedAt)),
        rows.map((r) => r.unsubscribedAt),
        rows.map(() => 0),
      ],
    )) as { email: string; status: SubscriptionStatus }[];
    const demoted = new Set(rows.filter(demote).map((r) => r.email.toLowerCase()));
    return {
      restored: inserted.length,
      unconfirmed: inserted.filter((row) => demoted.has(row.email.toLowerCase())).length,
    };
  }

  async list(query: SubscriberListQuery): Promise<MailListResult<SubscriberView>> {
    const [rows, total] = await this.subscribers.findAndCount({
      where: query.status ? { status: query.status } : {},
      order: { createdAt: 'DESC', id: 'DESC' },
      skip: (query.page - 1) * query.limit,
      take: query.limit,
    });
    return { items: rows.map(toSubscriberView), total };
  }

  private async sendConfirmation(subscriber: ConfirmationDue): Promise<boolean> {
    const { token, hash } = newLinkToken();
    await this.db.query(
      `INSERT INTO mail_tokens (hash, subscriber_id, purpose, expires_at)
       VALUES ($1, $2, 'confirm', now() + make_interval(secs => $3))`,
      [hash, subscriber.id, this.config.CONFIRM_TOKEN_TTL],
    );
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
      await this.db.query(
        `UPDATE subscribers SET confirmation_due_at = now() + make_interval(secs => $2) WHERE id = $1`,
        [subscriber.id, delay / 1000],
      );
      return false;
    }
    await this.db.query(`UPDATE subscribers SET confirmation_due_at = NULL WHERE id = $1`, [subscriber.id]);
    return true;
  }

  /** Expired confirmation links are useless; keeps the table small. */
  async purgeExpiredTokens(): Promise<void> {
    await this.db.query(`DELETE FROM mail_tokens WHERE expires_at IS NOT NULL AND expires_at <= now()`);
  }
}
