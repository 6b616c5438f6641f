import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import type { ContactCommand, MessageListQuery } from '@blog/contracts';
import { DataSource, Repository } from 'typeorm';
import type { StoredContactMessage } from '../common/emails.js';
import { queryRows } from '@blog/server-kit';
import { ContactMessage } from './contact-message.entity.js';

/** A message taken for a send: `attempts` counts this one. */
export interface DueMessage extends StoredContactMessage {
  attempts: number;
}

export type NewContactMessage = Pick<ContactCommand, 'name' | 'email' | 'subject' | 'message' | 'ip'>;

const DUE_COLUMNS = 'id, name, email, subject, message, ip, created_at, attempts';

/** The contact messages (contact_messages): each held for a while by the one sending it. */
export abstract class ContactRepository {
  /** Stores a message, held by its first send for `leaseSeconds`. */
  abstract add(command: NewContactMessage, leaseSeconds: number): Promise<DueMessage>;
  /** Takes up to `limit` pending messages that are due, each held for `leaseSeconds` and counted one more try. */
  abstract takeDue(leaseSeconds: number, limit: number): Promise<DueMessage[]>;
  /** A failed send: the message is due again in `retrySeconds`. */
  abstract failed(id: number, error: string, retrySeconds: number): Promise<void>;
  abstract sent(id: number): Promise<void>;
  /** Newest first, paged. */
  abstract page(query: MessageListQuery): Promise<{ rows: ContactMessage[]; total: number }>;
}

@Injectable()
export class PostgresContactRepository extends ContactRepository {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @InjectRepository(ContactMessage) private readonly messages: Repository<ContactMessage>,
  ) {
    super();
  }

  async add(command: NewContactMessage, leaseSeconds: number): Promise<DueMessage> {
    const rows = await queryRows<DueMessage>(
      this.db,
      `INSERT INTO contact_messages (name, email, subject, message, ip, attempts, next_attempt_at)
       VALUES ($1, $2, $3, $4, $5, 1, now() + make_interval(secs => $6))
       RETURNING ${DUE_COLUMNS}`,
      [command.name, command.email, command.subject, command.message, command.ip, leaseSeconds],
    );
    return rows[0]!;
  }

  takeDue(leaseSeconds: number, limit: number): Promise<DueMessage[]> {
    return queryRows<DueMessage>(
      this.db,
      `UPDATE contact_messages SET attempts = attempts + 1, next_attempt_at = now() + make_interval(secs => $1)
       WHERE id IN (
         SELECT id FROM contact_messages WHERE status = 'pending' AND next_attempt_at <= now()
         ORDER BY next_attempt_at LIMIT $2 FOR UPDATE SKIP LOCKED)
       RETURNING ${DUE_COLUMNS}`,
      [leaseSeconds, limit],
    );
  }

  async failed(id: number, error: string, retrySeconds: number): Promise<void> {
    await this.db.query(
      `UPDATE contact_messages SET last_error = $2, next_attempt_at = now() + make_interval(secs => $3)
       WHERE id = $1 AND status = 'pending'`,
      [id, error, retrySeconds],
    );
  }

  async sent(id: number): Promise<void> {
    await this.db.query(
      `UPDATE contact_messages SET status = 'sent', sent_at = now(), last_error = NULL WHERE id = $1`,
      [id],
    );
  }

  async page(query: MessageListQuery): Promise<{ rows: ContactMessage[]; total: number }> {
    const [rows, total] = await this.messages.findAndCount({
      where: query.status ? { status: query.status } : {},
      order: { createdAt: 'DESC', id: 'DESC' },
      skip: (query.page - 1) * query.limit,
      take: query.limit,
    });
    return { rows, total };
  }
}
