/**
 * The operator's way back in, for `npm run admin -- reset-password <username>` (scripts/admin.mjs):
 * a new password for the account, its sessions signed out, its two-factor sign-in off (the
 * phone may be what was lost) and its failed sign-in and two-factor code counts cleared.
 * It works through the service's own repositories, on a data source of the auth schema.
 */
import { randomBytes } from 'node:crypto';
import { dataSourceOptions, RateWindow } from '@blog/server-kit';
import { DataSource } from 'typeorm';
import { CodeLock } from './auth/code-lock.js';
import { LoginThrottle } from './auth/login-throttle.js';
import { PasswordHasher } from './users/password-hasher.js';
import { User } from './users/user.entity.js';
import { PostgresUsersRepository } from './users/users.repository.js';

export async function resetPassword(databaseUrl: string, username: string): Promise<string> {
  const password = randomBytes(15).toString('base64url');
  const hash = await new PasswordHasher().hash(password);
  // The running service owns the migrations: a command never runs them.
  const db = await new DataSource({
    ...dataSourceOptions({ url: databaseUrl, schema: 'auth', entities: [User], migrations: [], poolSize: 1 }),
    migrationsRun: false,
  }).initialize();
  try {
    const users = new PostgresUsersRepository(db.getRepository(User));
    const found = await users.findByUsername(username);
    // The row stays locked while it changes, so a sign-out everywhere at the same time is not lost.
    const changed =
      found &&
      (await users.changeWithAdminsLocked(found.id, async ({ user, save }) => {
        Object.assign(user, {
          passwordHash: hash,
          passwordChangedAt: new Date(),
          sessionVersion: user.sessionVersion + 1,
          totpEnabled: false,
          totpSecret: null,
          totpLastStep: null,
          recoveryCodes: [],
        } satisfies Partial<User>);
        await save(user);
      }));
    if (!found || !changed) throw new Error(`no user named "${username}"`);
    const windows = new RateWindow(db);
    await windows.reset(CodeLock.key(found.id));
    const { prefix, suffix } = LoginThrottle.accountKeys(username);
    await windows.resetMatching(prefix, suffix);
  } finally {
    await db.destroy();
  }
  return password;
}
