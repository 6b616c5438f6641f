import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import {
  ADMIN_ROLE,
  DEFAULT_ROLE,
  ErrorText,
  type AccountView,
  type PublicUser,
  type SessionState,
} from '@blog/contracts';
import { RpcError } from '@blog/server-kit';
import { QueryFailedError, Repository, type EntityManager } from 'typeorm';
import type { TwoFactorUse } from '../auth/two-factor.js';
import { PasswordHasher } from './password-hasher.js';
import { User } from './user.entity.js';

const UNIQUE_VIOLATION = '23505';

export function toPublicUser(user: User): PublicUser {
  return { id: user.id, username: user.username, role: user.role, created_at: user.createdAt.toISOString() };
}

@Injectable()
export class UsersService {
  constructor(
    @InjectRepository(User) private readonly users: Repository<User>,
    private readonly hasher: PasswordHasher,
  ) {}

  findByUsername(username: string): Promise<User | null> {
    return this.users
      .createQueryBuilder('u')
      .where('lower(u.username) = lower(:username)', { username })
      .getOne();
  }

  /** Creates an account; self-registration always gets the default role. */
  async create(username: string, password: string, role: string = DEFAULT_ROLE): Promise<User> {
    const passwordHash = await this.hasher.hash(password);
    try {
      return await this.users.save(this.users.create({ username, role, passwordHash }));
    } catch (error) {
      if (
        error instanceof QueryFailedError &&
        (error.driverError as { code?: string }).code === UNIQUE_VIOLATION
      ) {
        throw RpcError.conflict(ErrorText.usernameTaken);
      }
      throw error;
    }
  }

  async list(): Promise<PublicUser[]> {
    const users = await this.users.find({ order: { createdAt: 'ASC' } });
    return users.map(toPublicUser);
  }

  async get(id: string): Promise<User> {
    const user = await this.users.findOne({ where: { id } });
    if (!user) throw RpcError.notFound(ErrorText.userNotFound);
    return user;
  }

  toAccount(user: User): Omit<AccountView, 'codeLockedUntil'> {
    return { id: user.id, username: user.username, role: user.role, twoFactorEnabled: user.totpEnabled };
  }

  /** The gateway's token check: null once the account is gone. */
  async sessionState(id: string): Promise<SessionState | null> {
    const user = await this.users.findOne({ where: { id }, select: { role: true, sessionVersion: true } });
    return user ? { role: user.role, sessionVersion: user.sessionVersion } : null;
  }

  /**
   * Runs a change to one account with every admin row locked, and refuses it (409) if it
   * would leave no admin: two admins demoting each other at once cannot both succeed.
   */
  private async withAdminsLocked<T>(
    id: string,
    change: (manager: EntityManager, user: User, otherAdmins: number) => Promise<T>,
  ): Promise<T> {
    return this.users.manager.transaction(async (manager) => {
      const admins: { id: string }[] = await manager.query(
        `SELECT id FROM users WHERE role = $1 ORDER BY id FOR UPDATE`,
        [ADMIN_ROLE],
      );
      const user = await manager.findOne(User, { where: { id }, lock: { mode: 'pessimistic_write' } });
      if (!user) throw RpcError.notFound(ErrorText.userNotFound);
      return change(manager, user, admins.filter((admin) => admin.id !== id).length);
    });
  }

  /** A new role; the account's tokens stop working (they carry the old role). */
  setRole(id: string, role: string): Promise<PublicUser> {
    return this.withAdminsLocked(id, async (manager, user, otherAdmins) => {
      if (user.role === role) return toPublicUser(user);
      if (user.role === ADMIN_ROLE && otherAdmins === 0) throw RpcError.conflict(ErrorText.lastAdmin);
      user.role = role;
      user.sessionVersion += 1;
      return toPublicUser(await manager.save(user));
    });
  }

  delete(id: string, actorId: string): Promise<void> {
    if (id === actorId) throw RpcError.conflict(ErrorText.deleteSelf);
    return this.withAdminsLocked(id, async (manager, user, otherAdmins) => {
      if (user.role === ADMIN_ROLE && otherAdmins === 0) throw RpcError.conflict(ErrorText.lastAdmin);
      await manager.delete(User, { id: user.id });
    });
  }

  /** A new password from the dashboard; every older token stops working. */
  async setPassword(user: User, password: string): Promise<User> {
    user.passwordHash = await this.hasher.hash(password);
    user.passwordChangedAt = new Date();
    user.sessionVersion += 1;
    return this.users.save(user);
  }

  /** "Sign out everywhere": every token issued so far stops working. */
  async revokeSessions(id: string): Promise<User> {
    await this.users.increment({ id }, 'sessionVersion', 1);
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
    const update = this.users.createQueryBuilder().update(User).where('id = :id', { id: user.id });
    const result =
      'step' in use
        ? await update
            .set({ totpLastStep: use.step })
            .andWhere('(totp_last_step IS NULL OR totp_last_step < :step)', { step: use.step })
            .execute()
        : await update
            .set({ recoveryCodes: () => 'array_remove(recovery_codes, :hash)' })
            .andWhere(':hash = ANY(recovery_codes)')
            .setParameter('hash', use.recoveryHash)
            .execute();
    return result.affected === 1;
  }

  /**
   * Seals TOTP secrets still stored in the clear (written before they were encrypted). Each
   * row is updated only if it still holds the clear value, so replicas starting together, or a
   * second start, change nothing more. Answers how many were sealed.
   */
  async sealClearSecrets(seal: (secret: string, accountId: string) => string): Promise<number> {
    const rows: { id: string; totp_secret: string }[] = await this.users.query(
      `SELECT id, totp_secret FROM users WHERE totp_secret IS NOT NULL AND totp_secret NOT LIKE 'totp1.%'`,
    );
    let sealed = 0;
    for (const row of rows) {
      const [, affected] = await this.users.query(
        `UPDATE users SET totp_secret = $3 WHERE id = $1 AND totp_secret = $2`,
        [row.id, row.totp_secret, seal(row.totp_secret, row.id)],
      );
      sealed += Number(affected ?? 0);
    }
    return sealed;
  }

  hasAdmin(): Promise<boolean> {
    return this.users.exists({ where: { role: ADMIN_ROLE } });
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
