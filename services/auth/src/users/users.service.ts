import { Injectable } from '@nestjs/common';
import {
  ADMIN_ROLE,
  DEFAULT_ROLE,
  ErrorText,
  type AccountView,
  type PublicUser,
  type SessionState,
} from '@blog/contracts';
import { RpcError } from '@blog/server-kit';
import type { TwoFactorUse } from '../auth/two-factor.js';
import { PasswordHasher } from './password-hasher.js';
import type { User } from './user.entity.js';
import { UsersRepository, type LockedAccount } from './users.repository.js';

export function toPublicUser(user: User): PublicUser {
  return { id: user.id, username: user.username, role: user.role, created_at: user.createdAt.toISOString() };
}

@Injectable()
export class UsersService {
  constructor(
    private readonly users: UsersRepository,
    private readonly hasher: PasswordHasher,
  ) {}

  findByUsername(username: string): Promise<User | null> {
    return this.users.findByUsername(username);
  }

  /** Creates an account; self-registration always gets the default role. */
  async create(username: string, password: string, role: string = DEFAULT_ROLE): Promise<User> {
    const passwordHash = await this.hasher.hash(password);
    const user = await this.users.add({ username, role, passwordHash });
    if (!user) throw RpcError.conflict(ErrorText.usernameTaken);
    return user;
  }

  async list(): Promise<PublicUser[]> {
    const users = await this.users.all();
    return users.map(toPublicUser);
  }

  async get(id: string): Promise<User> {
    const user = await this.users.findById(id);
    if (!user) throw RpcError.notFound(ErrorText.userNotFound);
    return user;
  }

  toAccount(user: User): Omit<AccountView, 'codeLockedUntil'> {
    return { id: user.id, username: user.username, role: user.role, twoFactorEnabled: user.totpEnabled };
  }

  /** The gateway's token check: null once the account is gone. */
  async sessionState(id: string): Promise<SessionState | null> {
    const user = await this.users.sessionState(id);
    return user ? { role: user.role, sessionVersion: user.sessionVersion } : null;
  }

  /**
   * Runs a change to one account with every admin row locked, and refuses it (409) if it
   * would leave no admin: two admins demoting each other at once cannot both succeed.
   */
  private async withAdminsLocked<T>(id: string, change: (account: LockedAccount) => Promise<T>): Promise<T> {
    const changed = await this.users.changeWithAdminsLocked(id, change);
    if (!changed) throw RpcError.notFound(ErrorText.userNotFound);
    return changed.answer;
  }

  /** A new role; the account's tokens stop working (they carry the old role). */
  setRole(id: string, role: string): Promise<PublicUser> {
    return this.withAdminsLocked(id, async ({ user, otherAdmins, save }) => {
      if (user.role === role) return toPublicUser(user);
      if (user.role === ADMIN_ROLE && otherAdmins === 0) throw RpcError.conflict(ErrorText.lastAdmin);
      user.role = role;
      user.sessionVersion += 1;
      return toPublicUser(await save(user));
    });
  }

  delete(id: string, actorId: string): Promise<void> {
    if (id === actorId) throw RpcError.conflict(ErrorText.deleteSelf);
    return this.withAdminsLocked(id, async ({ user, otherAdmins, remove }) => {
      if (user.role === ADMIN_ROLE && otherAdmins === 0) throw RpcError.conflict(ErrorText.lastAdmin);
      await remove();
    });
  }

  /** A new password from the dashboard; every older token stops working. */
  async setPassword(user: User, password: string): Promise<User> {
    user.passwordHash = await this.hasher.hash(password);
    user.passwordChangedAt = new Date();
    user.sessionVersion += 1;
    return this.users.save(user);
  }

  /**
   * After a right password: a hash made with older argon2 settings is made anew with today's,
   * so every account moves to them at its next sign-in (tokens stay valid: the password is the same).
   */
  async refreshPasswordHash(user: User, password: string): Promise<void> {
    if (!this.hasher.isOutdated(user.passwordHash)) return;
    await this.users.replacePasswordHash(user.id, user.passwordHash, await this.hasher.hash(password));
  }

  /** "Sign out everywhere": every token issued so far stops working. */
  async revokeSessions(id: string): Promise<User> {
    await this.users.bumpSessionVersion(id);
    return this.get(id);
  }

  async saveTwoFactor(
    user: User,
    change: Partial<
      Pick<User, 'totpSecret' | 'totpEnabled' | 'totpLastStep' | 'recoveryCodes' | 'sessionVersion'>
    >,
  ): Promise<User> {
    Object.assign(user, change);
    return this.users.save(user);
  }

  /**
   * Spends a right two-factor code, once: the time step must be newer than the last stored,
   * the recovery code still listed, checked in the same UPDATE. False when another sign-in
   * spent it first.
   */
  async spendTwoFactor(user: User, use: TwoFactorUse): Promise<boolean> {
    return 'step' in use
      ? this.users.spendTotpStep(user.id, use.step)
      : this.users.spendRecoveryCode(user.id, use.recoveryHash);
  }

  /**
   * Seals TOTP secrets still stored in the clear (written before they were encrypted). Each
   * row is updated only if it still holds the clear value, so replicas starting together, or a
   * second start, change nothing more. Answers how many were sealed.
   */
  async sealClearSecrets(seal: (secret: string, accountId: string) => string): Promise<number> {
    let sealed = 0;
    for (const { id, secret } of await this.users.clearSecrets())
      if (await this.users.replaceSecret(id, secret, seal(secret, id))) sealed++;
    return sealed;
  }

  hasAdmin(): Promise<boolean> {
    return this.users.hasAdmin();
  }

  /**
   * Makes sure `username` is an admin whose password is `password` (rehashing only when it
   * differs), unless the owner has since changed the password in the dashboard: that one wins.
   */
  async ensureAdmin(username: string, password: string): Promise<User> {
    const existing = await this.findByUsername(username);
    if (!existing) return this.create(username, password, ADMIN_ROLE);
    const samePassword =
      existing.passwordChangedAt !== null || (await this.hasher.verify(existing.passwordHash, password));
    if (existing.role !== ADMIN_ROLE || !samePassword) {
      existing.role = ADMIN_ROLE;
      if (!samePassword) existing.passwordHash = await this.hasher.hash(password);
      await this.users.save(existing);
    }
    return existing;
  }
}
