import { ADMIN_ROLE, DEFAULT_ROLE, ErrorText } from '@blog/contracts';
import type { PasswordHasher } from '../src/users/password-hasher.js';
import { UsersService } from '../src/users/users.service.js';
import { InMemoryUsersRepository } from './support/in-memory-users.repository.js';

/** The accounts' rules against an in-memory repository (and a stand-in for argon2): no database. */
describe('account rules', () => {
  const hasher = {
    hash: async (password: string) => `hashed:${password}`,
    verify: async (hash: string, password: string) => hash === `hashed:${password}`,
  } as PasswordHasher;
  let store: InMemoryUsersRepository;
  let users: UsersService;
  const failure = (promise: Promise<unknown>) =>
    promise.then(
      () => null,
      (error: { body: unknown }) => error.body,
    );

  beforeEach(() => {
    store = new InMemoryUsersRepository();
    users = new UsersService(store, hasher);
  });

  it('registers with the default role and a hashed password; a name taken in any case is 409', async () => {
    const jane = await users.create('Jane', 'a long password');
    expect(jane).toMatchObject({
      username: 'Jane',
      role: DEFAULT_ROLE,
      passwordHash: 'hashed:a long password',
    });
    expect(await failure(users.create('JANE', 'another password'))).toEqual({
      status: 409,
      error: ErrorText.usernameTaken,
    });
    expect((await users.findByUsername('jane'))!.id).toBe(jane.id);
    expect(await users.list()).toHaveLength(1);
  });

  it('never leaves the site without an admin, and a role change signs the account out', async () => {
    const owner = await users.create('owner', 'password one', ADMIN_ROLE);
    const reader = await users.create('reader', 'password two');
    expect(await failure(users.setRole(owner.id, DEFAULT_ROLE))).toEqual({
      status: 409,
      error: ErrorText.lastAdmin,
    });
    expect(await failure(users.delete(owner.id, reader.id))).toEqual({
      status: 409,
      error: ErrorText.lastAdmin,
    });
    // Deleting oneself is refused before anything is asked of the database (it throws at once).
    expect(() => users.delete(owner.id, owner.id)).toThrow(
      expect.objectContaining({ body: { status: 409, error: ErrorText.deleteSelf } }),
    );

    await users.setRole(reader.id, ADMIN_ROLE);
    expect(await users.sessionState(reader.id)).toEqual({ role: ADMIN_ROLE, sessionVersion: 1 });
    // Now there is another admin: the owner may step down, or be deleted.
    expect(await users.setRole(owner.id, DEFAULT_ROLE)).toMatchObject({ role: DEFAULT_ROLE });
    await users.delete(owner.id, reader.id);
    expect(await users.sessionState(owner.id)).toBeNull();
    expect(await failure(users.setRole(owner.id, ADMIN_ROLE))).toMatchObject({ status: 404 });
  });

  it('spends a two-factor code once: a time step only if newer, a recovery code only while listed', async () => {
    const user = await users.create('jane', 'a long password');
    expect(await users.spendTwoFactor(user, { step: 100 })).toBe(true);
    expect(await users.spendTwoFactor(user, { step: 100 })).toBe(false);
    expect(await users.spendTwoFactor(user, { step: 99 })).toBe(false);
    await users.saveTwoFactor(user, { recoveryCodes: ['r1', 'r2'] });
    expect(await users.spendTwoFactor(user, { recoveryHash: 'r1' })).toBe(true);
    expect(await users.spendTwoFactor(user, { recoveryHash: 'r1' })).toBe(false);
    expect((await users.get(user.id)).recoveryCodes).toEqual(['r2']);
  });

  it('ensureAdmin makes the account an admin with that password, unless the owner changed it in the dashboard', async () => {
    const made = await users.ensureAdmin('owner', 'first password');
    expect(made).toMatchObject({ role: ADMIN_ROLE, passwordHash: 'hashed:first password' });
    await users.ensureAdmin('owner', 'second password');
    expect((await users.get(made.id)).passwordHash).toBe('hashed:second password');

    await users.setPassword(await users.get(made.id), 'chosen in the dashboard');
    await users.ensureAdmin('owner', 'third password');
    expect(await users.get(made.id)).toMatchObject({
      passwordHash: 'hashed:chosen in the dashboard',
      sessionVersion: 1,
    });
    expect(await users.hasAdmin()).toBe(true);
  });

  it('seals the secrets still stored in the clear, once', async () => {
    const user = await users.create('jane', 'a long password');
    await users.saveTwoFactor(user, { totpSecret: 'CLEARSECRET' });
    const seal = (secret: string, id: string) => `totp1.${id}.${secret.toLowerCase()}`;
    expect(await users.sealClearSecrets(seal)).toBe(1);
    expect((await users.get(user.id)).totpSecret).toBe(`totp1.${user.id}.clearsecret`);
    expect(await users.sealClearSecrets(seal)).toBe(0);
  });
});
