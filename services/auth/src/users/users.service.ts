import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { ADMIN_ROLE, DEFAULT_ROLE, ErrorText, type PublicUser } from '@blog/contracts';
import { RpcError } from '@blog/server-kit';
import { QueryFailedError, Repository } from 'typeorm';
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

  hasAdmin(): Promise<boolean> {
    return this.users.exists({ where: { role: ADMIN_ROLE } });
  }

  /** Makes sure `username` is an admin whose password is `password` (rehashing only when it differs). */
  async ensureAdmin(username: string, password: string): Promise<User> {
    const existing = await this.findByUsername(username);
    if (!existing) return this.create(username, password, ADMIN_ROLE);
    const samePassword = await this.hasher.verify(existing.passwordHash, password);
    if (existing.role !== ADMIN_ROLE || !samePassword) {
      existing.role = ADMIN_ROLE;
      if (!samePassword) existing.passwordHash = await this.hasher.hash(password);
      await this.users.save(existing);
    }
    return existing;
  }
}
