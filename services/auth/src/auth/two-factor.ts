import { Injectable } from '@nestjs/common';
import { ErrorText, RECOVERY_CODE_LENGTH, type TwoFactorSetup } from '@blog/contracts';
import { RpcError } from '@blog/server-kit';
import { createHash, timingSafeEqual } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { PasswordHasher } from '../users/password-hasher.js';
import type { User } from '../users/user.entity.js';
import { SecretBox } from './secret-box.js';

const ISSUER = 'Personal blog';
const PERIOD = 30;
const RECOVERY_CODES = 10;
/** Codes of the previous and next 30 s step count too (clock drift between phone and server). */
const WINDOW = 1;

/** Recovery codes issued before argon2id: the SHA-256 hex of `xxxxx-xxxxx` (40 bits). */
const LEGACY_HASH = /^[0-9a-f]{64}$/;
const legacyMatches = (kept: string, code: string) =>
  LEGACY_HASH.test(kept) &&
  timingSafeEqual(Buffer.from(kept, 'hex'), createHash('sha256').update(code).digest());

/** A right code: the time step it belongs to, or the stored hash of the recovery code; spent once stored. */
export type TwoFactorUse = { step: number } | { recoveryHash: string };

/**
 * TOTP (RFC 6238: SHA-1, 6 digits, 30 s) and single-use recovery codes; no I/O. Secrets are
 * kept sealed (SecretBox); recovery codes carry 80 bits and are kept as argon2id hashes.
 */
@Injectable()
export class TwoFactor {
  constructor(
    private readonly box: SecretBox,
    private readonly hasher: PasswordHasher,
  ) {}

  private totp(username: string, secret: string): TOTP {
    return new TOTP({
      issuer: ISSUER,
      label: username,
      algorithm: 'SHA1',
      digits: 6,
      period: PERIOD,
      secret: Secret.fromBase32(secret),
    });
  }

  /** A new secret, the otpauth:// URL an authenticator app reads (from a QR code), and the sealed form to store. */
  newSecret(user: Pick<User, 'id' | 'username'>): { setup: TwoFactorSetup; stored: string } {
    const secret = new Secret({ size: 20 }).base32;
    return {
      setup: { secret, otpauthUrl: this.totp(user.username, secret).toString() },
      stored: this.box.seal(secret, user.id),
    };
  }

  /** The stored secret in the clear: sealed, or (written before sealing, until start-up seals it) clear. */
  openSecret(user: Pick<User, 'id' | 'totpSecret'>): string {
    const stored = user.totpSecret!;
    return SecretBox.isSealed(stored) ? this.box.open(stored, user.id) : stored;
  }

  /** Ten codes (16 base32 characters each, in groups of four) shown once, and their argon2id hashes to keep. */
  async newRecoveryCodes(): Promise<{ recoveryCodes: string[]; hashes: string[] }> {
    const recoveryCodes = Array.from({ length: RECOVERY_CODES }, () =>
      new Secret({ size: (RECOVERY_CODE_LENGTH * 5) / 8 }).base32.toLowerCase().match(/.{4}/g)!.join('-'),
    );
    return { recoveryCodes, hashes: await Promise.all(recoveryCodes.map((c) => this.hasher.hash(c))) };
  }

  /**
   * Checks a code against the account: a TOTP code of a step newer than the last one used,
   * or an unused recovery code. Returns what to store so the code cannot be used again.
   * Throws 401 for a wrong or reused code (400 when `wrong` says so: the account's own calls).
   * The caller spends it (UsersService.spendTwoFactor), atomically, so two replicas cannot
   * both accept it.
   */
  async verify(
    user: User,
    code: string,
    wrong: 'unauthorized' | 'badRequest' = 'unauthorized',
  ): Promise<TwoFactorUse> {
    const refuse = () =>
      wrong === 'unauthorized'
        ? RpcError.unauthorized(ErrorText.invalidTwoFactorCode)
        : RpcError.badRequest(ErrorText.invalidTwoFactorCode, 'code');
    if (!user.totpSecret) throw RpcError.badRequest(ErrorText.twoFactorNotSetUp);
    if (code.includes('-')) {
      for (const kept of user.recoveryCodes) {
        const matches = kept.startsWith('$argon2')
          ? await this.hasher.verify(kept, code)
          : legacyMatches(kept, code);
        if (matches) return { recoveryHash: kept };
      }
      throw refuse();
    }
    const delta = this.totp(user.username, this.openSecret(user)).validate({ token: code, window: WINDOW });
    if (delta === null) throw refuse();
    const step = Math.floor(Date.now() / 1000 / PERIOD) + delta;
    if (user.totpLastStep !== null && step <= user.totpLastStep) throw refuse();
    return { step };
  }
}
