import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { NewsletterEvent, NewsletterSendState, NewsletterStatus } from '@blog/contracts';
import { DataSource } from 'typeorm';
import { queryRows } from '@blog/server-kit';

/** A claimed subscriber of one batch; `wanted`: still confirmed, each-post and not bounced. */
export interface NewsletterRecipientRow {
  id: number;
  email: string;
  wanted: boolean;
}

/** How one claim ended: `claimed` puts it back (not sent for sure; the next batch takes it again). */
export type NewsletterOutcome = 'sent' | 'failed' | 'bounced' | 'cancelled' | 'claimed';

export interface NewsletterResult {
  id: number;
  outcome: NewsletterOutcome;
  error: string | null;
}

interface SendRow {
  status: Exclude<NewsletterSendState, 'none' | 'scheduled'>;
  total: number;
  sent: number;
  failed: number;
  bounced: number;
  started_at: Date;
  finished_at: Date | null;
}

/** Who gets a post's e-mail: confirmed, each-post, not bounced. */
const AUDIENCE = `s.status = 'confirmed' AND s.frequency = 'each-post' AND s.bounced_at IS NULL`;

/**
 * The per-post e-mail's records: `newsletter_sends` (one per post: status and counts, the
 * sender's heartbeat) and `newsletter_deliveries` (one claim per post and subscriber,
 * inserted for the whole audience before the first e-mail goes out).
 */
@Injectable()
export class NewsletterRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * The post's send and its claims for every subscriber of the audience, in one transaction;
   * false when the post already has a send (another replica, or an event handed over twice).
   */
  async startSend(event: NewsletterEvent): Promise<boolean> {
    return this.db.transaction(async (manager) => {
      const created = await queryRows<{ post_id: number }>(
        manager,
        `INSERT INTO newsletter_sends (post_id, event_id) VALUES ($1, $2)
         ON CONFLICT (post_id) DO NOTHING RETURNING post_id`,
        [event.postId, event.id],
      );
      if (!created.length) return false;
      await manager.query(
        `WITH claimed AS (
           INSERT INTO newsletter_deliveries (post_id, subscriber_id)
           SELECT $1, s.id FROM subscribers s WHERE ${AUDIENCE}
           ON CONFLICT DO NOTHING RETURNING 1)
         UPDATE newsletter_sends SET total = (SELECT count(*) FROM claimed) WHERE post_id = $1`,
        [event.postId],
      );
      return true;
    });
  }

  /**
   * Takes one unfinished send whose heartbeat is older than `seconds` (or was let go): the
   * conditional update lets one process have it. Claims its last holder left mid-send become
   * `unknown` (they may have gone out: never sent again).
   */
  async takeOver(seconds: number): Promise<number | null> {
    return this.db.transaction(async (manager) => {
      const rows = await queryRows<{ post_id: number }>(
        manager,
        `UPDATE newsletter_sends SET heartbeat_at = now()
         WHERE post_id = (
           SELECT post_id FROM newsletter_sends
           WHERE status = 'sending' AND (heartbeat_at IS NULL OR heartbeat_at < now() - make_interval(secs => $1))
           ORDER BY started_at, post_id LIMIT 1 FOR UPDATE SKIP LOCKED)
         RETURNING post_id`,
        [seconds],
      );
      const postId = rows[0]?.post_id;
      if (postId === undefined) return null;
      await manager.query(
        `UPDATE newsletter_deliveries SET status = 'unknown', last_error = 'its sender stopped mid-send'
         WHERE post_id = $1 AND status = 'sending'`,
        [postId],
      );
      return postId;
    });
  }

  async heartbeat(postId: number): Promise<void> {
    await this.db.query(`UPDATE newsletter_sends SET heartbeat_at = now() WHERE post_id = $1`, [postId]);
  }

  /** The sender lets go (stopping): the next sweep, here or on a replica, takes the send at once. */
  async release(postId: number): Promise<void> {
    await this.db.query(
      `UPDATE newsletter_sends SET heartbeat_at = NULL WHERE post_id = $1 AND status = 'sending'`,
      [postId],
    );
  }

  /**
   * The next `limit` waiting claims of the post after subscriber `cursor` (by id), now `sending`,
   * with their addresses. The cursor keeps each batch's scan clear of the rows already sent.
   */
  claimBatch(postId: number, cursor: number, limit: number): Promise<NewsletterRecipientRow[]> {
    return queryRows<NewsletterRecipientRow>(
      this.db,
      `WITH picked AS (
         SELECT subscriber_id FROM newsletter_deliveries
         WHERE post_id = $1 AND status = 'claimed' AND subscriber_id > $3
         ORDER BY subscriber_id LIMIT $2 FOR UPDATE SKIP LOCKED)
       UPDATE newsletter_deliveries d SET status = 'sending', claimed_at = now(), attempts = d.attempts + 1
       FROM picked JOIN subscribers s ON s.id = picked.subscriber_id
       WHERE d.post_id = $1 AND d.subscriber_id = picked.subscriber_id
       RETURNING d.subscriber_id AS id, s.email, (${AUDIENCE}) AS wanted`,
      [postId, limit, cursor],
    );
  }

  /** Records how each claim of a batch ended, and counts it on the send. */
  async record(postId: number, results: NewsletterResult[]): Promise<void> {
    if (!results.length) return;
    await this.db.query(
      `WITH r AS (
         SELECT * FROM unnest($2::int[], $3::text[], $4::text[]) AS r (id, outcome, error)
       ), u AS (
         UPDATE newsletter_deliveries d SET status = r.outcome, last_error = r.error,
           sent_at = CASE WHEN r.outcome = 'sent' THEN now() END
         FROM r WHERE d.post_id = $1 AND d.subscriber_id = r.id AND d.status = 'sending'
         RETURNING d.status)
       UPDATE newsletter_sends SET heartbeat_at = now(),
         sent = sent + (SELECT count(*) FROM u WHERE status = 'sent'),
         failed = failed + (SELECT count(*) FROM u WHERE status = 'failed'),
         bounced = bounced + (SELECT count(*) FROM u WHERE status = 'bounced')
       WHERE post_id = $1`,
      [postId, results.map((r) => r.id), results.map((r) => r.outcome), results.map((r) => r.error)],
    );
  }

  /** A permanent rejection of each address; the second one (across sends) marks it bounced. */
  async countBounces(subscriberIds: number[]): Promise<void> {
    if (!subscriberIds.length) return;
    await this.db.query(
      `UPDATE subscribers SET bounce_count = bounce_count + 1,
         bounced_at = CASE WHEN bounce_count + 1 >= 2 THEN coalesce(bounced_at, now()) ELSE bounced_at END
       WHERE id = ANY($1::int[])`,
      [subscriberIds],
    );
  }

  /** No claim waits any more: the send is over. */
  async finishIfDone(postId: number): Promise<boolean> {
    const rows = await queryRows<{ post_id: number }>(
      this.db,
      `UPDATE newsletter_sends SET status = 'sent', finished_at = now(), heartbeat_at = NULL
       WHERE post_id = $1 AND status = 'sending'
         AND NOT EXISTS (SELECT 1 FROM newsletter_deliveries
                         WHERE post_id = $1 AND status IN ('claimed', 'sending'))
       RETURNING post_id`,
      [postId],
    );
    return rows.length > 0;
  }

  /** The post is gone: the claims still waiting are not sent. */
  async stop(postId: number): Promise<void> {
    await this.db.transaction(async (manager) => {
      await manager.query(
        `UPDATE newsletter_deliveries SET status = 'stopped' WHERE post_id = $1 AND status = 'claimed'`,
        [postId],
      );
      await manager.query(
        `UPDATE newsletter_sends SET status = 'stopped', finished_at = now(), heartbeat_at = NULL
         WHERE post_id = $1 AND status = 'sending'`,
        [postId],
      );
    });
  }

  async status(postId: number): Promise<NewsletterStatus> {
    const rows = await queryRows<SendRow>(
      this.db,
      `SELECT status, total, sent, failed, bounced, started_at, finished_at FROM newsletter_sends WHERE post_id = $1`,
      [postId],
    );
    const row = rows[0];
    if (!row) {
      return { status: 'none', total: 0, sent: 0, failed: 0, bounced: 0, startedAt: null, finishedAt: null };
    }
    return {
      status: row.status,
      total: row.total,
      sent: row.sent,
      failed: row.failed,
      bounced: row.bounced,
      startedAt: row.started_at.toISOString(),
      finishedAt: row.finished_at ? row.finished_at.toISOString() : null,
    };
  }

  async audience(): Promise<number> {
    const rows = await queryRows<{ n: number }>(
      this.db,
      `SELECT count(*)::int AS n FROM subscribers s WHERE ${AUDIENCE}`,
    );
    return rows[0]?.n ?? 0;
  }

  /** One unsubscribe token per recipient (stored hashed, as the digest's). */
  async addUnsubscribeTokens(subscriberIds: number[], hashes: string[]): Promise<void> {
    if (!subscriberIds.length) return;
    await this.db.query(
      `INSERT INTO mail_tokens (hash, subscriber_id, purpose)
       SELECT h, s, 'unsubscribe' FROM unnest($1::int[], $2::text[]) AS t (s, h)`,
      [subscriberIds, hashes],
    );
  }
}
