import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ErrorText } from '@blog/contracts';
import { RateWindow } from '@blog/server-kit';
import { DataSource } from 'typeorm';
import { AUTH_CONFIG, type AuthConfig } from '../config.js';

/**
 * Brute-force protection keyed on IP and username (and a registration limit per IP), in the
 * shared fixed windows (RateWindow). Each attempt is counted atomically before the password is
 * checked, so parallel guesses on several replicas cannot slip past the limit; a success
 * clears the count.
 */
@Injectable()
export class LoginThrottle {
  private readonly windows: RateWindow;

  constructor(
    @InjectDataSource() db: DataSource,
    @Inject(AUTH_CONFIG) private readonly config: AuthConfig,
  ) {
    this.windows = new RateWindow(db);
  }

  static key(ip: string, username: string): string {
    const { prefix, suffix } = LoginThrottle.accountKeys(username);
    return `${prefix}${ip}${suffix}`;
  }

  /** How key() begins and ends for one account, whatever the address (the operator's reset clears them all). */
  static accountKeys(username: string): { prefix: string; suffix: string } {
    return { prefix: 'login\n', suffix: `\n${username.toLowerCase()}` };
  }

  /** Counts this sign-in attempt; throws 429 with Retry-After seconds when the window's allowance is used up. */
  admit(key: string): Promise<void> {
    return this.windows.admit(
      key,
      { max: this.config.LOGIN_MAX_FAILURES, windowSeconds: this.config.LOGIN_WINDOW },
      ErrorText.tooManyAttempts,
    );
  }

  /**
   * Counts a registration from `ip` (each costs an argon2 hash); 429 past REGISTER_MAX_PER_IP
   * in REGISTER_WINDOW. Checked before the hash, so a burst cannot slow sign-in down.
   */
  admitRegistration(ip: string): Promise<void> {
    return this.windows.admit(
      `register\n${ip}`,
      { max: this.config.REGISTER_MAX_PER_IP, windowSeconds: this.config.REGISTER_WINDOW },
      ErrorText.tooManyRegistrations,
    );
  }

  reset(key: string): Promise<void> {
    return this.windows.reset(key);
  }

  /** Old windows are useless; keeps the table small. */
  purgeExpired(): Promise<void> {
    return this.windows.purgeOlderThan(
      Math.max(this.config.LOGIN_WINDOW, this.config.REGISTER_WINDOW, this.config.TWO_FACTOR_WINDOW),
    );
  }
}
