import { createSessionStore } from '../session/store';
import { ApiError, createApiClient, errorMessage, isSignInPath } from './client';
import { MemoryStorage } from '../testing/memoryStorage';

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

function setup(answer: Response | Error, signedIn = true) {
  const storage = new MemoryStorage();
  const session = createSessionStore(storage);
  if (signedIn) session.set({ token: 'tok', username: 'root', role: 'admin' });
  const calls: { url: string; init: RequestInit }[] = [];
  let unauthorized = 0;
  const api = createApiClient({
    session,
    onUnauthorized: () => unauthorized++,
    fetch: async (url, init) => {
      calls.push({ url: String(url), init: init ?? {} });
      if (answer instanceof Error) throw answer;
      return answer;
    },
  });
  return { api, storage, calls, unauthorized: () => unauthorized };
}

describe('createApiClient', () => {
  it('sends the Bearer token and JSON body, and returns the body on 2xx', async () => {
    const t = setup(json(201, { ok: true }));
    await expect(t.api.request('/api/x', { method: 'POST', body: { a: 1 } })).resolves.toEqual({ ok: true });
    const headers = t.calls[0]!.init.headers as Record<string, string>;
    expect(headers.Authorization).toBe('Bearer tok');
    expect(headers['Content-Type']).toBe('application/json');
    expect(t.calls[0]!.init.body).toBe('{"a":1}');
  });

  it('sends no Authorization header for a guest', async () => {
    const t = setup(json(200, []), false);
    await t.api.request('/api/x');
    expect((t.calls[0]!.init.headers as Record<string, string>).Authorization).toBeUndefined();
  });

  it.each([401, 403])('on %i clears the session and reports it', async (status) => {
    const t = setup(json(status, { error: 'Invalid or expired token' }));
    const failure = t.api.request('/api/auth/users');
    await expect(failure).rejects.toMatchObject({ status, serverMessage: 'Invalid or expired token' });
    expect(t.storage.items.size).toBe(0);
    expect(t.unauthorized()).toBe(1);
  });

  it("reads a 429's Retry-After in seconds (null without one)", async () => {
    const limited = new Response(JSON.stringify({ error: 'Too many comments; try again later' }), {
      status: 429,
      headers: { 'Content-Type': 'application/json', 'Retry-After': '120' },
    });
    await expect(setup(limited).api.request('/api/posts/1/comments')).rejects.toMatchObject({
      status: 429,
      retryAfter: 120,
      serverMessage: 'Too many comments; try again later',
    });
    await expect(setup(json(429, { error: 'Slow down' })).api.request('/api/x')).rejects.toMatchObject({
      retryAfter: null,
    });
  });

  it('keeps the session on other failures and reads error, else message', async () => {
    const t = setup(json(409, { message: 'taken' }));
    await expect(t.api.request('/api/x')).rejects.toMatchObject({ status: 409, serverMessage: 'taken' });
    expect(t.storage.items.size).toBe(3);
    expect(t.unauthorized()).toBe(0);
  });

  it('turns a network failure into status 0 with no server message', async () => {
    const t = setup(new TypeError('fetch failed'));
    const error = await t.api.request('/api/x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(errorMessage(error, 'Login failed')).toBe('Login failed');
  });

  it('ignores a non-JSON error body', async () => {
    const t = setup(new Response('<html>bad gateway</html>', { status: 502 }));
    const error = await t.api.request('/api/x').catch((e: unknown) => e);
    expect(errorMessage(error, 'Registration failed')).toBe('Registration failed');
  });
});

describe('isSignInPath', () => {
  it('matches /login and /admin/login only', () => {
    expect(isSignInPath('/login')).toBe(true);
    expect(isSignInPath('/login/')).toBe(true);
    expect(isSignInPath('/admin/login')).toBe(true);
    expect(isSignInPath('/admin')).toBe(false);
    expect(isSignInPath('/')).toBe(false);
  });
});
