// The compose test's project (infra/test/compose.spec.ts): its images built from infra/Dockerfile,
// `docker-compose up` over podman's Docker API with the stand-ins of infra/test/images, and the
// calls its tests make to the running containers. Set up once for the whole file: the image
// builds are most of its time.
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { podmanEnv, startPodmanService } from '../images/build.mjs';
import { launchBrowser } from '../../../e2e/support/browser.js';
import { freePort } from '../../../libs/server-kit/src/testing/ports.js';
import {
  buildImages,
  commandRunner,
  mailSink,
  missingPrograms,
  ROOT,
  siteApi,
  until,
  type Json,
} from './podman.js';

export type { Json } from './podman.js';

const missing = missingPrograms(['podman', 'docker-compose', 'debootstrap', 'curl']);
/** describe, or describe.skip with the missing programs in its name. */
export const composeSuite = missing.length ? describe.skip : describe;
export const composeSuiteName = `docker-compose up on podman${missing.length ? ` (skipped: ${missing.join(', ')} not installed)` : ''}`;

export const PROJECT = `blogct${process.pid}`;
/**
 * COMPOSE_TOPOLOGY=scale runs the same journey on docker-compose.scale.yml over the small
 * file (two replicas over NATS) and prints its memory; the 900 MB budget is the small one's.
 */
export const SCALE = process.env.COMPOSE_TOPOLOGY === 'scale';
const COMPOSE_FILES = SCALE ? ['docker-compose.yml', 'docker-compose.scale.yml'] : ['docker-compose.yml'];
export const ADMIN = { username: 'owner', password: 'compose-owner-password-1' };

/** One container's memory, in bytes: now, its limit, and its high-water mark where readable. */
export interface ContainerMemory {
  name: string;
  used: number;
  limit: number;
  peak: number | undefined;
}

export interface ComposeProject {
  /** The site through the compose nginx. */
  site: string;
  browser: Browser;
  /** Seconds of each stage, printed after the file. */
  timings: Record<string, number>;
  /** A command in the project's folder; its stdout, or an Error with the end of its stderr. */
  run(command: string, args: string[], options?: { timeoutMs?: number }): string;
  compose(...args: string[]): string;
  /** The name podman gives a service's (first) container. */
  container(service: string): string;
  api(
    path: string,
    init?: { method?: string; body?: BodyInit; token?: string },
  ): Promise<{ status: number; json: Json; text: string }>;
  until<T>(what: string, check: () => Promise<T | undefined>, ms: number): Promise<T>;
  /** A message in the mail sink, with its text, once one matches. */
  mail(match: (message: Json) => boolean): Promise<Json>;
  /** Every container of the project (without the project prefix), by name. */
  memory(): ContainerMemory[];
}

/** Builds the images and brings the project up before the file's tests; takes it down after. */
export function useComposeProject(): ComposeProject {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  let service: { stop(): void } | undefined;
  let ticker: ChildProcess | undefined;
  const project = { timings: {} } as ComposeProject;

  project.run = commandRunner(() => ({ cwd: dir, env }));
  project.compose = (...args) =>
    project.run('docker-compose', [
      '-p',
      PROJECT,
      ...COMPOSE_FILES.flatMap((file) => ['-f', file]),
      // docker-compose 1.29 starts deploy.replicas only with --compatibility.
      ...(SCALE ? ['--compatibility'] : []),
      ...args,
    ]);
  project.container = (name) => `${PROJECT}_${name}_1`;
  project.api = siteApi(() => project.site);
  project.until = until;
  /**
   * A container's high-water mark since it started, page cache included as podman stats
   * counts it (cgroup v1 memory.max_usage_in_bytes, v2 memory.peak); undefined where the
   * cgroup file is not readable. The limits in docker-compose.yml are set from it.
   */
  const peakOf = (name: string): number | undefined => {
    const path = project.run('podman', ['inspect', '--format', '{{.State.CgroupPath}}', name]).trim();
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
  project.memory = () => {
    const names = project
      .run('podman', [
        'ps',
        '--filter',
        `label=com.docker.compose.project=${PROJECT}`,
        '--format',
        '{{.Names}}',
      ])
      .trim()
      .split('\n');
    // The raw byte counts (the default columns are rounded human units).
    return project
      .run('podman', [
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
  };
  project.mail = mailSink(() => 'http://127.0.0.1:8025');

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'blog-compose-'));
    env = { ...podmanEnv(), DOCKER_HOST: `unix://${join(dir, 'podman.sock')}` };
    buildImages(project.run, project.timings);
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
    project.site = `http://127.0.0.1:${port}`;
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
        `SITE_URL=${project.site}`,
      ].join('\n'),
    );
    const started = Date.now();
    project.compose('up', '-d');
    await project.until(
      'every service healthy',
      async () => ((await project.api('/api/health')).json.status === 'ok' ? true : undefined),
      240_000,
    );
    project.timings.composeUpToHealthySeconds = Math.round((Date.now() - started) / 100) / 10;
    project.browser = await launchBrowser();
  }, 1_200_000);

  afterAll(async () => {
    await project.browser?.close();
    if (dir) {
      try {
        project.compose('down', '-v');
      } finally {
        if (ticker?.pid) process.kill(-ticker.pid, 'SIGKILL');
        service?.stop();
        rmSync(dir, { recursive: true, force: true });
      }
    }
    console.log(`compose timings (s): ${JSON.stringify(project.timings)}`);
  }, 180_000);

  return project;
}
