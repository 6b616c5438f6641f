import type { SubscriberFrequency, SubscriberListQuery, SubscriptionStatus } from '@blog/contracts';
import type { Subscriber } from '../../src/subscriptions/subscriber.entity.js';
import {
  SubscriptionsRepository,
  type ConfirmationDue,
  type LinkedSubscriber,
  type RestoredSubscriber,
} from '../../src/subscriptions/subscriptions.repository.js';

interface StoredSubscriber {
  id: number;
  email: string;
  status: SubscriptionStatus;
  frequency: SubscriberFrequency;
  bouncedAt: Date | null;
  bounceCount: number;
  createdAt: Date;
  confirmedAt: Date | null;
  unsubscribedAt: Date | null;
  confirmationDueAt: Date | null;
  confirmationAttempts: number;
}

interface StoredToken {
  hash: string;
  subscriberId: number;
  purpose: 'confirm' | 'unsubscribe';
  expiresAt: Date | null;
}

const later = (seconds: number) => new Date(Date.now() + seconds * 1000);

/** SubscriptionsRepository over arrays, with the answers of PostgreSQL (addresses compared without case). */
export class InMemorySubscriptionsRepository extends SubscriptionsRepository {
  readonly subscribers: StoredSubscriber[] = [];
  readonly tokens: StoredToken[] = [];
  /** Subscriber ids whose failed digest e-mails were cancelled by an unsubscribe. */
  readonly cancelledDigests: number[] = [];

  byEmail(email: string): StoredSubscriber | undefined {
    return this.subscribers.find((s) => s.email.toLowerCase() === email.toLowerCase());
  }

  private due(s: StoredSubscriber): ConfirmationDue {
    return { id: s.id, email: s.email, confirmation_attempts: s.confirmationAttempts };
  }

  private tokenOf(hash: string, purpose: StoredToken['purpose']) {
    const token = this.tokens.find((t) => t.hash === hash && t.purpose === purpose);
    if (!token || (token.expiresAt && token.expiresAt.getTime() <= Date.now())) return undefined;
    return this.subscribers.find((s) => s.id === token.subscriberId);
  }

  async subscribe(
    email: string,
    frequency: SubscriberFrequency,
    leaseSeconds: number,
  ): Promise<ConfirmationDue> {
    let subscriber = this.byEmail(email);
    if (subscriber && subscriber.status !== 'confirmed') subscriber.frequency = frequency;
    if (!subscriber) {
      subscriber = {
        id: this.subscribers.length + 1,
        email,
        status: 'pending',
        frequency,
        bouncedAt: null,
        bounceCount: 0,
        createdAt: new Date(),
        confirmedAt: null,
        unsubscribedAt: null,
        confirmationDueAt: null,
        confirmationAttempts: 0,
      };
      this.subscribers.push(subscriber);
    } else if (subscriber.status === 'unsubscribed') subscriber.status = 'pending';
    subscriber.confirmationDueAt = later(leaseSeconds);
    subscriber.confirmationAttempts = 1;
    return this.due(subscriber);
  }

  async confirm(tokenHash: string): Promise<LinkedSubscriber | undefined> {
    const subscriber = this.tokenOf(tokenHash, 'confirm');
    if (!subscriber) return undefined;
    if (subscriber.status !== 'confirmed') subscriber.confirmedAt = new Date();
    subscriber.status = 'confirmed';
    subscriber.confirmationDueAt = null;
    return { email: subscriber.email, status: subscriber.status };
  }

  async unsubscribeTarget(tokenHash: string): Promise<LinkedSubscriber | undefined> {
    const subscriber = this.tokenOf(tokenHash, 'unsubscribe');
    return subscriber && { email: subscriber.email, status: subscriber.status };
  }

  async unsubscribe(tokenHash: string): Promise<{ email: string } | undefined> {
    const subscriber = this.tokenOf(tokenHash, 'unsubscribe');
    if (!subscriber) return undefined;
    if (subscriber.status !== 'unsubscribed') subscriber.unsubscribedAt = new Date();
    subscriber.status = 'unsubscribed';
    subscriber.confirmationDueAt = null;
    for (let i = this.tokens.length - 1; i >= 0; i--)
      if (this.tokens[i]!.subscriberId === subscriber.id && this.tokens[i]!.purpose === 'confirm')
        this.tokens.splice(i, 1);
    this.cancelledDigests.push(subscriber.id);
    return { email: subscriber.email };
  }

  async takeDueConfirmations(leaseSeconds: number, maxAttempts: number, limit: number) {
    return this.subscribers
      .filter(
        (s) =>
          s.confirmationDueAt &&
          s.confirmationDueAt.getTime() <= Date.now() &&
          s.confirmationAttempts < maxAttempts &&
          s.status !== 'unsubscribed',
      )
      .sort((a, b) => a.confirmationDueAt!.getTime() - b.confirmationDueAt!.getTime())
      .slice(0, limit)
      .map((s) => {
        s.confirmationAttempts++;
        s.confirmationDueAt = later(leaseSeconds);
        return this.due(s);
      });
  }

  async addConfirmToken(subscriberId: number, tokenHash: string, ttlSeconds: number): Promise<void> {
    this.tokens.push({ hash: tokenHash, subscriberId, purpose: 'confirm', expiresAt: later(ttlSeconds) });
  }

  async confirmationFailed(subscriberId: number, retrySeconds: number): Promise<void> {
    this.subscribers.find((s) => s.id === subscriberId)!.confirmationDueAt = later(retrySeconds);
  }

  async confirmationSent(subscriberId: number): Promise<void> {
    this.subscribers.find((s) => s.id === subscriberId)!.confirmationDueAt = null;
  }

  async purgeExpiredTokens(): Promise<void> {
    for (let i = this.tokens.length - 1; i >= 0; i--) {
      const expiresAt = this.tokens[i]!.expiresAt;
      if (expiresAt && expiresAt.getTime() <= Date.now()) this.tokens.splice(i, 1);
    }
  }

  async restore(rows: RestoredSubscriber[]): Promise<LinkedSubscriber[]> {
    const added: LinkedSubscriber[] = [];
    for (const row of rows) {
      if (this.byEmail(row.email)) continue;
      this.subscribers.push({
        id: this.subscribers.length + 1,
        email: row.email,
        status: row.status,
        frequency: 'weekly',
        bouncedAt: null,
        bounceCount: 0,
        createdAt: new Date(row.createdAt),
        confirmedAt: row.confirmedAt ? new Date(row.confirmedAt) : null,
        unsubscribedAt: row.unsubscribedAt ? new Date(row.unsubscribedAt) : null,
        confirmationDueAt: null,
        confirmationAttempts: 0,
      });
      added.push({ email: row.email, status: row.status });
    }
    return added;
  }

  async page(query: SubscriberListQuery): Promise<{ rows: Subscriber[]; total: number }> {
    const rows = this.subscribers
      .filter((s) =>
        query.status === 'bounced' ? s.bouncedAt !== null : !query.status || s.status === query.status,
      )
      .filter((s) => !query.frequency || s.frequency === query.frequency)
      .filter((s) => !query.search || s.email.toLowerCase().includes(query.search.toLowerCase()))
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || b.id - a.id);
    const start = (query.page - 1) * query.limit;
    return { rows: rows.slice(start, start + query.limit) as unknown as Subscriber[], total: rows.length };
  }
}
