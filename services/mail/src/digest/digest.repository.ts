import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { queryRows } from '@blog/server-kit';
import type { DigestContent } from './digest-email.js';

/** A digest week's row: the posts it carries and how far its sending got. */
export interface DigestRun {
  week: Date;
  status: 'skipped' | 'running' | 'done';
  content: DigestContent;
  createdAt: Date;
}

/** A week's content as of one look at the posts: the period looked at, and whether any post is in it. */
export interface DigestRunContent {
  week: Date;
  from: Date;
  to: Date;
  content: DigestContent;
}

/** A failed e-mail claimed for another try. */
export interface DigestRetry {
  week: Date;
  subscriberId: number;
  attempts: number;
}

export interface DigestRecipientRow {
  id: number;
  email: string;
}

export interface DigestFailure {
  id: number;
  error: string;
}

/**
 * The digest's records: the weeks (digest_runs), one claim per week and subscriber
 * (digest_deliveries) and the unsubscribe tokens that go with the claims. The rules of when
 * to claim, send and retry are DigestService's.
 */
export abstract class DigestRepository {
  abstract findRun(week: Date): Promise<DigestRun | undefined>;
  /** Adds the week's row ('running' with posts, 'skipped' without); a row already there wins. */
  abstract insertRun(run: DigestRunContent): Promise<void>;
  /** A skipped week gets posts after all: it runs with them. */
  abstract reopenSkipped(run: DigestRunContent): Promise<void>;
  /** Running weeks whose heartbeat is older than `seconds` (or was let go). */
  abstract stalledRuns(seconds: number): Promise<DigestRun[]>;
  abstract heartbeat(week: Date): Promise<void>;
  /** The sender lets go of the week (the heartbeat is cleared, so a sweep resumes it at once). */
  abstract releaseRun(week: Date): Promise<void>;
  abstract finishRun(week: Date): Promise<void>;
  /** The next `limit` confirmed, weekly, not bounced subscribers after `cursor` (by id) without a claim for the week. */
  abstract unclaimedSubscribers(week: Date, cursor: number, limit: number): Promise<DigestRecipientRow[]>;
  /**
   * Claims the week for the subscribers still confirmed and unclaimed, each with its unsubscribe
   * token hash, in one statement; answers the ids claimed.
   */
  abstract claim(week: Date, subscriberIds: number[], tokenHashes: string[]): Promise<number[]>;
  abstract markSent(week: Date, subscriberIds: number[]): Promise<void>;
  /** Failed sends: tried again after `retrySeconds`, or never when `giveUp`. */
  abstract markFailed(
    week: Date,
    failures: DigestFailure[],
    giveUp: boolean,
    retrySeconds: number,
  ): Promise<void>;
  /** Claims up to `limit` failed sends that are due, counting one more attempt each. */
  abstract claimRetries(limit: number): Promise<DigestRetry[]>;
  abstract cancelDelivery(week: Date, subscriberId: number): Promise<void>;
  /** Claims still sending after `seconds` are marked unknown. */
  abstract expireClaims(seconds: number): Promise<void>;
  /** The address of a subscriber while confirmed. */
  abstract confirmedEmail(subscriberId: number): Promise<string | undefined>;
  abstract addUnsubscribeToken(subscriberId: number, hash: string): Promise<void>;
}

interface RunRow {
  week: Date;
  status: DigestRun['status'];
  content: DigestContent;
  created_at: Date;
}

const toRun = (row: RunRow): DigestRun => ({
  week: row.week,
  status: row.status,
  content: row.content,
  createdAt: row.created_at,
});

@Injectable()
export class PostgresDigestRepository extends DigestRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {
    super();
  }

  async findRun(week: Date): Promise<DigestRun | undefined> {
    const rows = await queryRows<RunRow>(this.db, `SELECT * FROM digest_runs WHERE week = $1`, [week]);
    return rows[0] && toRun(rows[0]);
  }

  async insertRun({ week, from, to, content }: DigestRunContent): Promise<void> {
    await this.db.query(
      `INSERT INTO digest_runs (week, period_start, period_end, status, content)
       VALUES ($1, $2, $3, $4, $5) ON CONFLICT (week) DO NOTHING`,
      [week, from, to, content.posts.length ? 'running' : 'skipped', JSON.stringify(content)],
    );
  }

  async reopenSkipped({ week, from, to, content }: DigestRunContent): Promise<void> {
    await this.db.query(
      `UPDATE digest_runs SET status = 'running', content = $2, period_start = $3, period_end = $4,
         heartbeat_at = now()
       WHERE week = $1 AND status = 'skipped'`,
      [week, JSON.stringify(content), from, to],
    );
  }

  async stalledRuns(seconds: number): Promise<DigestRun[]> {
    const rows = await queryRows<RunRow>(
      this.db,
      `SELECT * FROM digest_runs WHERE status = 'running'
         AND (heartbeat_at IS NULL OR heartbeat_at < now() - make_interval(secs => $1))`,
      [seconds],
    );
    return rows.map(toRun);
  }

  async heartbeat(week: Date): Promise<void> {
    await this.db.query(`UPDATE digest_runs SET heartbeat_at = now() WHERE week = $1`, [week]);
  }

  async releaseRun(week: Date): Promise<void> {
    await this.db.query(`UPDATE digest_runs SET heartbeat_at = NULL WHERE week = $1`, [week]);
  }

  async finishRun(week: Date): Promise<void> {
    await this.db.query(
      `UPDATE digest_runs SET status = 'done', finished_at = now() WHERE week = $1 AND status = 'running'`,
      [week],
    );
  }

  unclaimedSubscribers(week: Date, cursor: number, limit: number): Promise<DigestRecipientRow[]> {
    return queryRows<DigestRecipientRow>(
      this.db,
      `SELECT s.id, s.email FROM subscribers s
       WHERE s.status = 'confirmed' AND s.frequency = 'weekly' AND s.bounced_at IS NULL AND s.id > $2
         AND NOT EXISTS (SELECT 1 FROM digest_deliveries d WHERE d.week = $1 AND d.subscriber_id = s.id)
       ORDER BY s.id LIMIT $3`,
      [week, cursor, limit],
    );
  }

  async claim(week: Date, subscriberIds: number[], tokenHashes: string[]): Promise<number[]> {
    const claimed = await queryRows<{ subscriber_id: number }>(
      this.db,
      `WITH input AS (
         SELECT * FROM unnest($2::int[], $3::text[]) AS i (subscriber_id, hash)
       ), claimed AS (
         INSERT INTO digest_deliveries (week, subscriber_id)
         SELECT $1, i.subscriber_id FROM input i
         WHERE EXISTS (SELECT 1 FROM subscribers s WHERE s.id = i.subscriber_id AND s.status = 'confirmed'
                       AND s.frequency = 'weekly' AND s.bounced_at IS NULL)
         ORDER BY i.subscriber_id
         ON CONFLICT DO NOTHING
         RETURNING subscriber_id
       )
       INSERT INTO mail_tokens (hash, subscriber_id, purpose)
       SELECT i.hash, i.subscriber_id, 'unsubscribe' FROM input i JOIN claimed c USING (subscriber_id)
       RETURNING subscriber_id`,
      [week, subscriberIds, tokenHashes],
    );
    return claimed.map((row) => row.subscriber_id);
  }

  async markSent(week: Date, subscriberIds: number[]): Promise<void> {
    await this.db.query(
      `UPDATE digest_deliveries SET status = 'sent', sent_at = now(), last_error = NULL
       WHERE week = $1 AND subscriber_id = ANY($2::int[])`,
      [week, subscriberIds],
    );
  }

  async markFailed(week: Date, failures: DigestFailure[], giveUp: boolean, retrySeconds: number) {
    await this.db.query(
      `UPDATE digest_deliveries d SET status = 'failed', last_error = f.error,
         next_attempt_at = CASE WHEN $3 THEN NULL ELSE now() + make_interval(secs => $4) END
       FROM unnest($2::int[], $5::text[]) AS f (id, error)
       WHERE d.week = $1 AND d.subscriber_id = f.id`,
      [week, failures.map((f) => f.id), giveUp, retrySeconds, failures.map((f) => f.error)],
    );
  }

  async claimRetries(limit: number): Promise<DigestRetry[]> {
    const rows = await queryRows<{ week: Date; subscriber_id: number; attempts: number }>(
      this.db,
      `UPDATE digest_deliveries d SET status = 'sending', attempts = d.attempts + 1, claimed_at = now(),
         next_attempt_at = NULL
       WHERE (d.week, d.subscriber_id) IN (
         SELECT week, subscriber_id FROM digest_deliveries
         WHERE status = 'failed' AND next_attempt_at <= now()
         ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED)
       RETURNING d.week, d.subscriber_id, d.attempts`,
      [limit],
    );
    return rows.map((row) => ({ week: row.week, subscriberId: row.subscriber_id, attempts: row.attempts }));
  }

  async cancelDelivery(week: Date, subscriberId: number): Promise<void> {
    await this.db.query(
      `UPDATE digest_deliveries SET status = 'cancelled' WHERE week = $1 AND subscriber_id = $2`,
      [week, subscriberId],
    );
  }

  async expireClaims(seconds: number): Promise<void> {
    await this.db.query(
      `UPDATE digest_deliveries SET status = 'unknown'
       WHERE status = 'sending' AND claimed_at < now() - make_interval(secs => $1)`,
      [seconds],
    );
  }

  async confirmedEmail(subscriberId: number): Promise<string | undefined> {
    const rows = await queryRows<{ email: string }>(
      this.db,
      `SELECT email FROM subscribers WHERE id = $1 AND status = 'confirmed' AND bounced_at IS NULL`,
      [subscriberId],
    );
    return rows[0]?.email;
  }

  async addUnsubscribeToken(subscriberId: number, hash: string): Promise<void> {
    await this.db.query(
      `INSERT INTO mail_tokens (hash, subscriber_id, purpose) VALUES ($1, $2, 'unsubscribe')`,
      [hash, subscriberId],
    );
  }
}
