import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import type { SubscriberFrequency, SubscriberListQuery, SubscriptionStatus } from '@blog/contracts';
import { DataSource, ILike, IsNull, Not, Repository, type EntityManager } from 'typeorm';
import { queryRows } from '@blog/server-kit';
import { Subscriber } from './subscriber.entity.js';

/**
 * Unsubscribes, at once, the holder of a link token of `purpose` (the unsubscribe link, or the
 * preferences page): its confirmation links dropped, its failed digests cancelled. `returning`
 * lists the subscriber's columns (as `s.…`) to answer; none when the token is unknown.
 */
export async function unsubscribeByToken<T extends { id: number }>(
  manager: EntityManager,
  tokenHash: string,
  purpose: 'unsubscribe' | 'preferences',
  returning: string,
): Promise<T | undefined> {
  const [row] = await queryRows<T>(
    manager,
    `UPDATE subscribers s SET
       status = 'unsubscribed',
       unsubscribed_at = CASE WHEN s.status = 'unsubscribed' THEN s.unsubscribed_at ELSE now() END,
       confirmation_due_at = NULL
     FROM mail_tokens t
     WHERE t.hash = $1 AND t.purpose = $2 AND s.id = t.subscriber_id
     RETURNING ${returning}`,
    [tokenHash, purpose],
  );
  if (!row) return undefined;
  await manager.query(`DELETE FROM mail_tokens WHERE subscriber_id = $1 AND purpose = 'confirm'`, [row.id]);
  await manager.query(
    `UPDATE digest_deliveries SET status = 'cancelled', next_attempt_at = NULL
     WHERE subscriber_id = $1 AND status = 'failed'`,
    [row.id],
  );
  return row;
}

/** A subscriber whose confirmation e-mail is being sent: `confirmation_attempts` counts this try. */
export interface ConfirmationDue {
  id: number;
  email: string;
  confirmation_attempts: number;
}

/** An address and its status, as a link shows it. */
export interface LinkedSubscriber {
  email: string;
  status: SubscriptionStatus;
}

/** A subscriber as an export keeps it. */
export interface RestoredSubscriber {
  email: string;
  status: SubscriptionStatus;
  createdAt: string;
  confirmedAt: string | null;
  unsubscribedAt: string | null;
}

/** The subscribers (one row per address, compared without case) and their hashed link tokens. */
export abstract class SubscriptionsRepository {
  /**
   * The address's one row, pending unless confirmed, its confirmation due (held by this send)
   * in `leaseSeconds` and counted as the first try.
   */
  abstract subscribe(
    email: string,
    frequency: SubscriberFrequency,
    leaseSeconds: number,
  ): Promise<ConfirmationDue>;
  /** Confirms the subscriber of an unexpired confirmation token (hash); undefined for none. */
  abstract confirm(tokenHash: string): Promise<LinkedSubscriber | undefined>;
  /** The subscriber an unsubscribe token (hash) belongs to. */
  abstract unsubscribeTarget(tokenHash: string): Promise<LinkedSubscriber | undefined>;
  /**
   * Unsubscribes the token's (hash) subscriber at once, in one transaction: its confirmation
   * links stop working and its failed digest e-mails are cancelled. Undefined for no subscriber.
   */
  abstract unsubscribe(tokenHash: string): Promise<{ email: string } | undefined>;
  /** Takes up to `limit` due confirmations with fewer than `maxAttempts` tries, each held for `leaseSeconds`. */
  abstract takeDueConfirmations(
    leaseSeconds: number,
    maxAttempts: number,
    limit: number,
  ): Promise<ConfirmationDue[]>;
  abstract addConfirmToken(subscriberId: number, tokenHash: string, ttlSeconds: number): Promise<void>;
  /** A failed confirmation send: due again in `retrySeconds`. */
  abstract confirmationFailed(subscriberId: number, retrySeconds: number): Promise<void>;
  abstract confirmationSent(subscriberId: number): Promise<void>;
  abstract purgeExpiredTokens(): Promise<void>;
  /** Adds the rows whose address is not here yet; answers those added. */
  abstract restore(rows: RestoredSubscriber[]): Promise<LinkedSubscriber[]>;
  /** Newest first, paged. */
  abstract page(query: SubscriberListQuery): Promise<{ rows: Subscriber[]; total: number }>;
}

@Injectable()
export class PostgresSubscriptionsRepository extends SubscriptionsRepository {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @InjectRepository(Subscriber) private readonly subscribers: Repository<Subscriber>,
  ) {
    super();
  }

  async subscribe(
    email: string,
    frequency: SubscriberFrequency,
    leaseSeconds: number,
  ): Promise<ConfirmationDue> {
    const rows = await queryRows<ConfirmationDue>(
      this.db,
      `INSERT INTO subscribers AS s (email, status, confirmation_due_at, confirmation_attempts, frequency)
       VALUES ($1, 'pending', now() + make_interval(secs => $2), 1, $3)
       ON CONFLICT ((lower(email))) DO UPDATE SET
         status = CASE WHEN s.status = 'unsubscribed' THEN 'pending' ELSE s.status END,
         frequency = CASE WHEN s.status = 'confirmed' THEN s.frequency ELSE EXCLUDED.frequency END,
         confirmation_due_at = EXCLUDED.confirmation_due_at,
         confirmation_attempts = 1
       RETURNING id, email, confirmation_attempts`,
      [email, leaseSeconds, frequency],
    );
    return rows[0]!;
  }

  async confirm(tokenHash: string): Promise<LinkedSubscriber | undefined> {
    const rows = await queryRows<LinkedSubscriber>(
      this.db,
      `UPDATE subscribers s SET
         status = 'confirmed',
         confirmed_at = CASE WHEN s.status = 'confirmed' THEN s.confirmed_at ELSE now() END,
         confirmation_due_at = NULL
       FROM mail_tokens t
       WHERE t.hash = $1 AND t.purpose = 'confirm' AND (t.expires_at IS NULL OR t.expires_at > now())
         AND s.id = t.subscriber_id
       RETURNING s.email, s.status`,
      [tokenHash],
    );
    return rows[0];
  }

  async unsubscribeTarget(tokenHash: string): Promise<LinkedSubscriber | undefined> {
    const rows = await queryRows<LinkedSubscriber>(
      this.db,
      `SELECT s.email, s.status FROM mail_tokens t JOIN subscribers s ON s.id = t.subscriber_id
       WHERE t.hash = $1 AND t.purpose = 'unsubscribe'`,
      [tokenHash],
    );
    return rows[0];
  }

  unsubscribe(tokenHash: string): Promise<{ email: string } | undefined> {
    return this.db.transaction((manager) =>
      unsubscribeByToken<{ id: number; email: string }>(manager, tokenHash, 'unsubscribe', 's.id, s.email'),
    );
  }

  takeDueConfirmations(leaseSeconds: number, maxAttempts: number, limit: number): Promise<ConfirmationDue[]> {
    return queryRows<ConfirmationDue>(
      this.db,
      `UPDATE subscribers SET
         confirmation_attempts = confirmation_attempts + 1,
         confirmation_due_at = now() + make_interval(secs => $1)
       WHERE id IN (
         SELECT id FROM subscribers
         WHERE confirmation_due_at <= now() AND confirmation_attempts < $2 AND status <> 'unsubscribed'
         ORDER BY confirmation_due_at LIMIT $3 FOR UPDATE SKIP LOCKED)
       RETURNING id, email, confirmation_attempts`,
      [leaseSeconds, maxAttempts, limit],
    );
  }

  async addConfirmToken(subscriberId: number, tokenHash: string, ttlSeconds: number): Promise<void> {
    await this.db.query(
      `INSERT INTO mail_tokens (hash, subscriber_id, purpose, expires_at)
       VALUES ($1, $2, 'confirm', now() + make_interval(secs => $3))`,
      [tokenHash, subscriberId, ttlSeconds],
    );
  }

  async confirmationFailed(subscriberId: number, retrySeconds: number): Promise<void> {
    await this.db.query(
      `UPDATE subscribers SET confirmation_due_at = now() + make_interval(secs => $2) WHERE id = $1`,
      [subscriberId, retrySeconds],
    );
  }

  async confirmationSent(subscriberId: number): Promise<void> {
    await this.db.query(`UPDATE subscribers SET confirmation_due_at = NULL WHERE id = $1`, [subscriberId]);
  }

  async purgeExpiredTokens(): Promise<void> {
    await this.db.query(`DELETE FROM mail_tokens WHERE expires_at IS NOT NULL AND expires_at <= now()`);
  }

  restore(rows: RestoredSubscriber[]): Promise<LinkedSubscriber[]> {
    return queryRows<LinkedSubscriber>(
      this.db,
      `INSERT INTO subscribers (email, status, created_at, confirmed_at, unsubscribed_at, confirmation_attempts)
       SELECT * FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::timestamptz[], $5::timestamptz[], $6::int[])
       ON CONFLICT ((lower(email))) DO NOTHING RETURNING email, status`,
      [
        rows.map((r) => r.email),
        rows.map((r) => r.status),
        rows.map((r) => r.createdAt),
        rows.map((r) => r.confirmedAt),
        rows.map((r) => r.unsubscribedAt),
        rows.map(() => 0),
      ],
    );
  }

  async page(query: SubscriberListQuery): Promise<{ rows: Subscriber[]; total: number }> {
    const [rows, total] = await this.subscribers.findAndCount({
      where: {
        ...(query.status === 'bounced'
          ? { bouncedAt: Not(IsNull()) }
          : query.status
            ? { status: query.status }
            : {}),
        ...(query.frequency ? { frequency: query.frequency } : {}),
        ...(query.search ? { email: ILike(`%${query.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`) } : {}),
      },
      order: { createdAt: 'DESC', id: 'DESC' },
      skip: (query.page - 1) * query.limit,
      take: query.limit,
    });
    return { rows, total };
  }
}
