import { Injectable } from '@nestjs/common';
import argon2 from 'argon2';
import { randomBytes } from 'node:crypto';

/**
 * argon2id at OWASP's minimum, in the row of its table with the least memory: 7 MiB and 5
 * passes, which OWASP rates the same defence as 19 MiB and 2. A check maps 7 MiB instead of 19
 * and costs less CPU: the servers map blocks of 256 KiB and more afresh each time
 * (scripts/lib/server-runtime-env.mjs), and the kernel's zeroing of 19 fresh MiB made a check
 * 33 ms of CPU where glibc's defaults (the area kept in the heap) took 29; 7 MiB and 5 passes
 * take 22-27. Hashes made with other settings still verify (a hash names its own settings)
 * and are made anew with these at the account's next sign-in.
 */
const OPTIONS = { type: argon2.argon2id, memoryCost: 7168, timeCost: 5, parallelism: 1 } as const;

@Injectable()
export class PasswordHasher {
  private dummyHash?: Promise<string>;

  hash(password: string): Promise<string> {
    return argon2.hash(password, OPTIONS);
  }

  async verify(hash: string, password: string): Promise<boolean> {
    try {
      return await argon2.verify(hash, password);
    } catch {
      return false;
    }
  }

  /** Whether `hash` was made with other settings than today's (checked after a right password). */
  isOutdated(hash: string): boolean {
    try {
      return argon2.needsRehash(hash, OPTIONS);
    } catch {
      return false;
    }
  }

  /** Spends the same time as a real check when the user does not exist, so timing tells nothing. */
  async verifyAgainstNothing(password: string): Promise<false> {
    this.dummyHash ??= this.hash(randomBytes(16).toString('hex'));
    await this.verify(await this.dummyHash, password);
    return false;
  }
}
