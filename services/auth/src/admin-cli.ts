/**
 * The operator's way back in: `npm run admin -- reset-password <username>` (also inside the
 * app container, where DATABASE_URL is set). Prints a new password for the account, signs
 * out its sessions, turns its two-factor sign-in off (the phone may be what was lost) and
 * clears its failed sign-in counts. Without DATABASE_URL it uses the embedded PostgreSQL of
 * `npm start` in DATA_DIR (default ./data), which must be running.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { PasswordHasher } from './users/password-hasher.js';

const USAGE = 'usage: npm run admin -- reset-password <username>';

/** The running embedded PostgreSQL of `npm start`: its port from postmaster.pid, its password from DATA_DIR. */
function embeddedDatabaseUrl(): string {
  const dataDir = resolve(process.env.DATA_DIR ?? './data');
  const pidFile = join(dataDir, 'postgres', 'postmaster.pid');
  if (!existsSync(pidFile))
    throw new Error(`no running site database in ${dataDir}: start the site (npm start) or set DATABASE_URL`);
  const [pid, , , port] = readFileSync(pidFile, 'utf8').split('\n');
  try {
    process.kill(Number(pid), 0);
  } catch {
    throw new Error(
      `the site database in ${dataDir} is not running: start the site (npm start) or set DATABASE_URL`,
    );
  }
  const password = readFileSync(join(dataDir, 'postgres-password'), 'utf8').trim();
  return `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port!.trim()}/blog`;
}

export async function resetPassword(databaseUrl: string, username: string): Promise<string> {
  const password = randomBytes(15).toString('base64url');
  const hash = await new PasswordHasher().hash(password);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query(
      `UPDATE auth.users SET password_hash = $2, password_changed_at = now(), session_version = session_version + 1,
         totp_enabled = false, totp_secret = NULL, totp_last_step = NULL, recovery_codes = '{}'
       WHERE lower(username) = lower($1)`,
      [username, hash],
    );
    if (rowCount !== 1) throw new Error(`no user named "${username}"`);
    await client.query(`DELETE FROM auth.login_attempts WHERE key LIKE '%' || chr(10) || lower($1)`, [
      username,
    ]);
  } finally {
    await client.end();
  }
  return password;
}

async function main(args: string[]): Promise<void> {
  const [command, username] = args;
  if (command !== 'reset-password' || !username) throw new Error(USAGE);
  const password = await resetPassword(process.env.DATABASE_URL ?? embeddedDatabaseUrl(), username);
  process.stdout.write(
    `New password for ${username}: ${password}\n` +
      'Its sessions are signed out and its two-factor sign-in is off; change the password in Account after signing in.\n',
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main(process.argv.slice(2)).catch((error: Error) => {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  });
}
