import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ErrorText } from '@blog/contracts';
import { RpcError } from '@blog/server-kit';
import { DataSource } from 'typeorm';
import { AUTH_CONFIG, type AuthConfig } from '../config.js';

/**
 * Brute-force protection keyed on IP and username (and a registration limit per IP). Each attempt is counted atomically
 * before the password is checked, so parallel guesses on several replicas cannot slip past
 * the limit; a success clears the count.
 */
@Injectable()
export class LoginThrottle {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(AUTH_CONFIG) private readonly config: AuthConfig,
  ) {}

  static key(ip: string, username: string): string {
    return `${ip}\n${username.toLowerCase()}`;
  }

  /** Counts this sign-in attempt; throws 429 with Retry-After seconds when the window's allowance is used up. */
  admit(key: string): Promise<void> {
    return this.count(
      key,
      this.config.LOGIN_MAX_FAILURES,
      this.config.LOGIN_WINDOW,
      ErrorText.tooManyAttempts,
    );
  }

  /**
   * Counts a registration from `ip` (each costs an argon2 hash); 429 past REGISTER_MAX_PER_IP
   * in REGISTER_WINDOW. Checked before the hash, so a burst cannot slow sign-in down.
   */
  admitRegistration(ip: string): Promise<void> {
    return this.count(
      `register\n${ip}`,
      this.config.REGISTER_MAX_PER_IP,
      this.config.REGISTER_WINDOW,
      ErrorText.tooManyRegistrations,
    );
  }

  private async count(key: string, max: number, window: number, message: string): Promise<void> {
    const rows: { failures: number; retry_after: number }[] = await this.db.query(
      `INSERT INTO login_attempts AS a (key, failures, window_started_at) VALUES ($1, 1, now())
       ON CONFLICT (key) DO UPDATE SET
         failures = CASE WHEN a.window_started_at <= now() - make_interval(secs => $2) THEN 1 ELSE a.failures + 1 END,
         window_started_at = CASE WHEN a.window_started_at <= now() - make_interval(secs => $2) THEN now() ELSE a.window_started_at END
       RETURNING failures,
         ceil(extract(epoch FROM (window_started_at + make_interval(secs => $2) - now())))::int AS retry_after`,
      [key, window],
    );
    const row = rows[0];
    if (row && row.failures > max) throw RpcError.tooManyRequests(message, Math.max(1, row.retry_after));
  }

  async reset(key: string): Promise<void> {
    await this.db.query(`DELETE FROM login_attempts WHERE key = $1`, [key]);
  }

  /** Old windows are useless; keeps the table small. */
  async purgeExpired(): Promise<void> {
    await this.db.query(
      `DELETE FROM login_attempts WHERE window_started_at <= now() - make_interval(secs => $1)`,
      [Math.max(this.config.LOGIN_WINDOW, this.config.REGISTER_WINDOW)],
    );
  }
}
