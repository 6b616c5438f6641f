import {
  healthPattern,
  ErrorText,
  Patterns,
  type LoginResponse,
  type RegisterResponse,
  type PublicUser,
} from '@blog/contracts';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import argon2 from 'argon2';
import pg from 'pg';
import { loadAuthConfig, CREDENTIALS_FILE } from '../src/index.js';
import { SECRET, startAuthStack, type AuthStack } from './support/auth-stack.js';

describe('auth service (real PostgreSQL, real TCP transport)', () => {
  let stack: AuthStack;
  const send = <T>(pattern: string, data: unknown) => stack.send<T>(pattern, data);
  const failure = (pattern: string, data: unknown) => stack.failure(pattern, data);

  beforeAll(async () => {
    stack = await startAuthStack();
  });
  afterAll(() => stack?.stop());

  it('creates an admin on first start and writes its password to a 0600 file', async () => {
    const file = join(stack.config.DATA_DIR, CREDENTIALS_FILE);
    const text = await readFile(file, 'utf8');
    const password = /password: (\S+)/.exec(text)?.[1];
    expect(password).toBeDefined();
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const login = await send<LoginResponse>(Patterns.auth.login, {
      username: 'admin',
      password,
      ip: '10.0.0.1',
    });
    expect(login.role).toBe('admin');
    expect(login.username).toBe('admin');
  });

  it('stores passwords as argon2id hashes in the auth schema', async () => {
    const client = new pg.Client({ connectionString: stack.db.url });
    await client.connect();
    const { rows } = await client.query('SELECT password_hash FROM auth.users');
    await client.end();
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row.password_hash).toMatch(/^\$argon2id\$/);
  });

  it('registers a user with role user even when the body asks for admin', async () => {
    const result = await send<RegisterResponse>(Patterns.auth.register, {
      username: 'jane',
      password: 'correct horse',
      role: 'admin',
      ip: '10.0.0.9',
    });
    expect(result.success).toBe(true);
    expect(result.user).toMatchObject({ username: 'jane', role: 'user' });
    expect(result.message).toEqual(expect.any(String));
    const login = await send<LoginResponse>(Patterns.auth.login, {
      username: 'JANE',
      password: 'correct horse',
      ip: '10.0.0.2',
    });
    expect(login.role).toBe('user');
    expect(login.token.split('.')).toHaveLength(3);
    const claims = JSON.parse(Buffer.from(login.token.split('.')[1], 'base64url').toString());
    expect(claims).toMatchObject({ username: 'jane', role: 'user', sub: result.user.id });
    expect(claims.exp - claims.iat).toBe(7 * 24 * 3600);
  });

  it('refuses a taken username (any case) with 409 and invalid input with 400', async () => {
    expect(
      await failure(Patterns.auth.register, { username: 'Jane', password: 'another pass', ip: '10.0.0.9' }),
    ).toMatchObject({
      status: 409,
    });
    expect(
      await failure(Patterns.auth.register, { username: 'x', password: 'another pass', ip: '10.0.0.9' }),
    ).toEqual({
      status: 400,
      error: 'username must be 3-32 characters',
      field: 'username',
    });
    expect(
      await failure(Patterns.auth.register, { username: 'newname', password: 'short', ip: '10.0.0.9' }),
    ).toMatchObject({
      status: 400,
      field: 'password',
    });
  });

  it('answers the same 401 for a wrong password and an unknown user', async () => {
    const wrong = await failure(Patterns.auth.login, {
      username: 'jane',
      password: 'nope-nope',
      ip: '10.0.0.3',
    });
    const unknown = await failure(Patterns.auth.login, {
      username: 'ghost',
      password: 'nope-nope',
      ip: '10.0.0.3',
    });
    expect(wrong).toEqual({ status: 401, error: 'Invalid username or password' });
    expect(unknown).toEqual(wrong);
  });

  it('blocks a sixth try within the window with 429 and Retry-After, then lets the window pass', async () => {
    const attempt = { username: 'jane', password: 'wrong-password', ip: '10.9.9.9' };
    for (let i = 0; i < 5; i++) {
      expect((await failure(Patterns.auth.login, attempt)).status).toBe(401);
    }
    const blocked = await failure(Patterns.auth.login, { ...attempt, password: 'correct horse' });
    expect(blocked.status).toBe(429);
    // The window runs 15 minutes from the first failure (LOGIN_WINDOW).
    expect(blocked.retryAfter).toBeGreaterThan(860);
    expect(blocked.retryAfter).toBeLessThanOrEqual(900);
    // Another IP is not blocked for the same user.
    await expect(
      send(Patterns.auth.login, { ...attempt, password: 'correct horse', ip: '10.9.9.8' }),
    ).resolves.toMatchObject({ username: 'jane' });
    // The window ends (its start moved back in the table, not waited for: a loaded machine made a short one end early).
    const pg2 = new pg.Client({ connectionString: stack.db.url });
    await pg2.connect();
    await pg2.query(
      `UPDATE auth.rate_windows SET window_started_at = window_started_at - interval '15 minutes' WHERE key = $1`,
      [`login\n${attempt.ip}\n${attempt.username}`],
    );
    await pg2.end();
    await expect(send(Patterns.auth.login, { ...attempt, password: 'correct horse' })).resolves.toMatchObject(
      {
        username: 'jane',
      },
    );
  });

  it('holds the limit under parallel guesses (counted atomically)', async () => {
    const attempt = { username: 'jane', password: 'wrong-password', ip: '10.7.7.7' };
    const results = await Promise.all(
      Array.from({ length: 12 }, () => failure(Patterns.auth.login, attempt)),
    );
    expect(results.filter((r) => r.status === 401)).toHaveLength(5);
    expect(results.filter((r) => r.status === 429)).toHaveLength(7);
  });

  it('a success resets the failure count', async () => {
    const attempt = { username: 'jane', password: 'wrong-password', ip: '10.6.6.6' };
    for (let i = 0; i < 4; i++) await failure(Patterns.auth.login, attempt);
    await send(Patterns.auth.login, { ...attempt, password: 'correct horse' });
    for (let i = 0; i < 5; i++) expect((await failure(Patterns.auth.login, attempt)).status).toBe(401);
  });

  it('two admins demoting each other at once: one succeeds, the other is refused, an admin is left', async () => {
    const a = await send<RegisterResponse>(Patterns.auth.register, {
      username: 'adm-a',
      password: 'admin-a-pass',
      ip: '10.0.5.1',
    });
    const b = await send<RegisterResponse>(Patterns.auth.register, {
      username: 'adm-b',
      password: 'admin-b-pass',
      ip: '10.0.5.2',
    });
    const pg2 = new pg.Client({ connectionString: stack.db.url });
    await pg2.connect();
    // Only these two are admins for this test.
    await pg2.query(`UPDATE auth.users SET role = 'user' WHERE role = 'admin'`);
    await pg2.query(`UPDATE auth.users SET role = 'admin' WHERE id = ANY($1)`, [[a.user.id, b.user.id]]);
    try {
      for (let round = 0; round < 5; round++) {
        const outcomes = await Promise.allSettled([
          send(Patterns.auth.setRole, { id: a.user.id, role: 'user' }),
          send(Patterns.auth.setRole, { id: b.user.id, role: 'user' }),
        ]);
        expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
        const refused = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
        expect(refused.reason).toMatchObject({ status: 409, error: ErrorText.lastAdmin });
        const { rows } = await pg2.query(`SELECT count(*)::int AS n FROM auth.users WHERE role = 'admin'`);
        expect(rows[0].n).toBe(1);
        await pg2.query(`UPDATE auth.users SET role = 'admin' WHERE id = ANY($1)`, [[a.user.id, b.user.id]]);
      }
    } finally {
      await pg2.query(`UPDATE auth.users SET role = 'admin' WHERE username = 'admin'`);
      await pg2.query(`DELETE FROM auth.users WHERE id = ANY($1)`, [[a.user.id, b.user.id]]);
      await pg2.end();
    }
  });

  it('lists users without password hashes', async () => {
    const users = await send<PublicUser[]>(Patterns.auth.listUsers, {});
    expect(users.map((u) => u.username)).toEqual(['admin', 'jane']);
    for (const user of users) {
      expect(Object.keys(user).sort()).toEqual(['created_at', 'id', 'role', 'username']);
    }
  });

  it("stores today's argon2 settings (7 MiB, 5 passes) and redoes an older hash at the next right sign-in", async () => {
    const client = new pg.Client({ connectionString: stack.db.url });
    await client.connect();
    const hashOf = async (username: string) =>
      (await client.query('SELECT password_hash FROM auth.users WHERE username = $1', [username])).rows[0]
        .password_hash as string;
    try {
      await send(Patterns.auth.register, { username: 'olga', password: 'old settings', ip: '10.0.7.1' });
      expect(await hashOf('olga')).toMatch(/^\$argon2id\$v=19\$m=7168,p=1,t=5\$/);
      // An account from before: OWASP's other row, 19 MiB and 2 passes.
      const older = await argon2.hash('old settings', {
        type: argon2.argon2id,
        memoryCost: 19456,
        timeCost: 2,
      });
      await client.query('UPDATE auth.users SET password_hash = $1 WHERE username = $2', [older, 'olga']);
      const session = await send<LoginResponse>(Patterns.auth.login, {
        username: 'olga',
        password: 'wrong',
        ip: '10.0.7.1',
      }).catch(() => null);
      expect(session).toBeNull();
      expect(await hashOf('olga')).toBe(older); // a wrong password changes nothing
      const login = await send<LoginResponse>(Patterns.auth.login, {
        username: 'olga',
        password: 'old settings',
        ip: '10.0.7.1',
      });
      const redone = await hashOf('olga');
      expect(redone).toMatch(/^\$argon2id\$v=19\$m=7168,p=1,t=5\$/);
      expect(await argon2.verify(redone, 'old settings')).toBe(true);
      // The same password: the session from that sign-in and the next sign-in both hold.
      const claims = JSON.parse(Buffer.from(login.token.split('.')[1]!, 'base64url').toString());
      expect(await send(Patterns.auth.sessionState, { id: claims.sub })).toEqual({
        role: 'user',
        sessionVersion: claims.sv,
      });
      await send<LoginResponse>(Patterns.auth.login, {
        username: 'olga',
        password: 'old settings',
        ip: '10.0.7.1',
      });
      expect(await hashOf('olga')).toBe(redone); // already today's: not redone again
    } finally {
      await client.end();
    }
  });

  it('answers health with its database state', async () => {
    await expect(send(healthPattern('auth'), {})).resolves.toEqual({
      service: 'auth',
      status: 'up',
      database: 'up',
      transport: 'tcp',
    });
  });
});

describe('auth config', () => {
  it('names the bad variable', () => {
    expect(() => loadAuthConfig({ DATABASE_URL: 'postgres://x/y', JWT_SECRET: 'short' })).toThrow(
      /JWT_SECRET/,
    );
    expect(() => loadAuthConfig({ JWT_SECRET: SECRET })).toThrow(/DATABASE_URL/);
    expect(() =>
      loadAuthConfig({ DATABASE_URL: 'postgres://x/y', JWT_SECRET: SECRET, JWT_TTL: 'forever' }),
    ).toThrow(/JWT_TTL/);
    expect(() =>
      loadAuthConfig({ DATABASE_URL: 'postgres://x/y', JWT_SECRET: SECRET, TOTP_ENCRYPTION_KEY: 'short' }),
    ).toThrow(/TOTP_ENCRYPTION_KEY/);
  });
});
