import { ADMIN_ROLE } from '@blog/contracts';
import { User } from '../../src/users/user.entity.js';
import { UsersRepository, type LockedAccount } from '../../src/users/users.repository.js';

/** UsersRepository over a map, with the answers of PostgreSQL (usernames unique without case). */
export class InMemoryUsersRepository extends UsersRepository {
  readonly rows = new Map<string, User>();
  private nextId = 1;

  /** A copy, as each read from the database is its own object. */
  private read(user: User | undefined): User | null {
    return user ? Object.assign(new User(), structuredClone(user)) : null;
  }

  async findByUsername(username: string) {
    return this.read(
      [...this.rows.values()].find((u) => u.username.toLowerCase() === username.toLowerCase()),
    );
  }

  async findById(id: string) {
    return this.read(this.rows.get(id));
  }

  async add(account: Pick<User, 'username' | 'role' | 'passwordHash'>) {
    if (await this.findByUsername(account.username)) return null;
    const user = Object.assign(new User(), {
      ...account,
      id: `00000000-0000-4000-8000-${String(this.nextId++).padStart(12, '0')}`,
      passwordChangedAt: null,
      sessionVersion: 0,
      totpSecret: null,
      totpEnabled: false,
      totpLastStep: null,
      recoveryCodes: [],
      createdAt: new Date(),
    });
    return this.save(user);
  }

  async all() {
    return [...this.rows.values()].map((u) => this.read(u)!);
  }

  async sessionState(id: string) {
    const user = this.rows.get(id);
    return user ? { role: user.role, sessionVersion: user.sessionVersion } : null;
  }

  async save(user: User) {
    this.rows.set(user.id, this.read(user)!);
    return user;
  }

  async bumpSessionVersion(id: string) {
    const user = this.rows.get(id);
    if (user) user.sessionVersion += 1;
  }

  async replacePasswordHash(id: string, current: string, next: string) {
    const user = this.rows.get(id);
    if (user?.passwordHash === current) user.passwordHash = next;
  }

  async changeWithAdminsLocked<T>(id: string, change: (account: LockedAccount) => Promise<T>) {
    const user = this.read(this.rows.get(id));
    if (!user) return null;
    const otherAdmins = [...this.rows.values()].filter((u) => u.role === ADMIN_ROLE && u.id !== id).length;
    const answer = await change({
      user,
      otherAdmins,
      save: (changed) => this.save(changed),
      remove: async () => void this.rows.delete(id),
    });
    return { answer };
  }

  async spendTotpStep(id: string, step: number) {
    const user = this.rows.get(id)!;
    if (user.totpLastStep !== null && user.totpLastStep >= step) return false;
    user.totpLastStep = step;
    return true;
  }

  async spendRecoveryCode(id: string, hash: string) {
    const user = this.rows.get(id)!;
    if (!user.recoveryCodes.includes(hash)) return false;
    user.recoveryCodes = user.recoveryCodes.filter((code) => code !== hash);
    return true;
  }

  async clearSecrets() {
    return [...this.rows.values()]
      .filter((u) => u.totpSecret !== null && !u.totpSecret.startsWith('totp1.'))
      .map((u) => ({ id: u.id, secret: u.totpSecret! }));
  }

  async replaceSecret(id: string, clear: string, sealed: string) {
    const user = this.rows.get(id);
    if (user?.totpSecret !== clear) return false;
    user.totpSecret = sealed;
    return true;
  }

  async hasAdmin() {
    return [...this.rows.values()].some((u) => u.role === ADMIN_ROLE);
  }
}
