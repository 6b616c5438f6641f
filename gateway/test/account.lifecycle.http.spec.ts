/**
 * An account's life through the real gateway and services (real PostgreSQL): the per-address
 * registration limit, deletion (its token refused, its name free again), a password change and
 * "sign out everywhere" revoking older tokens, and a token asked for on every account call.
 */
import { ErrorText } from '@blog/contracts';
import { useAccountStack } from './support/account-stack.js';
import { api, loginAs, type TestStack } from './support/test-stack.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('accounts through the gateway', () => {
  const rig = useAccountStack();
  const { register, userId, status } = rig;
  let stack: TestStack;
  let admin: string;
  beforeAll(() => ({ stack, admin } = rig));

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
