import { Inject, Injectable } from '@nestjs/common';
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import { AUTH_CONFIG, type AuthConfig } from '../config.js';

/** Stored form: `totp1.<key id>.<nonce>.<ciphertext and tag>` (base64url); the prefix names the format. */
const PREFIX = 'totp1';
const INFO = 'blog auth: TOTP secret encryption v1';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Encrypts TOTP secrets at rest: AES-256-GCM under a key derived with HKDF-SHA256 from
 * TOTP_ENCRYPTION_KEY, else JWT_SECRET. The account's id is the associated data, so a value
 * copied to another account does not decrypt. The key's id (a hash of the key) is stored with
 * each value: after a key change the error says so instead of reporting a wrong code.
 */
@Injectable()
export class SecretBox {
  private readonly key: Buffer;
  private readonly keyId: string;

  constructor(@Inject(AUTH_CONFIG) config: Pick<AuthConfig, 'JWT_SECRET' | 'TOTP_ENCRYPTION_KEY'>) {
    const material = config.TOTP_ENCRYPTION_KEY ?? config.JWT_SECRET;
    this.key = Buffer.from(hkdfSync('sha256', material, Buffer.alloc(0), INFO, 32));
    this.keyId = createHash('sha256').update(this.key).digest('base64url').slice(0, 8);
  }

  static isSealed(value: string): boolean {
    return value.startsWith(`${PREFIX}.`);
  }

  seal(secret: string, accountId: string): string {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce).setAAD(Buffer.from(accountId));
    const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return [PREFIX, this.keyId, nonce.toString('base64url'), sealed.toString('base64url')].join('.');
  }

  open(value: string, accountId: string): string {
    const [prefix, keyId, nonce, sealed] = value.split('.');
    if (prefix !== PREFIX || !keyId || !nonce || !sealed) throw new Error('not a sealed TOTP secret');
    if (keyId !== this.keyId)
      throw new Error(
        'this TOTP secret was encrypted with another key: TOTP_ENCRYPTION_KEY or JWT_SECRET changed',
      );
    const bytes = Buffer.from(sealed, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(nonce, 'base64url'))
      .setAAD(Buffer.from(accountId))
      .setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    return Buffer.concat([
      decipher.update(bytes.subarray(0, bytes.length - TAG_BYTES)),
      decipher.final(),
    ]).toString('utf8');
  }
}
