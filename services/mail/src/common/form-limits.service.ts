import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { RpcError } from '@blog/server-kit';
import { DataSource } from 'typeorm';
import { MAIL_CONFIG, type MailConfig } from '../config.js';
import { queryRows } from './sql.js';

export type FormName = 'contact' | 'subscribe';

/**
 * Per-IP limits of the public forms, counted atomically in the mail schema so every gateway
 * and mail replica shares them (the same scheme as the auth service's sign-in throttle).
 */
@Injectable()
export class FormLimits {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(MAIL_CONFIG) private readonly config: MailConfig,
  ) {}

  /** Counts this request; throws 429 with Retry-After seconds once the window's allowance is used. */
  async admit(form: FormName, ip: string, error: string): Promise<void> {
    const max = form === 'contact' ? this.config.CONTACT_MAX_PER_IP : this.config.SUBSCRIBE_MAX_PER_IP;
    const window = this.config.FORM_LIMIT_WINDOW;
    const rows = await queryRows<{ hits: number; retry_after: number }>(
      this.db,
      `INSERT INTO form_limits AS f (key, hits, window_started_at) VALUES ($1, 1, now())
       ON CONFLICT (key) DO UPDATE SET
         hits = CASE WHEN f.window_started_at <= now() - make_interval(secs => $2) THEN 1 ELSE f.hits + 1 END,
         window_started_at = CASE WHEN f.window_started_at <= now() - make_interval(secs => $2) THEN now() ELSE f.window_started_at END
       RETURNING hits,
         ceil(extract(epoch FROM (window_started_at + make_interval(secs => $2) - now())))::int AS retry_after`,
      [`${form}\n${ip}`, window],
    );
    const row = rows[0];
    if (row && row.hits > max) throw RpcError.tooManyRequests(error, Math.max(1, row.retry_after));
  }

  /** Old windows are useless; keeps the table small. */
  async purgeExpired(): Promise<void> {
    await this.db.query(
      `DELETE FROM form_limits WHERE window_started_at <= now() - make_interval(secs => $1)`,
      [this.config.FORM_LIMIT_WINDOW],
    );
  }
}
