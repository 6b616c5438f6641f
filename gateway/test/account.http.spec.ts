/**
 * The owner's and the users' accounts through the real gateway and services (real PostgreSQL):
 * roles and deletion with the last-admin rule, the per-address registration limit, password
 * change and "sign out everywhere" revoking older tokens, two-factor sign-in (TOTP and
 * recovery codes, each usable once) and the operator's reset-password command.
 */
import { ErrorText, type PublicUser } from '@blog/contracts';
import { Secret, TOTP } from 'otpauth';
import {
  ADMIN,
  api,
  loginAs,
  runAdminCommand,
  startTestStack,
  type TestStack,
} from './support/test-stack.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const codeAt = (secret: string, offsetSteps = 0) =>
  new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30 }).generate({
    timestamp: Date.now() + offsetSteps * 30_000,
  });

describe('accounts through the gateway', () => {
  let stack: TestStack;
  let admin: string;
  let address = 0;
  /** Each registration from its own client address (X-Forwarded-For; the gateway trusts loopback). */
  const register = (username: string, password = 'user-password-1', ip = `10.1.0.${++address}`) =>
    api(stack, '/api/auth/register', { body: { username, password }, headers: { 'x-forwarded-for': ip } });
  const userId = async (username: string) =>
    ((await api(stack, '/api/auth/users', { token: admin })).json as unknown as PublicUser[]).find(
      (u) => u.username === username,
    )!.id;
  /** Revocation reaches the replica that forwarded it at once (others within SESSION_CHECK_TTL_MS). */
  const status = async (token: string) => (await api(stack, '/api/auth/account', { token })).status;

  beforeAll(async () => {
    stack = await startTestStack({
      REGISTER_MAX_PER_IP: '5',
      REGISTER_WINDOW: '1h',
      LOGIN_MAX_FAILURES: '5',
    });
    admin = await loginAs(stack, ADMIN.username, ADMIN.password);
  });
  afterAll(() => stack?.stop());

  it('limits registrations per client address: the sixth in the window answers 429, other addresses still register', async () => {
    const ip = '10.9.9.9';
    for (let i = 1; i <= 5; i++)
      expect((await register(`burst${i}`, 'user-password-1', ip)).status).toBe(201);
    const sixth = await register('burst6', 'user-password-1', ip);
    expect(sixth.status).toBe(429);
    expect(sixth.json.error).toBe(ErrorText.tooManyRegistrations);
    expect(Number(sixth.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await register('burst6')).status).toBe(201);
    expect(
      (await api(stack, '/api/auth/users', { token: admin })).json.map((u: Json) => u.username),
    ).not.toContain('burst7');
  });

  it('changes a role: the promoted user is admin at once, the demoted one loses admin routes', async () => {
    await register('promoted');
    const id = await userId('promoted');
    const before = await loginAs(stack, 'promoted', 'user-password-1');
    expect((await api(stack, '/api/auth/users', { token: before })).status).toBe(403);
    const changed = await api(stack, `/api/auth/users/${id}`, {
      method: 'PUT',
      body: { role: 'admin' },
      token: admin,
    });
    expect(changed.status).toBe(200);
    expect(changed.json).toMatchObject({ id, role: 'admin' });
    // The old token carried role user and an older session: it no longer works at all.
    expect(await status(before)).toBe(401);
    const promoted = await loginAs(stack, 'promoted', 'user-password-1');
    expect((await api(stack, '/api/auth/users', { token: promoted })).status).toBe(200);
    const demoted = await api(stack, `/api/auth/users/${id}`, {
      method: 'PUT',
      body: { role: 'user' },
      token: admin,
    });
    expect(demoted.json.role).toBe('user');
    expect((await api(stack, '/api/auth/users', { token: promoted })).status).toBe(401);
  });

  it('refuses a bad role or id with 400 and an unknown user with 404, changing nothing', async () => {
    const id = await userId('promoted');
    const bad = await api(stack, `/api/auth/users/${id}`, {
      method: 'PUT',
      body: { role: 'root' },
      token: admin,
    });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toMatch(/role/);
    expect(
      (await api(stack, '/api/auth/users/nope', { method: 'PUT', body: { role: 'user' }, token: admin }))
        .status,
    ).toBe(400);
    const unknown = '00000000-0000-4000-8000-000000000000';
    expect(
      (
        await api(stack, `/api/auth/users/${unknown}`, {
          method: 'PUT',
          body: { role: 'user' },
          token: admin,
        })
      ).status,
    ).toBe(404);
    expect((await api(stack, `/api/auth/users/${unknown}`, { method: 'DELETE', token: admin })).status).toBe(
      404,
    );
  });

  it('never removes or demotes the last admin, and an admin cannot delete themself (409)', async () => {
    const ownerId = await userId(ADMIN.username);
    const demote = await api(stack, `/api/auth/users/${ownerId}`, {
      method: 'PUT',
      body: { role: 'user' },
      token: admin,
    });
    expect(demote.status).toBe(409);
    expect(demote.json.error).toBe(ErrorText.lastAdmin);
    const self = await api(stack, `/api/auth/users/${ownerId}`, { method: 'DELETE', token: admin });
    expect(self.status).toBe(409);
    expect(self.json.error).toBe(ErrorText.deleteSelf);

    // A second admin may delete the first; then it is the last one and cannot be demoted either.
    await register('second-admin');
    const secondId = await userId('second-admin');
    await api(stack, `/api/auth/users/${secondId}`, { method: 'PUT', body: { role: 'admin' }, token: admin });
    const second = await loginAs(stack, 'second-admin', 'user-password-1');
    expect(
      (
        await api(stack, `/api/auth/users/${ownerId}`, {
          method: 'PUT',
          body: { role: 'user' },
          token: second,
        })
      ).status,
    ).toBe(200);
    // Now second-admin is the last admin: it cannot step down, nor be deleted by... nobody else is admin.
    const fresh = await loginAs(stack, 'second-admin', 'user-password-1');
    const last = await api(stack, `/api/auth/users/${secondId}`, {
      method: 'PUT',
      body: { role: 'user' },
      token: fresh,
    });
    expect(last.status).toBe(409);
    expect(last.json.error).toBe(ErrorText.lastAdmin);
    // Put the owner back for the tests below.
    await api(stack, `/api/auth/users/${ownerId}`, { method: 'PUT', body: { role: 'admin' }, token: fresh });
    admin = await loginAs(stack, ADMIN.username, ADMIN.password);
  });

  it('deletes a user: gone from the list, its token refused, its name free again', async () => {
    await register('leaving');
    const token = await loginAs(stack, 'leaving', 'user-password-1');
    const id = await userId('leaving');
    expect((await api(stack, `/api/auth/users/${id}`, { method: 'DELETE', token: admin })).json).toEqual({
      success: true,
    });
    expect((await api(stack, '/api/auth/users', { token: admin })).json.map((u: Json) => u.id)).not.toContain(
      id,
    );
    expect(await status(token)).toBe(401);
    expect((await register('leaving')).status).toBe(201);
  });

  it('changes a password: a wrong current one is 400; afterwards older tokens are 401 and the new one works', async () => {
    await register('changer', 'first-password-1');
    const first = await loginAs(stack, 'changer', 'first-password-1');
    const second = await loginAs(stack, 'changer', 'first-password-1');
    const wrong = await api(stack, '/api/auth/password', {
      method: 'PUT',
      body: { currentPassword: 'not-it-at-all', newPassword: 'second-password-2' },
      token: first,
    });
    expect(wrong.status).toBe(400);
    expect(wrong.json.error).toBe(ErrorText.wrongCurrentPassword);
    const short = await api(stack, '/api/auth/password', {
      method: 'PUT',
      body: { currentPassword: 'first-password-1', newPassword: 'short' },
      token: first,
    });
    expect(short.status).toBe(400);
    expect(short.json.error).toMatch(/password must be 8-128 characters/);
    expect(await status(first)).toBe(200);

    const changed = await api(stack, '/api/auth/password', {
      method: 'PUT',
      body: { currentPassword: 'first-password-1', newPassword: 'second-password-2' },
      token: first,
    });
    expect(changed.status).toBe(200);
    expect(await status(first)).toBe(401);
    expect(await status(second)).toBe(401);
    expect(await status(changed.json.token)).toBe(200);
    expect(
      (await api(stack, '/api/auth/login', { body: { username: 'changer', password: 'first-password-1' } }))
        .status,
    ).toBe(401);
    expect(await loginAs(stack, 'changer', 'second-password-2')).toEqual(expect.any(String));
  });

  it('signs out everywhere: every earlier token is refused, the answered one works', async () => {
    await register('traveller');
    const laptop = await loginAs(stack, 'traveller', 'user-password-1');
    const phone = await loginAs(stack, 'traveller', 'user-password-1');
    const revoked = await api(stack, '/api/auth/sessions/revoke', { method: 'POST', token: phone });
    expect(revoked.status).toBe(200);
    expect(await status(laptop)).toBe(401);
    expect(await status(phone)).toBe(401);
    expect(await status(revoked.json.token)).toBe(200);
  });

  it('two-factor sign-in: set up, enable with a code, sign in in two steps; codes and recovery codes work once', async () => {
    await register('careful', 'careful-password-1');
    const token = await loginAs(stack, 'careful', 'careful-password-1');
    const early = await api(stack, '/api/auth/2fa/enable', {
      body: { password: 'careful-password-1', code: '123456' },
      token,
    });
    expect(early.status).toBe(400);
    expect(early.json.error).toBe(ErrorText.twoFactorNotSetUp);

    const setup = await api(stack, '/api/auth/2fa/setup', { method: 'POST', token });
    expect(setup.status).toBe(200);
    expect(setup.json.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(setup.json.otpauthUrl).toMatch(/^otpauth:\/\/totp\/.*careful\?.*secret=/);
    const secret = setup.json.secret as string;
    const confirm = (code: string, password = 'careful-password-1') => ({ password, code });
    expect((await api(stack, '/api/auth/2fa/enable', { body: confirm('abc'), token })).status).toBe(400);
    // The current password is asked beside the code: missing or wrong, nothing changes.
    const noPassword = await api(stack, '/api/auth/2fa/enable', { body: { code: codeAt(secret) }, token });
    expect([noPassword.status, noPassword.json.error]).toEqual([400, 'password is required']);
    const wrongPassword = await api(stack, '/api/auth/2fa/enable', {
      body: confirm(codeAt(secret), 'not-the-password'),
      token,
    });
    expect([wrongPassword.status, wrongPassword.json.error]).toEqual([400, ErrorText.wrongCurrentPassword]);
    expect((await api(stack, '/api/auth/account', { token })).json.twoFactorEnabled).toBe(false);
    const wrongCode = codeAt(secret, 10);
    // Wrong codes on the account's own calls are 400 (a 401 would sign the page out).
    expect((await api(stack, '/api/auth/2fa/enable', { body: confirm(wrongCode), token })).status).toBe(400);
    const enabled = await api(stack, '/api/auth/2fa/enable', { body: confirm(codeAt(secret)), token });
    expect(enabled.status).toBe(200);
    const recovery = enabled.json.recoveryCodes as string[];
    expect(recovery).toHaveLength(10);
    expect(new Set(recovery).size).toBe(10);
    expect((await api(stack, '/api/auth/account', { token })).json.twoFactorEnabled).toBe(true);

    const password = { username: 'careful', password: 'careful-password-1' };
    const noCode = await api(stack, '/api/auth/login', {
      body: password,
      headers: { 'x-forwarded-for': '10.2.0.1' },
    });
    expect(noCode.status).toBe(401);
    expect(noCode.json).toEqual({ error: ErrorText.twoFactorRequired, twoFactorRequired: true });
    // The code the enable step used is spent; the next step's code signs in, once.
    const next = codeAt(secret, 1);
    const signedIn = await api(stack, '/api/auth/login', {
      body: { ...password, code: next },
      headers: { 'x-forwarded-for': '10.2.0.1' },
    });
    expect(signedIn.status).toBe(200);
    const reused = await api(stack, '/api/auth/login', {
      body: { ...password, code: next },
      headers: { 'x-forwarded-for': '10.2.0.1' },
    });
    expect(reused.status).toBe(401);
    expect(reused.json.error).toBe(ErrorText.invalidTwoFactorCode);

    // A recovery code signs in once, with or without its spacing and case.
    const withRecovery = await api(stack, '/api/auth/login', {
      body: { ...password, code: ` ${recovery[0]!.toUpperCase()} ` },
      headers: { 'x-forwarded-for': '10.2.0.1' },
    });
    expect(withRecovery.status).toBe(200);
    expect(
      (
        await api(stack, '/api/auth/login', {
          body: { ...password, code: recovery[0] },
          headers: { 'x-forwarded-for': '10.2.0.1' },
        })
      ).status,
    ).toBe(401);

    // A wrong password with a right code is still just a wrong password.
    expect(
      (
        await api(stack, '/api/auth/login', {
          body: { username: 'careful', password: 'wrong-password', code: recovery[1] },
          headers: { 'x-forwarded-for': '10.2.0.1' },
        })
      ).json.error,
    ).toBe(ErrorText.invalidCredentials);

    // New recovery codes need the password and a code; the old ones stop working.
    const renewed = await api(stack, '/api/auth/2fa/recovery-codes', {
      body: confirm(recovery[2]!),
      token: signedIn.json.token,
    });
    expect(renewed.status).toBe(200);
    expect(renewed.json.recoveryCodes).toHaveLength(10);
    const fresh = renewed.json.recoveryCodes as string[];
    expect(
      (
        await api(stack, '/api/auth/login', {
          body: { ...password, code: recovery[3] },
          headers: { 'x-forwarded-for': '10.2.0.2' },
        })
      ).status,
    ).toBe(401);

    // Turning it off needs the password and a right code, and signs every other session out.
    expect(
      (await api(stack, '/api/auth/2fa/disable', { body: confirm(wrongCode), token: signedIn.json.token }))
        .status,
    ).toBe(400);
    expect(
      (
        await api(stack, '/api/auth/2fa/disable', {
          body: confirm(fresh[0]!, 'not-the-password'),
          token: signedIn.json.token,
        })
      ).status,
    ).toBe(400);
    expect(await status(token)).toBe(200);
    const off = await api(stack, '/api/auth/2fa/disable', {
      body: confirm(fresh[0]!),
      token: signedIn.json.token,
    });
    expect(off.status).toBe(200);
    expect(off.json).toMatchObject({ twoFactorEnabled: false, codeLockedUntil: null });
    expect(await status(token)).toBe(401);
    expect(await status(signedIn.json.token)).toBe(401);
    expect(await status(off.json.token)).toBe(200);
    expect(
      (await api(stack, '/api/auth/login', { body: password, headers: { 'x-forwarded-for': '10.2.0.1' } }))
        .status,
    ).toBe(200);
  });

  it('counts wrong two-factor codes towards the sign-in limit (429 after five)', async () => {
    await register('guarded', 'guarded-password-1');
    const token = await loginAs(stack, 'guarded', 'guarded-password-1');
    const { secret } = (await api(stack, '/api/auth/2fa/setup', { method: 'POST', token })).json as {
      secret: string;
    };
    await api(stack, '/api/auth/2fa/enable', {
      body: { password: 'guarded-password-1', code: codeAt(secret) },
      token,
    });
    const attempt = (code?: string) =>
      api(stack, '/api/auth/login', {
        body: { username: 'guarded', password: 'guarded-password-1', ...(code ? { code } : {}) },
        headers: { 'x-forwarded-for': '10.3.0.1' },
      });
    for (let i = 0; i < 5; i++) expect((await attempt(String(100000 + i))).status).toBe(401);
    const blocked = await attempt(codeAt(secret, 1));
    expect(blocked.status).toBe(429);
  });

  it('locks the account’s code checks after five wrong codes from as many addresses: 429 with Retry-After, shown on the account', async () => {
    await register('spread', 'spread-password-1');
    const token = await loginAs(stack, 'spread', 'spread-password-1');
    const { secret } = (await api(stack, '/api/auth/2fa/setup', { method: 'POST', token })).json as {
      secret: string;
    };
    const confirm = (code: string) => ({ password: 'spread-password-1', code });
    expect((await api(stack, '/api/auth/2fa/enable', { body: confirm(codeAt(secret)), token })).status).toBe(
      200,
    );
    const attempt = (code: string, ip: string) =>
      api(stack, '/api/auth/login', {
        body: { username: 'spread', password: 'spread-password-1', code },
        headers: { 'x-forwarded-for': ip },
      });
    for (let i = 0; i < 5; i++) expect((await attempt(String(300000 + i), `10.4.${i}.1`)).status).toBe(401);
    const blocked = await attempt(codeAt(secret, 1), '10.4.9.1');
    expect(blocked.status).toBe(429);
    expect(blocked.json.error).toBe(ErrorText.twoFactorLocked);
    const retryAfter = Number(blocked.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(880);
    expect(retryAfter).toBeLessThanOrEqual(900);
    // The session holder is locked too, and sees until when.
    const off = await api(stack, '/api/auth/2fa/disable', { body: confirm(codeAt(secret, 1)), token });
    expect(off.status).toBe(429);
    expect(Number(off.headers.get('retry-after'))).toBeGreaterThan(880);
    const account = (await api(stack, '/api/auth/account', { token })).json;
    expect(account.twoFactorEnabled).toBe(true);
    expect(Date.parse(account.codeLockedUntil) - Date.now()).toBeGreaterThan(880_000);
  });

  it('the operator resets a locked-out admin: a printed password, sessions signed out, two-factor off', async () => {
    const before = await loginAs(stack, ADMIN.username, ADMIN.password);
    const { secret } = (await api(stack, '/api/auth/2fa/setup', { method: 'POST', token: before })).json as {
      secret: string;
    };
    await api(stack, '/api/auth/2fa/enable', {
      body: { password: ADMIN.password, code: codeAt(secret) },
      token: before,
    });
    // Locked out both ways from one address: its failed sign-ins there, and its code checks anywhere.
    const guess = (code: string | undefined, password = ADMIN.password) =>
      api(stack, '/api/auth/login', {
        body: { username: ADMIN.username, password, ...(code ? { code } : {}) },
        headers: { 'x-forwarded-for': '10.5.0.1' },
      });
    for (let i = 0; i < 5; i++) expect((await guess(String(400000 + i))).status).toBe(401);
    expect((await guess(codeAt(secret, 1))).status).toBe(429);
    const reset = await runAdminCommand(stack, ['reset-password', ADMIN.username.toUpperCase()]);
    expect(reset.code).toBe(0);
    const password = /^New password for \S+: (\S+)$/m.exec(reset.stdout)![1]!;
    expect(password.length).toBeGreaterThanOrEqual(16);
    // The command writes to the database, not through a gateway: every replica sees it within SESSION_CHECK_TTL_MS (1 s).
    for (const deadline = Date.now() + 3000; (await status(before)) !== 401;) {
      if (Date.now() > deadline) throw new Error('the old token still works 3 s after the reset');
      await new Promise((r) => setTimeout(r, 100));
    }
    const fresh = await loginAs(stack, ADMIN.username, password);
    expect((await api(stack, '/api/auth/account', { token: fresh })).json).toMatchObject({
      username: ADMIN.username,
      role: 'admin',
      twoFactorEnabled: false,
      codeLockedUntil: null,
    });
    // The address's failed sign-ins were cleared too.
    expect((await guess(undefined, password)).status).toBe(200);
    expect(await runAdminCommand(stack, ['reset-password', 'nobody-here'])).toMatchObject({
      code: 1,
      stderr: 'no user named "nobody-here"\n',
    });
    expect((await runAdminCommand(stack, ['reset-password'])).stderr).toMatch(/^usage: npm run admin/);
  });

  it('asks for a token on every account call', async () => {
    for (const [method, path] of [
      ['GET', '/api/auth/account'],
      ['PUT', '/api/auth/password'],
      ['POST', '/api/auth/sessions/revoke'],
      ['POST', '/api/auth/2fa/setup'],
      ['POST', '/api/auth/2fa/enable'],
      ['POST', '/api/auth/2fa/disable'],
      ['POST', '/api/auth/2fa/recovery-codes'],
    ])
      expect([
        path,
        (await api(stack, path!, { method, body: method === 'GET' ? undefined : {} })).status,
      ]).toEqual([path, 401]);
  });
});
