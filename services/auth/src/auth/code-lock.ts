import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ErrorText } from '@blog/contracts';
import { RateWindow, type RateLimit } from '@blog/server-kit';
import { DataSource } from 'typeorm';
import { AUTH_CONFIG, type AuthConfig } from '../config.js';

/**
 * The per-account limit on two-factor code checks, wherever a code is accepted (sign-in,
 * turning two-factor on or off, new recovery codes), from whatever address: each check is
 * counted before the code is looked at, a right code clears the count, and past
 * TWO_FACTOR_MAX_FAILURES in TWO_FACTOR_WINDOW the account's checks answer 429 until the
 * window ends. Sign-in's per-address limit alone let a spread of addresses guess on.
 */
@Injectable()
export class CodeLock {
  private readonly windows: RateWindow;
  private readonly limit: RateLimit;

  constructor(@InjectDataSource() db: DataSource, @Inject(AUTH_CONFIG) config: AuthConfig) {
    this.windows = new RateWindow(db);
    this.limit = { max: config.TWO_FACTOR_MAX_FAILURES, windowSeconds: config.TWO_FACTOR_WINDOW };
  }

  static key(accountId: string): string {
    return `2fa\n${accountId}`;
  }

  /** Counts one code check for the account; 429 with Retry-After once the allowance is spent. */
  admit(accountId: string): Promise<void> {
    return this.windows.admit(CodeLock.key(accountId), this.limit, ErrorText.twoFactorLocked);
  }

  clear(accountId: string): Promise<void> {
    return this.windows.reset(CodeLock.key(accountId));
  }

  /** When the account's lock ends, while it is locked (the account page shows it). */
  async lockedUntil(accountId: string): Promise<string | null> {
    return (await this.windows.blockedUntil(CodeLock.key(accountId), this.limit))?.toISOString() ?? null;
  }
}
