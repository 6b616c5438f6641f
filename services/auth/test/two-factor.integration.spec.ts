import {
  ErrorText,
  Patterns,
  type LoginResponse,
  type RegisterResponse,
  type AccountView,
  type TwoFactorDisabled,
  type TwoFactorEnabled,
  type TwoFactorSetup,
} from '@blog/contracts';
import { createHash } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import pg from 'pg';
import { startAuthStack, type AuthStack } from './support/auth-stack.js';

describe('auth service: two-factor sign-in (real PostgreSQL, real TCP transport)', () => {
  let stack: AuthStack;
  const send = <T>(pattern: string, data: unknown) => stack.send<T>(pattern, data);
  const failure = (pattern: string, data: unknown) => stack.failure(pattern, data);

  beforeAll(async () => {
    stack = await startAuthStack();
  });
  afterAll(() => stack?.stop());

  const PASSWORD = 'second-factor-pass';
  let ip = 0;
  /** Each sign-in from its own address: the per-address limit never applies, only the account's. */
  const signIn = (username: string, code?: string, password = PASSWORD) =>
    send<LoginResponse>(Patterns.auth.login, { username, password, code, ip: `10.44.0.${++ip}` });
  const refusedSignIn = (username: string, code?: string, password = PASSWORD) =>
    failure(Patterns.auth.login, { username, password, code, ip: `10.44.0.${++ip}` });
  const codeAt = (secret: string, offsetSteps = 0) =>
    new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30 }).generate({
      timestamp: Date.now() + offsetSteps * 30_000,
    });
  const row = async (id: string) => {
    const pg2 = new pg.Client({ connectionString: stack.db.url });
    await pg2.connect();
    try {
      return (
        await pg2.query(
          `SELECT totp_secret, totp_enabled, recovery_codes, session_version FROM auth.users WHERE id = $1`,
          [id],
        )
      ).rows[0];
    } finally {
      await pg2.end();
    }
  };
  const sql = async (text: string, values: unknown[] = []) => {
    const pg2 = new pg.Client({ connectionString: stack.db.url });
    await pg2.connect();
    try {
      return (await pg2.query(text, values)).rows;
    } finally {
      await pg2.end();
    }
  };
  /** A new account with two-factor sign-in on: its id, secret and recovery codes (the current step's code is spent). */
  const withTwoFactor = async (username: string) => {
    const { user } = await send<RegisterResponse>(Patterns.auth.register, {
      username,
      password: PASSWORD,
      ip: `10.45.0.${++ip}`,
    });
    const { secret } = await send<TwoFactorSetup>(Patterns.auth.twoFactorSetup, { actorId: user.id });
    const { recoveryCodes } = await send<TwoFactorEnabled>(Patterns.auth.twoFactorEnable, {
      actorId: user.id,
      password: PASSWORD,
      code: codeAt(secret),
    });
    return { id: user.id, secret, recoveryCodes };
  };

  it('keeps the TOTP secret encrypted and the recovery codes (80 bits) as argon2id hashes', async () => {
    const { user } = await send<RegisterResponse>(Patterns.auth.register, {
      username: 'sealed',
      password: PASSWORD,
      ip: '10.45.1.1',
    });
    const { secret } = await send<TwoFactorSetup>(Patterns.auth.twoFactorSetup, { actorId: user.id });
    const stored = (await row(user.id)).totp_secret as string;
    expect(stored).toMatch(/^totp1\./);
    expect(stored).not.toContain(secret);
    const { recoveryCodes } = await send<TwoFactorEnabled>(Patterns.auth.twoFactorEnable, {
      actorId: user.id,
      password: PASSWORD,
      code: codeAt(secret),
    });
    expect(recoveryCodes).toHaveLength(10);
    for (const code of recoveryCodes) expect(code).toMatch(/^[a-z2-7]{4}(-[a-z2-7]{4}){3}$/); // 16 × 5 bits
    expect(new Set(recoveryCodes).size).toBe(10);
    const kept = (await row(user.id)).recovery_codes as string[];
    expect(kept).toHaveLength(10);
    for (const hash of kept) expect(hash).toMatch(/^\$argon2id\$/);
    // Signs in with a code from the stored (encrypted) secret, and with a recovery code typed loosely.
    await expect(signIn('sealed', codeAt(secret, 1))).resolves.toMatchObject({ username: 'sealed' });
    await expect(
      signIn('sealed', ` ${recoveryCodes[0]!.replaceAll('-', ' ').toUpperCase()} `),
    ).resolves.toMatchObject({
      username: 'sealed',
    });
    expect((await row(user.id)).recovery_codes).toHaveLength(9);
    expect(await refusedSignIn('sealed', recoveryCodes[0])).toEqual({
      status: 401,
      error: ErrorText.invalidTwoFactorCode,
    });
  });

  it('turning it on asks for the current password: missing or wrong, nothing changes', async () => {
    const { user } = await send<RegisterResponse>(Patterns.auth.register, {
      username: 'asked',
      password: PASSWORD,
      ip: '10.45.1.2',
    });
    const { secret } = await send<TwoFactorSetup>(Patterns.auth.twoFactorSetup, { actorId: user.id });
    expect(
      await failure(Patterns.auth.twoFactorEnable, { actorId: user.id, code: codeAt(secret) }),
    ).toMatchObject({ status: 400, field: 'password', error: 'password is required' });
    expect(
      await failure(Patterns.auth.twoFactorEnable, {
        actorId: user.id,
        password: 'not-the-password',
        code: codeAt(secret),
      }),
    ).toMatchObject({ status: 400, field: 'password', error: ErrorText.wrongCurrentPassword });
    expect(await row(user.id)).toMatchObject({ totp_enabled: false, recovery_codes: [] });
  });

  it('five wrong codes lock the account’s code checks from any address: 429 with Retry-After even for a right code, until the window ends', async () => {
    const { id, secret, recoveryCodes } = await withTwoFactor('locked');
    for (let i = 0; i < 5; i++)
      expect(await refusedSignIn('locked', String(100000 + i))).toEqual({
        status: 401,
        error: ErrorText.invalidTwoFactorCode,
      });
    const blocked = await refusedSignIn('locked', codeAt(secret, 1));
    expect(blocked).toMatchObject({ status: 429, error: ErrorText.twoFactorLocked });
    expect(blocked.retryAfter).toBeGreaterThan(860);
    expect(blocked.retryAfter).toBeLessThanOrEqual(900);
    // Every place a code is accepted is locked, a recovery code too.
    expect(await refusedSignIn('locked', recoveryCodes[0])).toMatchObject({ status: 429 });
    expect(
      await failure(Patterns.auth.twoFactorDisable, {
        actorId: id,
        password: PASSWORD,
        code: recoveryCodes[0],
      }),
    ).toMatchObject({ status: 429, error: ErrorText.twoFactorLocked });
    expect(
      await failure(Patterns.auth.twoFactorRecoveryCodes, {
        actorId: id,
        password: PASSWORD,
        code: recoveryCodes[0],
      }),
    ).toMatchObject({ status: 429 });
    // A wrong password is still only a wrong password, and the locked account's owner sees when it ends.
    expect(await refusedSignIn('locked', codeAt(secret, 1), 'wrong-password')).toMatchObject({
      status: 401,
    });
    const account = await send<AccountView>(Patterns.auth.account, { actorId: id });
    const until = Date.parse(account.codeLockedUntil!);
    expect(until - Date.now()).toBeGreaterThan(860_000);
    expect(until - Date.now()).toBeLessThanOrEqual(900_000);
    expect((await row(id)).totp_enabled).toBe(true);

    // The window ends (moved back 15 minutes in the table): the right code works and clears the count.
    await sql(
      `UPDATE auth.rate_windows SET window_started_at = window_started_at - interval '15 minutes' WHERE key = $1`,
      [`2fa\n${id}`],
    );
    expect((await send<AccountView>(Patterns.auth.account, { actorId: id })).codeLockedUntil).toBeNull();
    await expect(signIn('locked', codeAt(secret, 1))).resolves.toMatchObject({ username: 'locked' });
    for (let i = 0; i < 5; i++) expect((await refusedSignIn('locked', String(200000 + i))).status).toBe(401);
  });

  it('holds the code limit under parallel guesses from many addresses', async () => {
    const { secret } = await withTwoFactor('parallel');
    const wrong = String((Number(codeAt(secret, 5)) + 1) % 1_000_000).padStart(6, '0');
    const results = await Promise.all(Array.from({ length: 12 }, () => refusedSignIn('parallel', wrong)));
    expect(results.filter((r) => r.status === 401)).toHaveLength(5);
    expect(results.filter((r) => r.status === 429)).toHaveLength(7);
  });

  it('new recovery codes need the password and a code; the old codes stop working', async () => {
    const { id, recoveryCodes } = await withTwoFactor('renewer');
    const before = (await row(id)).recovery_codes;
    expect(
      await failure(Patterns.auth.twoFactorRecoveryCodes, {
        actorId: id,
        password: 'not-the-password',
        code: recoveryCodes[0],
      }),
    ).toMatchObject({ status: 400, field: 'password' });
    expect(
      await failure(Patterns.auth.twoFactorRecoveryCodes, {
        actorId: id,
        password: PASSWORD,
        code: '000000',
      }),
    ).toMatchObject({ status: 400, field: 'code' });
    expect((await row(id)).recovery_codes).toEqual(before);
    const renewed = await send<TwoFactorEnabled>(Patterns.auth.twoFactorRecoveryCodes, {
      actorId: id,
      password: PASSWORD,
      code: recoveryCodes[0],
    });
    expect(renewed.recoveryCodes).toHaveLength(10);
    expect(renewed.recoveryCodes).not.toContain(recoveryCodes[1]);
    expect((await refusedSignIn('renewer', recoveryCodes[1])).status).toBe(401);
    await expect(signIn('renewer', renewed.recoveryCodes[0])).resolves.toMatchObject({
      username: 'renewer',
    });
  });

  it('turning it off asks for the password and a code, and signs out every other session but not the caller', async () => {
    const { id, recoveryCodes } = await withTwoFactor('leaver');
    const { session_version: version } = await row(id);
    expect(
      await failure(Patterns.auth.twoFactorDisable, { actorId: id, code: recoveryCodes[0] }),
    ).toMatchObject({ status: 400, field: 'password' });
    expect(
      await failure(Patterns.auth.twoFactorDisable, {
        actorId: id,
        password: 'not-the-password',
        code: recoveryCodes[0],
      }),
    ).toMatchObject({ status: 400, error: ErrorText.wrongCurrentPassword });
    expect(await row(id)).toMatchObject({ totp_enabled: true, session_version: version });
    const off = await send<TwoFactorDisabled>(Patterns.auth.twoFactorDisable, {
      actorId: id,
      password: PASSWORD,
      code: recoveryCodes[0],
    });
    expect(off).toMatchObject({ id, twoFactorEnabled: false, codeLockedUntil: null });
    const claims = JSON.parse(Buffer.from(off.token.split('.')[1]!, 'base64url').toString());
    // Older tokens carry the old version (the gateway refuses them); the answered one the new.
    expect(claims).toMatchObject({ sub: id, sv: version + 1 });
    expect(await send(Patterns.auth.sessionState, { id })).toEqual({
      role: 'user',
      sessionVersion: version + 1,
    });
    expect(await row(id)).toMatchObject({ totp_enabled: false, totp_secret: null, recovery_codes: [] });
  });

  it('at start, seals secrets stored in the clear (once) and keeps accepting the old SHA-256 recovery codes until used', async () => {
    const { user } = await send<RegisterResponse>(Patterns.auth.register, {
      username: 'legacy',
      password: PASSWORD,
      ip: '10.45.1.3',
    });
    const secret = new Secret({ size: 20 }).base32;
    const oldCode = 'a1b2c-3d4e5';
    await sql(
      `UPDATE auth.users SET totp_secret = $2, totp_enabled = true, recovery_codes = $3 WHERE id = $1`,
      [user.id, secret, [createHash('sha256').update(oldCode).digest('hex')]],
    );
    const restart = () => stack.restart();
    await restart();
    const sealed = (await row(user.id)).totp_secret as string;
    expect(sealed).toMatch(/^totp1\./);
    expect(sealed).not.toContain(secret);
    await restart();
    expect((await row(user.id)).totp_secret).toBe(sealed);
    await expect(signIn('legacy', codeAt(secret))).resolves.toMatchObject({ username: 'legacy' });
    await expect(signIn('legacy', 'A1B2C 3D4E5')).resolves.toMatchObject({ username: 'legacy' });
    expect((await refusedSignIn('legacy', oldCode)).status).toBe(401);
  });
});
