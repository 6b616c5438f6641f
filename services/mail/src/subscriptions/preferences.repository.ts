import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { SubscriberFrequency, SubscriptionStatus } from '@blog/contracts';
import { DataSource } from 'typeorm';
import { queryRows } from '@blog/server-kit';
import { unsubscribeByToken } from './subscriptions.repository.js';

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
    return this.db.transaction((manager) =>
      unsubscribeByToken<PreferencesRow>(
        manager,
        tokenHash,
        'preferences',
        's.id, s.email, s.status, s.frequency',
      ),
    );
  }
}
