import { GUARDS_METADATA, METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { RequestMethod } from '@nestjs/common';
import jwt from 'jsonwebtoken';
import { AdminGuard } from '../src/common/auth.guard.js';
import { GatewayModule } from '../src/gateway.module.js';
import { loadGatewayConfig } from '../src/config.js';
import { api, loginAs, startTestStack, TEST_SECRET, type TestStack } from './support/test-stack.js';

/** Every route guarded as admin-only, read from the controllers themselves so new admin routes are covered too. */
function adminRoutes(): { method: string; path: string }[] {
  const config = loadGatewayConfig({ JWT_SECRET: TEST_SECRET });
  const controllers = GatewayModule.forRoot(config).controllers ?? [];
  const routes: { method: string; path: string }[] = [];
  for (const controller of controllers) {
    const base = String(Reflect.getMetadata(PATH_METADATA, controller) ?? '');
    for (const name of Object.getOwnPropertyNames(controller.prototype)) {
      const handler = controller.prototype[name];
      if (typeof handler !== 'function' || name === 'constructor') continue;
      const guards: unknown[] = Reflect.getMetadata(GUARDS_METADATA, handler) ?? [];
      if (!guards.includes(AdminGuard)) continue;
      const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as number];
      const path = String(Reflect.getMetadata(PATH_METADATA, handler) ?? '');
      routes.push({
        method,
        path: `/${[base, path].filter((p) => p && p !== '/').join('/')}`.replace(/:\w+/g, '1'),
      });
    }
  }
  return routes;
}

const base64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
const inAnHour = () => Math.floor(Date.now() / 1000) + 3600;
const adminClaims = () => ({ sub: '00000000-0000-0000-0000-000000000000', username: 'owner', role: 'admin' });

const badTokens: Record<string, () => string | undefined> = {
  'no token': () => undefined,
  malformed: () => 'not-a-jwt',
  'garbage segments': () => 'aaa.bbb.ccc',
  expired: () => jwt.sign({ ...adminClaims(), exp: Math.floor(Date.now() / 1000) - 10 }, TEST_SECRET),
  'wrong signature': () =>
    jwt.sign({ ...adminClaims(), exp: inAnHour() }, 'another-secret-another-secret-0000'),
  'alg none': () =>
    `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url({ ...adminClaims(), exp: inAnHour() })}.`,
  'HS512 with the right key (algorithm not allowed)': () =>
    jwt.sign({ ...adminClaims(), exp: inAnHour() }, TEST_SECRET, { algorithm: 'HS512' }),
};

describe('security matrix: every admin route', () => {
  let stack: TestStack;
  let userToken: string;
  const routes = adminRoutes();

  beforeAll(async () => {
    stack = await startTestStack();
    await api(stack, '/api/auth/register', { body: { username: 'plainuser', password: 'plain-password' } });
    userToken = await loginAs(stack, 'plainuser', 'plain-password');
  });
  afterAll(() => stack?.stop());

  it('finds the admin routes', () => {
    expect(routes).toEqual(expect.arrayContaining([{ method: 'GET', path: '/api/auth/users' }]));
  });

  for (const [label, makeToken] of Object.entries(badTokens)) {
    it(`answers 401 with ${label}`, async () => {
      for (const route of routes) {
        const response = await api(stack, route.path, { method: route.method, token: makeToken() });
        expect({ route, status: response.status }).toEqual({ route, status: 401 });
        expect(response.json).toEqual({ error: expect.any(String) });
      }
    });
  }

  it('answers 403 to a valid token of a non-admin', async () => {
    for (const route of routes) {
      const response = await api(stack, route.path, { method: route.method, token: userToken });
      expect({ route, status: response.status }).toEqual({ route, status: 403 });
    }
  });

  it('a forged role in the register body never yields an admin', async () => {
    const response = await api(stack, '/api/auth/register', {
      body: { username: 'sneaky', password: 'sneaky-password', role: 'admin', user: { role: 'admin' } },
    });
    expect(response.status).toBe(201);
    const token = await loginAs(stack, 'sneaky', 'sneaky-password');
    const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
    expect(claims.role).toBe('user');
    for (const route of routes) {
      expect((await api(stack, route.path, { method: route.method, token })).status).toBe(403);
    }
  });
});
