/**
 * Roles through the real gateway and services (real PostgreSQL): a promoted user is admin at
 * once and a demoted one loses the admin routes, bad roles and ids are refused, and the last
 * admin is never removed or demoted (nor does an admin delete themself).
 */
import { ErrorText } from '@blog/contracts';
import { useAccountStack } from './support/account-stack.js';
import { ADMIN, api, loginAs, type TestStack } from './support/test-stack.js';

describe('account roles through the gateway', () => {
  // The owner's token is read from (and renewed in) rig.admin: a test below signs the owner in again.
  const rig = useAccountStack();
  const { register, userId, status } = rig;
  let stack: TestStack;
  beforeAll(() => ({ stack } = rig));

  it('changes a role: the promoted user is admin at once, the demoted one loses admin routes', async () => {
    await register('promoted');
    const id = await userId('promoted');
    const before = await loginAs(stack, 'promoted', 'user-password-1');
    expect((await api(stack, '/api/auth/users', { token: before })).status).toBe(403);
    const changed = await api(stack, `/api/auth/users/${id}`, {
      method: 'PUT',
      body: { role: 'admin' },
      token: rig.admin,
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
      token: rig.admin,
    });
    expect(demoted.json.role).toBe('user');
    expect((await api(stack, '/api/auth/users', { token: promoted })).status).toBe(401);
  });

  it('refuses a bad role or id with 400 and an unknown user with 404, changing nothing', async () => {
    const id = await userId('promoted');
    const bad = await api(stack, `/api/auth/users/${id}`, {
      method: 'PUT',
      body: { role: 'root' },
      token: rig.admin,
    });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toMatch(/role/);
    expect(
      (await api(stack, '/api/auth/users/nope', { method: 'PUT', body: { role: 'user' }, token: rig.admin }))
        .status,
    ).toBe(400);
    const unknown = '00000000-0000-4000-8000-000000000000';
    expect(
      (
        await api(stack, `/api/auth/users/${unknown}`, {
          method: 'PUT',
          body: { role: 'user' },
          token: rig.admin,
        })
      ).status,
    ).toBe(404);
    expect(
      (await api(stack, `/api/auth/users/${unknown}`, { method: 'DELETE', token: rig.admin })).status,
    ).toBe(404);
  });

  it('never removes or demotes the last admin, and an admin cannot delete themself (409)', async () => {
    const ownerId = await userId(ADMIN.username);
    const demote = await api(stack, `/api/auth/users/${ownerId}`, {
      method: 'PUT',
      body: { role: 'user' },
      token: rig.admin,
    });
    expect(demote.status).toBe(409);
    expect(demote.json.error).toBe(ErrorText.lastAdmin);
    const self = await api(stack, `/api/auth/users/${ownerId}`, { method: 'DELETE', token: rig.admin });
    expect(self.status).toBe(409);
    expect(self.json.error).toBe(ErrorText.deleteSelf);

    // A second admin may delete the first; then it is the last one and cannot be demoted either.
    await register('second-admin');
    const secondId = await userId('second-admin');
    await api(stack, `/api/auth/users/${secondId}`, {
      method: 'PUT',
      body: { role: 'admin' },
      token: rig.admin,
    });
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
    rig.admin = await loginAs(stack, ADMIN.username, ADMIN.password);
  });
});
