import { api, ADMIN, loginAs, startTestStack, type TestStack } from './support/test-stack.js';

describe('gateway over the real services', () => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startTestStack({ CORS_ORIGINS: 'https://friend.example' });
  });
  afterAll(() => stack?.stop());

  it('reports every process up', async () => {
    const response = await api(stack, '/api/health');
    expect(response.status).toBe(200);
    expect(response.json).toEqual({
      status: 'ok',
      transport: { kind: 'tcp', state: 'up' },
      services: { gateway: 'up', auth: 'up', posts: 'up', media: 'up', mail: 'up', social: 'up' },
    });
  });

  it('signs in the admin from ADMIN_USERNAME/ADMIN_PASSWORD and lists users for it', async () => {
    const login = await api(stack, '/api/auth/login', { body: ADMIN });
    expect(login.status).toBe(200);
    expect(login.json).toMatchObject({ username: 'owner', role: 'admin', token: expect.any(String) });
    const users = await api(stack, '/api/auth/users', { token: (login.json as { token: string }).token });
    expect(users.status).toBe(200);
    expect(users.json).toEqual([
      { id: expect.any(String), username: 'owner', role: 'admin', created_at: expect.any(String) },
    ]);
    expect(users.text).not.toMatch(/argon2|password/i);
  });

  it('registers with role user whatever the body says, and 409 for a taken name', async () => {
    const created = await api(stack, '/api/auth/register', {
      body: { username: 'visitor', password: 'visitor-pass', role: 'admin', isAdmin: true },
    });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ success: true, user: { username: 'visitor', role: 'user' } });
    const again = await api(stack, '/api/auth/register', {
      body: { username: 'Visitor', password: 'visitor-pass' },
    });
    expect(again.status).toBe(409);
    expect(again.json).toEqual({ error: 'That username is already taken' });
    const token = await loginAs(stack, 'visitor', 'visitor-pass');
    const users = await api(stack, '/api/auth/users', { token });
    expect(users.status).toBe(403);
  });

  it.each([
    [{ username: 'abc' }, 'password is required'],
    [{ username: 123, password: 'longenough' }, 'username must be a string'],
    [{ username: 'ab', password: 'longenough' }, 'username must be 3-32 characters'],
    [{ username: 'abc', password: 'short' }, 'password must be 8-128 characters'],
  ])('answers 400 naming the field for register body %j', async (body, error) => {
    const response = await api(stack, '/api/auth/register', { body });
    expect(response.status).toBe(400);
    expect(response.json).toEqual({ error });
  });

  it('answers a wrong password and an unknown user alike', async () => {
    const wrong = await api(stack, '/api/auth/login', {
      body: { username: 'owner', password: 'nope-nope-nope' },
    });
    const unknown = await api(stack, '/api/auth/login', {
      body: { username: 'nobody', password: 'nope-nope-nope' },
    });
    expect(wrong.status).toBe(401);
    expect(wrong.json).toEqual({ error: 'Invalid username or password' });
    expect(unknown.status).toBe(401);
    expect(unknown.json).toEqual(wrong.json);
  });

  it('answers 429 with Retry-After after 5 failures for one IP and username', async () => {
    const body = { username: 'visitor', password: 'wrong-password' };
    const headers = { 'x-forwarded-for': '203.0.113.50' }; // trusted: the test calls over loopback
    for (let i = 0; i < 5; i++)
      expect((await api(stack, '/api/auth/login', { body, headers })).status).toBe(401);
    const blocked = await api(stack, '/api/auth/login', {
      body: { ...body, password: 'visitor-pass' },
      headers,
    });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(800);
    expect(blocked.json).toEqual({ error: expect.stringMatching(/Too many/) });
    // Another client address is unaffected.
    const other = await api(stack, '/api/auth/login', {
      body: { ...body, password: 'visitor-pass' },
      headers: { 'x-forwarded-for': '203.0.113.51' },
    });
    expect(other.status).toBe(200);
  });

  it('limits JSON bodies to 1 MB and rejects malformed JSON, in the { error } shape', async () => {
    const big = await api(stack, '/api/auth/register', {
      body: JSON.stringify({ username: 'x'.repeat(1_100_000), password: 'longenough' }),
      headers: { 'content-type': 'application/json' },
    });
    expect(big.status).toBe(413);
    expect(big.json).toEqual({ error: 'Request body is too large' });
    const bad = await api(stack, '/api/auth/login', {
      body: '{"username": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(bad.status).toBe(400);
    expect(bad.json).toEqual({ error: 'Malformed JSON body' });
  });

  it('answers unknown API routes with a JSON 404', async () => {
    const response = await api(stack, '/api/nothing-here');
    expect(response.status).toBe(404);
    expect(response.json).toEqual({ error: 'Not found' });
  });

  it('sends security headers and a request id on every answer', async () => {
    const response = await api(stack, '/api/health', { headers: { 'x-request-id': 'trace-12345678' } });
    expect(response.headers.get('x-request-id')).toBe('trace-12345678');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(response.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(response.headers.get('x-powered-by')).toBeNull();
    const generated = await api(stack, '/api/nothing');
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('allows CORS only for listed origins', async () => {
    const listed = await api(stack, '/api/health', { headers: { origin: 'https://friend.example' } });
    expect(listed.headers.get('access-control-allow-origin')).toBe('https://friend.example');
    const other = await api(stack, '/api/health', { headers: { origin: 'https://evil.example' } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });
});
