import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DeliveryFailureReason, DeliveryFailureView } from '@blog/contracts';
import { DataSource } from 'typeorm';
import { queryRows } from '@blog/server-kit';

/** A delivery given up, as the federation reports it, with the server it is kept under. */
export interface DeliveryFailureRecord {
  host: string;
  inbox: string;
  activityId: string | null;
  reason: DeliveryFailureReason;
  statusCode: number | null;
  error: string | null;
}

interface DeliveryFailureRow {
  host: string;
  inbox: string;
  last_activity_id: string | null;
  reason: DeliveryFailureReason;
  status_code: number | null;
  error: string | null;
  first_failed_at: Date;
  last_failed_at: Date;
  count: number;
}

const view = (row: DeliveryFailureRow): DeliveryFailureView => ({
  host: row.host,
  inbox: row.inbox,
  lastActivityId: row.last_activity_id,
  reason: row.reason,
  statusCode: row.status_code,
  error: row.error,
  firstFailedAt: row.first_failed_at.toISOString(),
  lastFailedAt: row.last_failed_at.toISOString(),
  count: row.count,
});

/** Deliveries given up (delivery_failures): one row per remote server. */
export abstract class DeliveryFailuresRepository {
  /** Adds the failure to its server's row (made on its first one). */
  abstract record(failure: DeliveryFailureRecord): Promise<void>;
  /** Most recent failure first. */
  abstract list(limit: number): Promise<DeliveryFailureView[]>;
  abstract remove(host: string): Promise<boolean>;
}

@Injectable()
export class PostgresDeliveryFailuresRepository extends DeliveryFailuresRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {
    super();
  }

  async record(failure: DeliveryFailureRecord): Promise<void> {
    // The same activity given up again on this server (at another of its inboxes, or one try both
    // expired and dropped by its circuit) keeps the row's count and first reason.
    await this.db.query(
      `INSERT INTO delivery_failures AS f (host, inbox, last_activity_id, reason, status_code, error)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (host) DO UPDATE SET
         last_failed_at = now(),
         inbox = CASE WHEN f.last_activity_id = EXCLUDED.last_activity_id THEN f.inbox ELSE EXCLUDED.inbox END,
         reason = CASE WHEN f.last_activity_id = EXCLUDED.last_activity_id THEN f.reason ELSE EXCLUDED.reason END,
         status_code = CASE WHEN f.last_activity_id = EXCLUDED.last_activity_id THEN f.status_code
                            ELSE EXCLUDED.status_code END,
         error = CASE WHEN f.last_activity_id = EXCLUDED.last_activity_id THEN f.error ELSE EXCLUDED.error END,
         count = f.count + CASE WHEN f.last_activity_id = EXCLUDED.last_activity_id THEN 0 ELSE 1 END,
         last_activity_id = EXCLUDED.last_activity_id`,
      [failure.host, failure.inbox, failure.activityId, failure.reason, failure.statusCode, failure.error],
    );
  }

  async list(limit: number): Promise<DeliveryFailureView[]> {
    const rows = await queryRows<DeliveryFailureRow>(
      this.db,
      `SELECT host, inbox, last_activity_id, reason, status_code, error, first_failed_at, last_failed_at, count
       FROM delivery_failures ORDER BY last_failed_at DESC, host LIMIT $1`,
      [limit],
    );
    return rows.map(view);
  }

  async remove(host: string): Promise<boolean> {
    const rows = await queryRows<{ host: string }>(
      this.db,
      `DELETE FROM delivery_failures WHERE host = $1 RETURNING host`,
      [host],
    );
    return rows.length > 0;
  }
}
