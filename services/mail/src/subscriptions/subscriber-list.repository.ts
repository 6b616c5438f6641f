import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type {
  SubscriberCounts,
  SubscriberFrequency,
  SubscriberView,
  SubscriptionStatus,
} from '@blog/contracts';
import { DataSource, type EntityManager } from 'typeorm';
import { queryRows } from '@blog/server-kit';

interface SubscriberRow {
  id: number;
  email: string;
  status: SubscriptionStatus;
  frequency: SubscriberFrequency;
  bounced_at: Date | null;
  created_at: Date;
  confirmed_at: Date | null;
  unsubscribed_at: Date | null;
}

const COLUMNS = `id, email, status, frequency, bounced_at, created_at, confirmed_at, unsubscribed_at`;

export function toView(row: SubscriberRow): SubscriberView {
  return {
    id: row.id,
    email: row.email,
    status: row.status,
    frequency: row.frequency,
    bounced: row.bounced_at !== null,
    created_at: row.created_at.toISOString(),
    confirmed_at: row.confirmed_at?.toISOString() ?? null,
    unsubscribed_at: row.unsubscribed_at?.toISOString() ?? null,
  };
}

/** New addresses of one import batch, already checked and without repeats. */
export interface ImportBatch {
  emails: string[];
  consented: boolean;
  frequency: SubscriberFrequency;
}

/** The owner's list of subscribers: filtered pages, counts, the export and bounce resets. */
@Injectable()
export class SubscriberListRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async counts(): Promise<SubscriberCounts> {
    const [row] = await queryRows<Record<string, number>>(
      this.db,
      `SELECT
         count(*) FILTER (WHERE status = 'pending')::int AS pending,
         count(*) FILTER (WHERE status = 'confirmed')::int AS confirmed,
         count(*) FILTER (WHERE status = 'unsubscribed')::int AS unsubscribed,
         count(*) FILTER (WHERE bounced_at IS NOT NULL)::int AS bounced,
         count(*) FILTER (WHERE status = 'confirmed' AND bounced_at IS NULL AND frequency = 'each-post')::int AS each_post,
         count(*) FILTER (WHERE status = 'confirmed' AND bounced_at IS NULL AND frequency = 'weekly')::int AS weekly
       FROM subscribers`,
    );
    return {
      byStatus: {
        pending: row!.pending!,
        confirmed: row!.confirmed!,
        unsubscribed: row!.unsubscribed!,
        bounced: row!.bounced!,
      },
      byFrequency: { 'each-post': row!.each_post!, weekly: row!.weekly! },
    };
  }

  async exportPage(afterId: number, limit: number): Promise<SubscriberView[]> {
    const rows = await queryRows<SubscriberRow>(
      this.db,
      `SELECT ${COLUMNS} FROM subscribers WHERE id > $1 ORDER BY id LIMIT $2`,
      [afterId, limit],
    );
    return rows.map(toView);
  }

  async resetBounce(id: number): Promise<SubscriberView | undefined> {
    const rows = await queryRows<SubscriberRow>(
      this.db,
      `UPDATE subscribers SET bounced_at = NULL, bounce_count = 0 WHERE id = $1 RETURNING ${COLUMNS}`,
      [id],
    );
    return rows[0] && toView(rows[0]);
  }

  /**
   * Adds the addresses not here yet (compared without case), in one statement: confirmed at
   * once when the owner stated consent, else pending with a confirmation e-mail due now (the
   * mail sweep sends it, retried like any other). An address already here, in whatever
   * status, is left as it is. Answers how many were added.
   */
  async insertImported(manager: EntityManager, batch: ImportBatch): Promise<number> {
    if (!batch.emails.length) return 0;
    const rows = await queryRows<{ id: number }>(
      manager,
      `INSERT INTO subscribers (email, status, frequency, confirmed_at, confirmation_due_at, confirmation_attempts)
       SELECT e, $2, $3, CASE WHEN $4 THEN now() END, CASE WHEN $4 THEN NULL ELSE now() END, 0
       FROM unnest($1::text[]) AS e
       ON CONFLICT ((lower(email))) DO NOTHING RETURNING id`,
      [batch.emails, batch.consented ? 'confirmed' : 'pending', batch.frequency, batch.consented],
    );
    return rows.length;
  }
}
