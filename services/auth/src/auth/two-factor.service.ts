import { Injectable } from '@nestjs/common';
import { ErrorText, type TwoFactorEnabled, type TwoFactorSetup } from '@blog/contracts';
import { RpcError } from '@blog/server-kit';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import type { User } from '../users/user.entity.js';

const ISSUER = 'Personal blog';
const PERIOD = 30;
const RECOVERY_CODES = 10;
/** Codes of the previous and next 30 s step count too (clock drift between phone and server). */
const WINDOW = 1;

const hashCode = (code: string) => createHash('sha256').update(code).digest('hex');
const sameHash = (a: string, b: string) => timingSafeEqual(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'));

/** A right code: the time step it belongs to, or the hash of the recovery code; spent once stored. */
export type TwoFactorUse = { step: number } | { recoveryHash: string };

/** TOTP (RFC 6238: SHA-1, 6 digits, 30 s) and single-use recovery codes; no I/O. */
@Injectable()
export class TwoFactor {
  private totp(user: Pick<User, 'username' | 'totpSecret'>): TOTP {
    return new TOTP({
      issuer: ISSUER,
      label: user.username,
      algorithm: 'SHA1',
      digits: 6,
      period: PERIOD,
      secret: Secret.fromBase32(user.totpSecret!),
    });
  }

  /** A new secret and the otpauth:// URL an authenticator app reads (from a QR code). */
  newSecret(username: string): TwoFactorSetup {
    const secret = new Secret({ size: 20 }).base32;
    return { secret, otpauthUrl: this.totp({ username, totpSecret: secret }).toString() };
  }

  /** Ten codes shown once, and their hashes to keep. */
  newRecoveryCodes(): TwoFactorEnabled & { hashes: string[] } {
    const recoveryCodes = Array.from({ length: RECOVERY_CODES }, () => {
      const raw = randomBytes(8)
        .toString('hex')
        .replace(/[^a-z0-9]/g, '')
        .slice(0, 10);
      return `${raw.slice(0, 5)}-${raw.slice(5, 10)}`;
    });
    return { recoveryCodes, hashes: recoveryCodes.map(hashCode) };
  }

  /**
   * Checks a code against the account: a TOTP code of a step newer than the last one used,
   * or an unused recovery code. Returns what to store so the code cannot be used again.
   * Throws 401 for a wrong or reused code (400 when `wrong` says so: the account's own calls). The caller spends it (UsersService.spendTwoFactor),
   * atomically, so two replicas cannot both accept it.
   */
  verify(user: User, code: string, wrong: 'unauthorized' | 'badRequest' = 'unauthorized'): TwoFactorUse {
    const refuse = () =>
      wrong === 'unauthorized'
        ? RpcError.unauthorized(ErrorText.invalidTwoFactorCode)
        : RpcError.badRequest(ErrorText.invalidTwoFactorCode, 'code');
    if (!user.totpSecret) throw RpcError.badRequest(ErrorText.twoFactorNotSetUp);
    if (code.includes('-')) {
      const recoveryHash = hashCode(code);
      if (!user.recoveryCodes.some((kept) => sameHash(kept, recoveryHash))) throw refuse();
      return { recoveryHash };
    }
    const delta = this.totp(user).validate({ token: code, window: WINDOW });
    if (delta === null) throw refuse();
    const step = Math.floor(Date.now() / 1000 / PERIOD) + delta;
    if (user.totpLastStep !== null && step <= user.totpLastStep) throw refuse();
    return { step };
  }
}
