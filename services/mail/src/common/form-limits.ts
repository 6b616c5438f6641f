import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { RateWindow } from '@blog/server-kit';
import { DataSource } from 'typeorm';
import { MAIL_CONFIG, type MailConfig } from '../config.js';

export type FormName = 'contact' | 'subscribe';

/**
 * Per-IP limits of the public forms, in the shared fixed windows (RateWindow) of the mail
 * schema, so every gateway and mail replica shares them.
 */
@Injectable()
export class FormLimits {
  private readonly windows: RateWindow;

  constructor(
    @InjectDataSource() db: DataSource,
    @Inject(MAIL_CONFIG) private readonly config: MailConfig,
  ) {
    this.windows = new RateWindow(db);
  }

  /** Counts this request; throws 429 with Retry-After seconds once the window's allowance is used. */
  admit(form: FormName, ip: string, error: string): Promise<void> {
    const max = form === 'contact' ? this.config.CONTACT_MAX_PER_IP : this.config.SUBSCRIBE_MAX_PER_IP;
    return this.windows.admit(`${form}\n${ip}`, { max, windowSeconds: this.config.FORM_LIMIT_WINDOW }, error);
  }

  /** Old windows are useless; keeps the table small. */
  purgeExpired(): Promise<void> {
    return this.windows.purgeOlderThan(this.config.FORM_LIMIT_WINDOW);
  }
}
