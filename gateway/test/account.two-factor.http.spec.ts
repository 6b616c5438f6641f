/**
 * Two-factor sign-in through the real gateway and services (real PostgreSQL): TOTP and
 * recovery codes, each usable once; wrong codes counted towards the sign-in limit and locking
 * the account's code checks; and the operator's reset-password command for a locked-out admin.
 */
import { ErrorText } from '@blog/contracts';
import { codeAt, useAccountStack } from './support/account-stack.js';
import { ADMIN, api, loginAs, runAdminCommand, type TestStack } from './support/test-stack.js';

describe('two-factor sign-in through the gateway', () => {
  const rig = useAccountStack();
  const { register, status } = rig;
  let stack: TestStack;
  beforeAll(() => ({ stack } = rig));

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
    // Each sign-in is an argon2 hash: 1 s on an idle machine, 10 s beside two CPU burners.
  }, 60_000);

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
    // The command writes to the database, not through a gateway: every replica sees it within
    // SESSION_CHECK_TTL_MS (1 s; 0.3 s here on an idle machine). 10 s is far past that and far short
    // of the token's own expiry, the only other end it would have.
    for (const deadline = Date.now() + 10_000; (await status(before)) !== 401;) {
      if (Date.now() > deadline) throw new Error('the old token still works 10 s after the reset');
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
    // 2.2 s on an idle machine (three admin commands, each a Node process); room for the wait above.
  }, 60_000);
});
