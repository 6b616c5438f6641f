import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { SubscriberFrequency, SubscriptionStatus } from '@blog/contracts';
import { DataSource } from 'typeorm';
import { queryRows } from '@blog/server-kit';

export interface PreferencesRow {
  id: number;
  email: string;
  status: SubscriptionStatus;
  frequency: SubscriberFrequency;
}

/** The preferences links' tokens (purpose `preferences`, stored hashed) and what they change. */
@Injectable()
export class PreferencesRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async addTokens(subscriberIds: number[], hashes: string[]): Promise<void> {
    await this.db.query(
      `INSERT INTO mail_tokens (hash, subscriber_id, purpose)
       SELECT h, s, 'preferences' FROM unnest($1::int[], $2::text[]) AS t (s, h)`,
      [subscriberIds, hashes],
    );
  }

  async find(tokenHash: string): Promise<PreferencesRow | undefined> {
    const rows = await queryRows<PreferencesRow>(
      this.db,
      `SELECT s.id, s.email, s.status, s.frequency FROM mail_tokens t JOIN subscribers s ON s.id = t.subscriber_id
       WHERE t.hash = $1 AND t.purpose = 'preferences'`,
      [tokenHash],
    );
    return rows[0];
  }

  async setFrequency(tokenHash: string, frequency: SubscriberFrequency): Promise<PreferencesRow | undefined> {
    const rows = await queryRows<PreferencesRow>(
      this.db,
      `UPDATE subscribers s SET frequency = $2 FROM mail_tokens t
       WHERE t.hash = $1 AND t.purpose = 'preferences' AND s.id = t.subscriber_id
       RETURNING s.id, s.email, s.status, s.frequency`,
      [tokenHash, frequency],
    );
    return rows[0];
  }

  /** As the unsubscribe link does: at once, confirmation links dropped, failed digests cancelled. */
  unsubscribe(tokenHash: string): Promise<PreferencesRow | undefined> {
    return this.db.transaction(async (manager) => {
      const rows = await queryRows<PreferencesRow>(
        manager,
        `UPDATE subscribers s SET
           status = 'unsubscribed',
           unsubscribed_at = CASE WHEN s.status = 'unsubscribed' THEN s.unsubscribed_at ELSE now() END,
           confirmation_due_at = NULL
         FROM mail_tokens t
         WHERE t.hash = $1 AND t.purpose = 'preferences' AND s.id = t.subscriber_id
         RETURNING s.id, s.email, s.status, s.frequency`,
        [tokenHash],
      );
      const row = rows[0];
      if (!row) return undefined;
      await manager.query(`DELETE FROM mail_tokens WHERE subscriber_id = $1 AND purpose = 'confirm'`, [
        row.id,
      ]);
      await manager.query(
        `UPDATE digest_deliveries SET status = 'cancelled', next_attempt_at = NULL
         WHERE subscriber_id = $1 AND status = 'failed'`,
        [row.id],
      );
      return row;
    });
  }
}
