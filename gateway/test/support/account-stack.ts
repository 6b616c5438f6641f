/**
 * What the account specs (account.*.http.spec.ts) share: a stack with at most five
 * registrations per address an hour and five failed sign-ins, its admin, a registration from a
 * fresh client address each time, a user's id by name, a token's status, and TOTP codes.
 */
import type { PublicUser } from '@blog/contracts';
import { Secret, TOTP } from 'otpauth';
import { ADMIN, api, loginAs, startTestStack, type TestStack } from './test-stack.js';

/** The TOTP code for `secret` now, or `offsetSteps` 30-second steps away. */
export const codeAt = (secret: string, offsetSteps = 0) =>
  new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30 }).generate({
    timestamp: Date.now() + offsetSteps * 30_000,
  });

export interface AccountStack {
  stack: TestStack;
  /** The owner's token; a test that signs the owner in again stores the new one here. */
  admin: string;
  /** Each registration from its own client address (X-Forwarded-For; the gateway trusts loopback). */
  register(username: string, password?: string, ip?: string): ReturnType<typeof api>;
  userId(username: string): Promise<string>;
  /** Revocation reaches the replica that forwarded it at once (others within SESSION_CHECK_TTL_MS). */
  status(token: string): Promise<number>;
}

/**
 * The file's account stack, started before its tests (and before any beforeAll declared after
 * this call) and stopped after them; its functions may be taken out of the answer at once.
 */
export function useAccountStack(): AccountStack {
  let address = 0;
  const rig: AccountStack = {
    register: (username, password = 'user-password-1', ip = `10.1.0.${++address}`) =>
      api(rig.stack, '/api/auth/register', {
        body: { username, password },
        headers: { 'x-forwarded-for': ip },
      }),
    userId: async (username) =>
      ((await api(rig.stack, '/api/auth/users', { token: rig.admin })).json as unknown as PublicUser[]).find(
        (u) => u.username === username,
      )!.id,
    status: async (token) => (await api(rig.stack, '/api/auth/account', { token })).status,
  } as Partial<AccountStack> as AccountStack;

  beforeAll(async () => {
    rig.stack = await startTestStack({
      REGISTER_MAX_PER_IP: '5',
      REGISTER_WINDOW: '1h',
      LOGIN_MAX_FAILURES: '5',
    });
    rig.admin = await loginAs(rig.stack, ADMIN.username, ADMIN.password);
  });
  afterAll(() => rig.stack?.stop());
  return rig;
}
