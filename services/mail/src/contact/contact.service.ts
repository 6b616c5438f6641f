import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import {
  isHoneypotFilled,
  MailText,
  type ContactCommand,
  type ContactMessageView,
  type MailAck,
  type MessageListQuery,
  type MailListResult,
} from '@blog/contracts';
import { DataSource, Repository } from 'typeorm';
import { BackgroundTasks } from '../common/background-tasks.js';
import { contactEmail, type StoredContactMessage } from '../common/emails.js';
import { FormLimits } from '../common/form-limits.js';
import { errorText, retryDelayMs, SEND_LEASE_MS } from '../common/retry.js';
import { MAIL_CONFIG, type MailConfig } from '../config.js';
import { SiteTitle } from '../common/site-title.js';
import { MailTransport } from '../transport/mail-transport.js';
import { ContactMessage } from './contact-message.entity.js';
import { queryRows } from '../common/sql.js';

interface DueMessage extends StoredContactMessage {
  attempts: number;
}

const ACK: MailAck = { success: true, message: MailText.contactSent };

export function toMessageView(row: ContactMessage): ContactMessageView {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    subject: row.subject,
    message: row.message,
    status: row.status,
    attempts: row.attempts,
    last_error: row.lastError,
    created_at: row.createdAt.toISOString(),
    sent_at: row.sentAt?.toISOString() ?? null,
  };
}

/**
 * Contact messages: stored first, then e-mailed to the owner. A send that fails leaves the
 * message due; the sweep tries it again (with a growing delay) until it goes out.
 */
@Injectable()
export class ContactService {
  private readonly logger = new Logger(ContactService.name);

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @InjectRepository(ContactMessage) private readonly messages: Repository<ContactMessage>,
    private readonly limits: FormLimits,
    private readonly transport: MailTransport,
    private readonly background: BackgroundTasks,
    @Inject(MAIL_CONFIG) private readonly config: MailConfig,
    private readonly siteTitle: SiteTitle,
  ) {}

  async submit(command: ContactCommand): Promise<MailAck> {
    // A robot filled the hidden field: it gets the usual answer and nothing happens.
    if (isHoneypotFilled(command)) return ACK;
    await this.limits.admit('contact', command.ip, MailText.tooManyMessages);
    // The first try holds a lease on the message; if this process dies before it ends, the sweep sends it.
    const rows = await queryRows<DueMessage>(
      this.db,
      `INSERT INTO contact_messages (name, email, subject, message, ip, attempts, next_attempt_at)
       VALUES ($1, $2, $3, $4, $5, 1, now() + make_interval(secs => $6))
       RETURNING id, name, email, subject, message, ip, created_at, attempts`,
      [command.name, command.email, command.subject, command.message, command.ip, SEND_LEASE_MS / 1000],
    );
    const message = rows[0]!;
    this.background.run(`contact message ${message.id}`, () => this.deliver(message));
    return ACK;
  }

  /** Sends due messages again; each is leased first so two replicas never send the same one at once. */
  async retryDue(limit = 20): Promise<number> {
    const due = await queryRows<DueMessage>(
      this.db,
      `UPDATE contact_messages SET attempts = attempts + 1, next_attempt_at = now() + make_interval(secs => $1)
       WHERE id IN (
         SELECT id FROM contact_messages WHERE status = 'pending' AND next_attempt_at <= now()
         ORDER BY next_attempt_at LIMIT $2 FOR UPDATE SKIP LOCKED)
       RETURNING id, name, email, subject, message, ip, created_at, attempts`,
      [SEND_LEASE_MS / 1000, limit],
    );
    let sent = 0;
    for (const message of due) if (await this.deliver(message)) sent++;
    return sent;
  }

  async list(query: MessageListQuery): Promise<MailListResult<ContactMessageView>> {
    const [rows, total] = await this.messages.findAndCount({
      where: query.status ? { status: query.status } : {},
      order: { createdAt: 'DESC', id: 'DESC' },
      skip: (query.page - 1) * query.limit,
      take: query.limit,
    });
    return { items: rows.map(toMessageView), total };
  }

  private async deliver(message: DueMessage): Promise<boolean> {
    try {
      await this.transport.send(contactEmail(message, this.config, await this.siteTitle.current()));
    } catch (error) {
      const delay = retryDelayMs(this.config, message.attempts);
      this.logger.warn(
        `contact message ${message.id} not sent (try ${message.attempts}), next try in ${Math.round(delay / 1000)} s: ${errorText(error)}`,
      );
      await this.db.query(
        `UPDATE contact_messages SET last_error = $2, next_attempt_at = now() + make_interval(secs => $3)
         WHERE id = $1 AND status = 'pending'`,
        [message.id, errorText(error), delay / 1000],
      );
      return false;
    }
    await this.db.query(
      `UPDATE contact_messages SET status = 'sent', sent_at = now(), last_error = NULL WHERE id = $1`,
      [message.id],
    );
    return true;
  }
}
