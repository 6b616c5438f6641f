import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@blog/server-kit/testing';
import { simpleParser } from 'mailparser';
import { startStack, stopAllStacks, type RunningStack } from '../support/stack.js';

const login = (stack: RunningStack, body: unknown) =>
  fetch(`${stack.baseUrl}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('npm start (the embedded launcher)', () => {
  let stack: RunningStack;

  beforeAll(async () => {
    stack = await startStack({ env: { START_TIMINGS: '1' } });
  }, 120_000);
  afterAll(async () => {
    await stopAllStacks();
  });

  /** The steps of a `[who] timings (ms): step 12, other step 34` line, by name. */
  const timings = (who: string) => {
    const line = new RegExp(`\\[${who}\\] timings \\(ms\\): (.*)`).exec(stack.output())?.[1] ?? '';
    return Object.fromEntries(
      line.split(', ').map((step) => [step.replace(/ \d+$/, ''), Number(/\d+$/.exec(step)?.[0])]),
    );
  };

  it('loads the servers while PostgreSQL starts, and with START_TIMINGS=1 says where the start went', async () => {
    // The launcher prints its line once its own health poll answers, which may come after the
    // test's poll did: wait for it (a loaded CI machine once read the output a moment early).
    for (let waited = 0; !/\[launcher\] timings/.test(stack.output()) && waited < 10_000; waited += 100)
      await new Promise((r) => setTimeout(r, 100));
    const launcher = timings('launcher');
    expect(launcher['servers spawned']).toBeLessThan(launcher['database up']!);
    expect(launcher['database up']).toBeLessThanOrEqual(launcher['healthy']!);
    const servers = timings('servers');
    for (const step of [
      'modules loaded',
      'database up',
      'posts+auth up',
      'media+mail+social up',
      'gateway up',
    ])
      expect(servers[step]).toBeGreaterThan(0);
    expect(servers['modules loaded']).toBeLessThanOrEqual(servers['database up']!);
    expect(servers['database up']).toBeLessThanOrEqual(servers['posts+auth up']!);
  });

  it('creates the admin with a random password, kept 0600 in DATA_DIR, and the JWT secret likewise', async () => {
    expect(stack.admin.username).toBe('admin');
    expect(stack.admin.password.length).toBeGreaterThanOrEqual(20);
    expect(stack.output()).toContain(stack.admin.password); // printed once
    for (const file of ['admin-credentials.txt', 'jwt-secret']) {
      expect((await stat(join(stack.dataDir, file))).mode & 0o777).toBe(0o600);
    }
    const response = await login(stack, stack.admin);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ username: 'admin', role: 'admin' });
  });

  it('serves the web app and its client-side routes on the same port', async () => {
    for (const path of ['/', '/login', '/admin']) {
      const response = await fetch(`${stack.baseUrl}${path}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain('text/html');
      expect(await response.text()).toContain('<div id="root">');
    }
  });

  it('points e-mail links at PORT when SITE_URL is unset', async () => {
    const subscribed = await fetch(`${stack.baseUrl}/api/subscribe`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'reader@example.com' }),
    });
    expect(subscribed.status).toBeLessThan(300);
    const outbox = join(stack.dataDir, 'outbox');
    let files: string[] = [];
    for (const deadline = Date.now() + 10_000; files.length === 0 && Date.now() < deadline;) {
      await new Promise((r) => setTimeout(r, 200));
      files = await readdir(outbox).catch(() => []);
    }
    expect(files).toHaveLength(1);
    const { text } = await simpleParser(await readFile(join(outbox, files[0]!)));
    const port = new URL(stack.baseUrl).port;
    expect(text).toContain(`http://localhost:${port}/api/subscribe/confirm?token=`);
    expect(text).not.toContain('localhost:3000');
  });

  it('runs the six servers in one process, and restarts it when it dies', async () => {
    const before = await stack.state();
    expect(before.mode).toBe('one');
    expect(Object.keys(before.children).sort()).toEqual([
      'auth',
      'gateway',
      'mail',
      'media',
      'posts',
      'social',
    ]);
    const pids = new Set(Object.values(before.children));
    expect(pids.size).toBe(1);
    const [pid] = pids;
    expect(pid).not.toBe(before.launcher);
    process.kill(pid!, 'SIGKILL');

    const deadline = Date.now() + 30_000;
    let status = 0;
    while (Date.now() < deadline && status !== 200) {
      await new Promise((r) => setTimeout(r, 200));
      status = await login(stack, stack.admin).then(
        (response) => response.status,
        () => 0, // nothing listening while it restarts
      );
    }
    expect(status).toBe(200);
    const after = await stack.state();
    expect(new Set(Object.values(after.children)).size).toBe(1);
    expect(after.children.auth).not.toBe(pid);
    expect(alive(pid!)).toBe(false);
    expect(stack.output()).toMatch(/servers exited \(SIGKILL\); restarting/);
  }, 40_000);

  it('stops every child and the database on SIGTERM, and a second start keeps the data', async () => {
    const registered = await fetch(`${stack.baseUrl}/api/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'keeper', password: 'keeper-password' }),
    });
    expect(registered.status).toBe(201);
    const state = await stack.state();
    expect(await stack.stop()).toBe(0);
    for (const pid of Object.values(state.children)) expect(alive(pid!)).toBe(false);
    const postmaster = await readFile(join(stack.dataDir, 'postgres', 'postmaster.pid'), 'utf8').catch(
      () => null,
    );
    expect(postmaster).toBeNull(); // PostgreSQL shut down cleanly

    stack = await startStack({ dataDir: stack.dataDir });
    const response = await login(stack, { username: 'keeper', password: 'keeper-password' });
    expect(response.status).toBe(200);
    expect(stack.output()).not.toContain('Created the admin account');
  }, 120_000);
});

describe('npm start with EMBEDDED_PROCESSES=per-service', () => {
  let stack: RunningStack;

  beforeAll(async () => {
    stack = await startStack({ env: { EMBEDDED_PROCESSES: 'per-service' } });
  }, 120_000);
  afterAll(async () => {
    await stopAllStacks();
  });

  it('answers 503 within 5 s when auth is killed, and recovers after the launcher restarts only auth', async () => {
    const before = await stack.state();
    process.kill(before.children.auth!, 'SIGKILL');
    const started = Date.now();
    const down = await login(stack, stack.admin);
    expect(down.status).toBe(503);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(await down.json()).toEqual({ error: 'Service unavailable' });

    const deadline = Date.now() + 20_000;
    let status = 0;
    while (Date.now() < deadline && status !== 200) {
      await new Promise((r) => setTimeout(r, 200));
      status = (await login(stack, stack.admin)).status;
    }
    expect(status).toBe(200);
    const after = await stack.state();
    expect(after.children.auth).not.toBe(before.children.auth);
    for (const name of ['gateway', 'posts', 'media', 'mail', 'social'] as const) {
      expect(after.children[name]).toBe(before.children[name]);
    }
    expect(stack.output()).toMatch(/auth exited \(SIGKILL\); restarting/);
  }, 30_000);

  it('stops every child on SIGTERM', async () => {
    const state = await stack.state();
    expect(state.mode).toBe('per-service');
    expect(new Set(Object.values(state.children)).size).toBe(6);
    expect(await stack.stop()).toBe(0);
    for (const pid of Object.values(state.children)) expect(alive(pid!)).toBe(false);
  }, 30_000);
});

describe('npm start when PostgreSQL cannot start', () => {
  it("stops with one line giving PostgreSQL's reason, and the servers started beside it stop too", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'blog-e2e-'));
    const pgPort = await freePort();
    const taken = createServer().listen(pgPort, '127.0.0.1');
    try {
      await expect(startStack({ dataDir, env: { PG_PORT: String(pgPort) } })).rejects.toThrow(
        /\[launcher\] failed: PostgreSQL did not start \(.*FATAL: +could not create any TCP\/IP sockets\)/,
      );
      const state = JSON.parse(await readFile(join(dataDir, 'stack.json'), 'utf8')) as {
        children: Record<string, number>;
      };
      const servers = new Set(Object.values(state.children));
      expect(servers.size).toBe(1);
      for (const pid of servers) expect(alive(pid)).toBe(false);
    } finally {
      taken.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('npm start with a mode it does not know', () => {
  it('stops at once, naming the variable and its values', async () => {
    await expect(startStack({ env: { EMBEDDED_PROCESSES: 'two' } })).rejects.toThrow(
      /EMBEDDED_PROCESSES must be one or per-service \(was two\)/,
    );
  }, 30_000);
});
