/**
 * The operator's way back in, for `npm run admin -- reset-password <username>` (scripts/admin.mjs):
 * a new password for the account, its sessions signed out, its two-factor sign-in off (the
 * phone may be what was lost) and its failed sign-in and two-factor code counts cleared.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { CodeLock } from './auth/code-lock.js';
import { PasswordHasher } from './users/password-hasher.js';

export async function resetPassword(databaseUrl: string, username: string): Promise<string> {
  const password = randomBytes(15).toString('base64url');
  const hash = await new PasswordHasher().hash(password);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rowCount, rows } = await client.query<{ id: string }>(
      `UPDATE auth.users SET password_hash = $2, password_changed_at = now(), session_version = session_version + 1,
         totp_enabled = false, totp_secret = NULL, totp_last_step = NULL, recovery_codes = '{}'
       WHERE lower(username) = lower($1) RETURNING id`,
      [username, hash],
    );
    if (rowCount !== 1) throw new Error(`no user named "${username}"`);
    // The account's code lock, and its failed sign-ins from every address (LoginThrottle.key).
    await client.query(
      `DELETE FROM auth.rate_windows
       WHERE key = $1 OR (key LIKE 'login' || chr(10) || '%' AND split_part(key, chr(10), 3) = lower($2))`,
      [CodeLock.key(rows[0]!.id), username],
    );
  } finally {
    await client.end();
  }
  return password;
}
