import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { ADMIN_ROLE } from '@blog/contracts';
import { QueryFailedError, Repository, type EntityManager } from 'typeorm';
import { User } from './user.entity.js';

const UNIQUE_VIOLATION = '23505';

/** A change to one account while every admin row is locked (UsersRepository.changeWithAdminsLocked). */
export interface LockedAccount {
  user: User;
  /** Admins other than this account. */
  otherAdmins: number;
  save(user: User): Promise<User>;
  remove(): Promise<void>;
}

/** The accounts (auth.users); usernames are unique without regard to case. */
export abstract class UsersRepository {
  abstract findByUsername(username: string): Promise<User | null>;
  abstract findById(id: string): Promise<User | null>;
  /** Adds an account; null when its username is taken. */
  abstract add(account: Pick<User, 'username' | 'role' | 'passwordHash'>): Promise<User | null>;
  /** Oldest first. */
  abstract all(): Promise<User[]>;
  abstract sessionState(id: string): Promise<Pick<User, 'role' | 'sessionVersion'> | null>;
  abstract save(user: User): Promise<User>;
  abstract bumpSessionVersion(id: string): Promise<void>;
  /** Swaps the account's password hash for `next` if it is still `current` (a password changed meanwhile wins). */
  abstract replacePasswordHash(id: string, current: string, next: string): Promise<void>;
  /**
   * Runs `change` in one transaction with every admin row and the account locked, so two
   * changes that each count the other admins cannot both go through; null when no such account.
   */
  abstract changeWithAdminsLocked<T>(
    id: string,
    change: (account: LockedAccount) => Promise<T>,
  ): Promise<{ answer: T } | null>;
  /** Stores the time step as the last used if it is newer than the stored one; false otherwise. */
  abstract spendTotpStep(id: string, step: number): Promise<boolean>;
  /** Removes the recovery code hash if it is still listed; false otherwise. */
  abstract spendRecoveryCode(id: string, hash: string): Promise<boolean>;
  /** Accounts whose TOTP secret is still stored in the clear. */
  abstract clearSecrets(): Promise<{ id: string; secret: string }[]>;
  /** Replaces the secret if it still is `clear`; false otherwise. */
  abstract replaceSecret(id: string, clear: string, sealed: string): Promise<boolean>;
  abstract hasAdmin(): Promise<boolean>;
}

@Injectable()
export class PostgresUsersRepository extends UsersRepository {
  constructor(@InjectRepository(User) private readonly users: Repository<User>) {
    super();
  }

  findByUsername(username: string): Promise<User | null> {
    return this.users
      .createQueryBuilder('u')
      .where('lower(u.username) = lower(:username)', { username })
      .getOne();
  }

  findById(id: string): Promise<User | null> {
    return this.users.findOne({ where: { id } });
  }

  async add(account: Pick<User, 'username' | 'role' | 'passwordHash'>): Promise<User | null> {
    try {
      return await this.users.save(this.users.create(account));
    } catch (error) {
      if (
        error instanceof QueryFailedError &&
        (error.driverError as { code?: string }).code === UNIQUE_VIOLATION
      )
        return null;
      throw error;
    }
  }

  all(): Promise<User[]> {
    return this.users.find({ order: { createdAt: 'ASC' } });
  }

  sessionState(id: string): Promise<Pick<User, 'role' | 'sessionVersion'> | null> {
    return this.users.findOne({ where: { id }, select: { role: true, sessionVersion: true } });
  }

  save(user: User): Promise<User> {
    return this.users.save(user);
  }

  async bumpSessionVersion(id: string): Promise<void> {
    await this.users.increment({ id }, 'sessionVersion', 1);
  }

  async replacePasswordHash(id: string, current: string, next: string): Promise<void> {
    await this.users.update({ id, passwordHash: current }, { passwordHash: next });
  }

  changeWithAdminsLocked<T>(
    id: string,
    change: (account: LockedAccount) => Promise<T>,
  ): Promise<{ answer: T } | null> {
    return this.users.manager.transaction(async (manager: EntityManager) => {
      const admins: { id: string }[] = await manager.query(
        `SELECT id FROM users WHERE role = $1 ORDER BY id FOR UPDATE`,
        [ADMIN_ROLE],
      );
      const user = await manager.findOne(User, { where: { id }, lock: { mode: 'pessimistic_write' } });
      if (!user) return null;
      const answer = await change({
        user,
        otherAdmins: admins.filter((admin) => admin.id !== id).length,
        save: (changed) => manager.save(changed),
        remove: async () => void (await manager.delete(User, { id })),
      });
      return { answer };
    });
  }

  async spendTotpStep(id: string, step: number): Promise<boolean> {
    const result = await this.users
      .createQueryBuilder()
      .update(User)
      .where('id = :id', { id })
      .set({ totpLastStep: step })
      .andWhere('(totp_last_step IS NULL OR totp_last_step < :step)', { step })
      .execute();
    return result.affected === 1;
  }

  async spendRecoveryCode(id: string, hash: string): Promise<boolean> {
    const result = await this.users
      .createQueryBuilder()
      .update(User)
      .where('id = :id', { id })
      .set({ recoveryCodes: () => 'array_remove(recovery_codes, :hash)' })
      .andWhere(':hash = ANY(recovery_codes)')
      .setParameter('hash', hash)
      .execute();
    return result.affected === 1;
  }

  async clearSecrets(): Promise<{ id: string; secret: string }[]> {
    const rows: { id: string; totp_secret: string }[] = await this.users.query(
      `SELECT id, totp_secret FROM users WHERE totp_secret IS NOT NULL AND totp_secret NOT LIKE 'totp1.%'`,
    );
    return rows.map((row) => ({ id: row.id, secret: row.totp_secret }));
  }

  async replaceSecret(id: string, clear: string, sealed: string): Promise<boolean> {
    const [, affected] = await this.users.query(
      `UPDATE users SET totp_secret = $3 WHERE id = $1 AND totp_secret = $2`,
      [id, clear, sealed],
    );
    return Number(affected ?? 0) === 1;
  }

  hasAdmin(): Promise<boolean> {
    return this.users.exists({ where: { role: ADMIN_ROLE } });
  }
}
