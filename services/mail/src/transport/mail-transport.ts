import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { createTransport, type Transporter } from 'nodemailer';
import { MAIL_CONFIG, type MailConfig } from '../config.js';

export interface MailAddress {
  name: string;
  address: string;
}

export interface OutgoingMail {
  to: string | MailAddress;
  subject: string;
  text?: string;
  html?: string;
  /** Pre-encoded MIME parts (headers and body) of a multipart/alternative message, used as they are. */
  alternatives?: { raw: string }[];
  replyTo?: string | MailAddress;
  headers?: Record<string, string>;
  /** The Message-ID (with its angle brackets); nodemailer makes a random one otherwise. */
  messageId?: string;
  /** List-Id: `"comment" <url>`, quoted or encoded by nodemailer. */
  list?: { id: { url: string; comment: string } };
}

export interface SentMail {
  messageId: string;
  /** The .eml file in outbox mode. */
  file?: string;
}

/**
 * Where e-mail goes: SMTP through a nodemailer connection pool when SMTP_URL is set
 * (smtps:// for TLS from the start, smtp:// upgrades with STARTTLS when the server offers
 * it), otherwise each message is written as an .eml file to DATA_DIR/outbox with a log line.
 * A failed send rejects; callers keep the message and retry it. Every exchange is bounded
 * (SMTP_CONNECTION_TIMEOUT_MS, SMTP_GREETING_TIMEOUT_MS, SMTP_SOCKET_TIMEOUT_MS), so a server
 * that hangs mid-DATA or answers too slowly fails the send instead of holding it. With
 * DKIM_DOMAIN, DKIM_SELECTOR and the key set, every message (outbox included) is signed.
 */
@Injectable()
export class MailTransport implements OnModuleDestroy {
  private readonly logger = new Logger(MailTransport.name);
  private readonly sender: Transporter<{ messageId: string; message?: unknown }>;
  private readonly outbox: string | null;
  private outboxReady?: Promise<unknown>;

  constructor(@Inject(MAIL_CONFIG) private readonly config: MailConfig) {
    const dkim =
      config.DKIM_DOMAIN && config.DKIM_SELECTOR && config.DKIM_PRIVATE_KEY
        ? {
            dkim: {
              domainName: config.DKIM_DOMAIN,
              keySelector: config.DKIM_SELECTOR,
              privateKey: config.DKIM_PRIVATE_KEY,
            },
          }
        : {};
    if (config.SMTP_URL) {
      this.outbox = null;
      this.sender = createTransport({
        url: config.SMTP_URL,
        pool: true,
        maxConnections: config.SMTP_POOL_SIZE,
        maxMessages: 1000,
        connectionTimeout: config.SMTP_CONNECTION_TIMEOUT_MS,
        greetingTimeout: config.SMTP_GREETING_TIMEOUT_MS,
        socketTimeout: config.SMTP_SOCKET_TIMEOUT_MS,
        ...dkim,
      });
    } else {
      this.outbox = resolve(config.DATA_DIR, 'outbox');
      this.sender = createTransport({ streamTransport: true, buffer: true, ...dkim });
    }
  }

  get mode(): 'smtp' | 'outbox' {
    return this.outbox ? 'outbox' : 'smtp';
  }

  get from(): string {
    return this.config.MAIL_FROM;
  }

  async send(mail: OutgoingMail): Promise<SentMail> {
    const info = await this.sender.sendMail({ ...mail, from: this.config.MAIL_FROM });
    if (!this.outbox) return { messageId: info.messageId };
    this.outboxReady ??= mkdir(this.outbox, { recursive: true });
    await this.outboxReady;
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const file = join(this.outbox, `${stamp}-${randomBytes(4).toString('hex')}.eml`);
    await writeFile(file, info.message as Buffer);
    this.logger.log(
      `mail written to the outbox (no SMTP_URL): ${file} to=${addressOf(mail.to)} subject="${mail.subject}"`,
    );
    return { messageId: info.messageId, file };
  }

  onModuleDestroy() {
    this.sender.close();
  }
}

function addressOf(to: string | MailAddress): string {
  return typeof to === 'string' ? to : to.address;
}
