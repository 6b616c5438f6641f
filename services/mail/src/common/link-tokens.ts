import { createHash, randomBytes } from 'node:crypto';

export type TokenPurpose = 'confirm' | 'unsubscribe';

export interface LinkToken {
  /** Goes into the link, never stored. */
  token: string;
  /** sha256 hex of the token: what the database keeps. */
  hash: string;
}

/** An unguessable link token: 32 random bytes, base64url. */
export function newLinkToken(): LinkToken {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashToken(token) };
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
