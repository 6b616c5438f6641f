import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  isHoneypotFilled,
  MailText,
  type ContactCommand,
  type ContactMessageView,
  type MailAck,
  type MessageListQuery,
  type MailListResult,
} from '@blog/contracts';
import { BackgroundTasks } from '../common/background-tasks.js';
import { contactEmail } from '../common/emails.js';
import { FormLimits } from '../common/form-limits.js';
import { errorText, retryDelayMs, SEND_LEASE_MS } from '../common/retry.js';
import { MAIL_CONFIG, type MailConfig } from '../config.js';
import { SiteTitle } from '../common/site-title.js';
import { MailTransport } from '../transport/mail-transport.js';
import { ContactMessage } from './contact-message.entity.js';
import { ContactRepository, type DueMessage } from './contact.repository.js';

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
    private readonly store: ContactRepository,
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
    const message = await this.store.add(command, SEND_LEASE_MS / 1000);
    this.background.run(`contact message ${message.id}`, () => this.deliver(message));
    return ACK;
  }

  /** Sends due messages again; each is leased first so two replicas never send the same one at once. */
  async retryDue(limit = 20): Promise<number> {
    const due = await this.store.takeDue(SEND_LEASE_MS / 1000, limit);
    let sent = 0;
    for (const message of due) if (await this.deliver(message)) sent++;
    return sent;
  }

  async list(query: MessageListQuery): Promise<MailListResult<ContactMessageView>> {
    const { rows, total } = await this.store.page(query);
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
      await this.store.failed(message.id, errorText(error), delay / 1000);
      return false;
    }
    await this.store.sent(message.id);
    return true;
  }
}
