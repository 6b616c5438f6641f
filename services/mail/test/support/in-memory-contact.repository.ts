import type { MessageListQuery } from '@blog/contracts';
import type { ContactMessage } from '../../src/contact/contact-message.entity.js';
import {
  ContactRepository,
  type DueMessage,
  type NewContactMessage,
} from '../../src/contact/contact.repository.js';

interface StoredMessage extends DueMessage {
  status: 'pending' | 'sent';
  nextAttemptAt: Date;
  lastError: string | null;
  sentAt: Date | null;
}

const later = (seconds: number) => new Date(Date.now() + seconds * 1000);

/** ContactRepository over an array, with the answers of PostgreSQL. */
export class InMemoryContactRepository extends ContactRepository {
  readonly messages: StoredMessage[] = [];

  private due({ id, name, email, subject, message, ip, created_at, attempts }: StoredMessage): DueMessage {
    return { id, name, email, subject, message, ip, created_at, attempts };
  }

  async add(command: NewContactMessage, leaseSeconds: number): Promise<DueMessage> {
    const { name, email, subject, message, ip } = command;
    const stored: StoredMessage = {
      id: this.messages.length + 1,
      name,
      email,
      subject,
      message,
      ip,
      created_at: new Date(),
      attempts: 1,
      status: 'pending',
      nextAttemptAt: later(leaseSeconds),
      lastError: null,
      sentAt: null,
    };
    this.messages.push(stored);
    return this.due(stored);
  }

  async takeDue(leaseSeconds: number, limit: number): Promise<DueMessage[]> {
    return this.messages
      .filter((m) => m.status === 'pending' && m.nextAttemptAt.getTime() <= Date.now())
      .sort((a, b) => a.nextAttemptAt.getTime() - b.nextAttemptAt.getTime())
      .slice(0, limit)
      .map((m) => {
        m.attempts++;
        m.nextAttemptAt = later(leaseSeconds);
        return this.due(m);
      });
  }

  async failed(id: number, error: string, retrySeconds: number): Promise<void> {
    const message = this.messages.find((m) => m.id === id && m.status === 'pending');
    if (message) Object.assign(message, { lastError: error, nextAttemptAt: later(retrySeconds) });
  }

  async sent(id: number): Promise<void> {
    Object.assign(
      this.messages.find((m) => m.id === id)!,
      { status: 'sent', lastError: null, sentAt: new Date() },
    );
  }

  async page(query: MessageListQuery): Promise<{ rows: ContactMessage[]; total: number }> {
    const rows = this.messages
      .filter((m) => !query.status || m.status === query.status)
      .map((m) => ({ ...m, createdAt: m.created_at as Date }) as unknown as ContactMessage)
      .reverse();
    const start = (query.page - 1) * query.limit;
    return {
      rows: rows.slice(start, start + query.limit),
      total: rows.length,
    };
  }
}
