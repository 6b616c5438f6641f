import {
  DigestRepository,
  type DigestFailure,
  type DigestRecipientRow,
  type DigestRetry,
  type DigestRun,
  type DigestRunContent,
} from '../../src/digest/digest.repository.js';

type SubscriberStatus = 'pending' | 'confirmed' | 'unsubscribed';
type DeliveryStatus = 'sending' | 'sent' | 'failed' | 'unknown' | 'cancelled';

interface StoredRun extends DigestRun {
  heartbeatAt: Date | null;
}

export interface StoredDelivery {
  status: DeliveryStatus;
  attempts: number;
  claimedAt: Date;
  nextAttemptAt: Date | null;
  lastError: string | null;
}

/** DigestRepository over plain maps with the same answers as PostgreSQL, for the digest's rules. */
export class InMemoryDigestRepository extends DigestRepository {
  readonly runs = new Map<number, StoredRun>();
  readonly subscribers = new Map<number, { email: string; status: SubscriberStatus }>();
  /** By `${week ms}/${subscriber id}`. */
  readonly deliveries = new Map<string, StoredDelivery>();
  readonly tokens: { hash: string; subscriberId: number }[] = [];

  addSubscriber(id: number, status: SubscriberStatus = 'confirmed'): void {
    this.subscribers.set(id, { email: `reader${id}@example.com`, status });
  }

  delivery(week: Date, subscriberId: number): StoredDelivery | undefined {
    return this.deliveries.get(`${week.getTime()}/${subscriberId}`);
  }

  async findRun(week: Date): Promise<DigestRun | undefined> {
    const run = this.runs.get(week.getTime());
    return run && { week: run.week, status: run.status, content: run.content, createdAt: run.createdAt };
  }

  async insertRun({ week, content }: DigestRunContent): Promise<void> {
    if (this.runs.has(week.getTime())) return;
    const status = content.posts.length ? 'running' : 'skipped';
    this.runs.set(week.getTime(), { week, status, content, createdAt: new Date(), heartbeatAt: null });
  }

  async reopenSkipped({ week, content }: DigestRunContent): Promise<void> {
    const run = this.runs.get(week.getTime());
    if (run?.status !== 'skipped') return;
    Object.assign(run, { status: 'running', content, heartbeatAt: new Date() });
  }

  async stalledRuns(seconds: number): Promise<DigestRun[]> {
    const before = Date.now() - seconds * 1000;
    return [...this.runs.values()].filter(
      (run) => run.status === 'running' && (!run.heartbeatAt || run.heartbeatAt.getTime() < before),
    );
  }

  async heartbeat(week: Date): Promise<void> {
    const run = this.runs.get(week.getTime());
    if (run) run.heartbeatAt = new Date();
  }

  async releaseRun(week: Date): Promise<void> {
    const run = this.runs.get(week.getTime());
    if (run) run.heartbeatAt = null;
  }

  async finishRun(week: Date): Promise<void> {
    const run = this.runs.get(week.getTime());
    if (run?.status === 'running') run.status = 'done';
  }

  async unclaimedSubscribers(week: Date, cursor: number, limit: number): Promise<DigestRecipientRow[]> {
    return [...this.subscribers.entries()]
      .filter(([id, s]) => s.status === 'confirmed' && id > cursor && !this.delivery(week, id))
      .sort(([a], [b]) => a - b)
      .slice(0, limit)
      .map(([id, s]) => ({ id, email: s.email }));
  }

  async claim(week: Date, subscriberIds: number[], tokenHashes: string[]): Promise<number[]> {
    const claimed: number[] = [];
    subscriberIds.forEach((id, i) => {
      if (this.subscribers.get(id)?.status !== 'confirmed' || this.delivery(week, id)) return;
      this.deliveries.set(`${week.getTime()}/${id}`, {
        status: 'sending',
        attempts: 1,
        claimedAt: new Date(),
        nextAttemptAt: null,
        lastError: null,
      });
      this.tokens.push({ hash: tokenHashes[i]!, subscriberId: id });
      claimed.push(id);
    });
    return claimed;
  }

  async markSent(week: Date, subscriberIds: number[]): Promise<void> {
    for (const id of subscriberIds)
      Object.assign(this.delivery(week, id)!, { status: 'sent', lastError: null });
  }

  async markFailed(week: Date, failures: DigestFailure[], giveUp: boolean, retrySeconds: number) {
    for (const { id, error } of failures) {
      Object.assign(this.delivery(week, id)!, {
        status: 'failed',
        lastError: error,
        nextAttemptAt: giveUp ? null : new Date(Date.now() + retrySeconds * 1000),
      });
    }
  }

  async claimRetries(limit: number): Promise<DigestRetry[]> {
    const due = [...this.deliveries.entries()]
      .filter(([, d]) => d.status === 'failed' && d.nextAttemptAt && d.nextAttemptAt.getTime() <= Date.now())
      .sort(([, a], [, b]) => a.nextAttemptAt!.getTime() - b.nextAttemptAt!.getTime())
      .slice(0, limit);
    return due.map(([key, d]) => {
      Object.assign(d, {
        status: 'sending',
        attempts: d.attempts + 1,
        claimedAt: new Date(),
        nextAttemptAt: null,
      });
      const [week, id] = key.split('/').map(Number);
      return { week: new Date(week!), subscriberId: id!, attempts: d.attempts };
    });
  }

  async cancelDelivery(week: Date, subscriberId: number): Promise<void> {
    const delivery = this.delivery(week, subscriberId);
    if (delivery) delivery.status = 'cancelled';
  }

  async expireClaims(seconds: number): Promise<void> {
    for (const d of this.deliveries.values()) {
      if (d.status === 'sending' && d.claimedAt.getTime() < Date.now() - seconds * 1000) d.status = 'unknown';
    }
  }

  async confirmedEmail(subscriberId: number): Promise<string | undefined> {
    const subscriber = this.subscribers.get(subscriberId);
    return subscriber?.status === 'confirmed' ? subscriber.email : undefined;
  }

  async addUnsubscribeToken(subscriberId: number, hash: string): Promise<void> {
    this.tokens.push({ hash, subscriberId });
  }
}
