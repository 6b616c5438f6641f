// The compose test's project (infra/test/compose.spec.ts): its images built from infra/Dockerfile,
// `docker-compose up` over podman's Docker API with the stand-ins of infra/test/images, and the
// calls its tests make to the running containers. Set up once for the whole file: the image
// builds are most of its time.
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

/**
 * One container's memory, in bytes. `used` is podman's figure (page cache included); the
 * working set is that less the inactive file cache, as the kubelet and `docker stats` count it
 * and as the kernel reclaims it before it kills anything. The budgets apply to the working set.
 */
export interface ContainerMemory {
  name: string;
  used: number;
  limit: number;
  /** The cgroup's high-water mark, page cache included, where readable. */
  peak: number | undefined;
  workingSet: number;
  /** The highest working set seen since the project came up (sampled every second). */
  peakWorkingSet: number;
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
  /** What makes up a container's memory (its cgroup's anon, file and shmem, and each process's RSS), for a failure's message. */
  memoryDetail(name: string): string;
  /**
   * The memory a container's processes hold themselves (its cgroup's anon and shmem, bytes): the
   * working set less the page cache of files they read, which the kernel takes back under pressure.
   */
  ownMemory(name: string): number;
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
  /** Each container's cgroup folder (v1: under memory/; v2: unified), by podman's name. */
  const cgroups = new Map<string, string>();
  const cgroupOf = (name: string): string => {
    let dir = cgroups.get(name);
    if (!dir) {
      const path = project.run('podman', ['inspect', '--format', '{{.State.CgroupPath}}', name]).trim();
      dir = [`/sys/fs/cgroup/memory${path}`, `/sys/fs/cgroup${path}`].find((d) =>
        existsSync(`${d}/memory.stat`),
      );
      if (!dir) throw new Error(`no memory cgroup for ${name} (${path})`);
      cgroups.set(name, dir);
    }
    return dir;
  };
  const readNumber = (file: string) => {
    try {
      return Number(readFileSync(file, 'utf8'));
    } catch {
      return undefined; // not this cgroup layout
    }
  };
  /** Usage less inactive file cache (v1: memory.usage_in_bytes, total_inactive_file; v2: memory.current, inactive_file). */
  const workingSetOf = (name: string): number => {
    const dir = cgroupOf(name);
    const usage = readNumber(`${dir}/memory.usage_in_bytes`) ?? readNumber(`${dir}/memory.current`) ?? 0;
    const stat = readFileSync(`${dir}/memory.stat`, 'utf8');
    const inactive = Number(/^(?:total_)?inactive_file (\d+)$/m.exec(stat)?.[1] ?? 0);
    return Math.max(0, usage - inactive);
  };
  /** One figure of a cgroup's memory.stat (v1 keys with their total_ form), in bytes; undefined when absent. */
  const statBytes = (stat: string, key: string): number | undefined => {
    const bytes = new RegExp(`^(?:total_)?${key} (\\d+)$`, 'm').exec(stat)?.[1];
    return bytes === undefined ? undefined : Number(bytes);
  };
  project.ownMemory = (name) => {
    const stat = readFileSync(`${cgroupOf(name)}/memory.stat`, 'utf8');
    return (statBytes(stat, '(?:anon|rss)') ?? 0) + (statBytes(stat, 'shmem') ?? 0);
  };
  project.memoryDetail = (name) => {
    const dir = cgroupOf(name);
    const stat = readFileSync(`${dir}/memory.stat`, 'utf8');
    const mib = (key: string) => {
      const bytes = statBytes(stat, key);
      return bytes === undefined ? '-' : (bytes / 1024 ** 2).toFixed(1);
    };
    const processes = readFileSync(`${dir}/cgroup.procs`, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((pid) => {
        try {
          const status = readFileSync(`/proc/${pid}/status`, 'utf8');
          const rss = Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1] ?? 0) / 1024;
          const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
          return `${command.slice(0, 60)} ${rss.toFixed(1)}`;
        } catch {
          return `${pid} gone`;
        }
      });
    return (
      `anon ${mib('(?:anon|rss)')}, shmem ${mib('shmem')}, active file ${mib('active_file')}, ` +
      `inactive file ${mib('inactive_file')} MiB; processes (RSS MiB): ${processes.join('; ')}`
    );
  };
  /** The cgroup's high-water mark since the container started, page cache included. */
  const peakOf = (name: string): number | undefined => {
    const dir = cgroupOf(name);
    return readNumber(`${dir}/memory.max_usage_in_bytes`) ?? readNumber(`${dir}/memory.peak`);
  };
  const projectContainers = () =>
    project
      .run('podman', [
        'ps',
        '--filter',
        `label=com.docker.compose.project=${PROJECT}`,
        '--format',
        '{{.Names}}',
      ])
      .trim()
      .split('\n')
      .filter(Boolean);
  // Every second, each container's working set: the cgroup keeps no high-water mark of it.
  const peakWorkingSets = new Map<string, number>();
  let sampling: NodeJS.Timeout | undefined;
  const sampleWorkingSets = () => {
    for (const name of cgroups.keys())
      try {
        peakWorkingSets.set(name, Math.max(peakWorkingSets.get(name) ?? 0, workingSetOf(name)));
      } catch {
        // a container being restarted or removed
      }
  };
  project.memory = () => {
    const names = projectContainers();
    sampleWorkingSets();
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
        const workingSet = workingSetOf(name!);
        return {
          name: name!.replace(`${PROJECT}_`, ''),
          used: Number(used),
          limit: Number(limit),
          peak: peakOf(name!),
          workingSet,
          peakWorkingSet: Math.max(peakWorkingSets.get(name!) ?? 0, workingSet),
        };
      })
      .sort((a, b) => a.name.localeCompare(b.name));
  };
  // The sink on a free host port too: a fixed 8025 may be another stack's (or a stale forward).
  let mailPort = 0;
  project.mail = mailSink(() => `http://127.0.0.1:${mailPort}`);

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
    mailPort = await freePort();
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
        `MAILPIT_PORT=${mailPort}`,
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
    for (const name of projectContainers()) cgroupOf(name);
    sampling = setInterval(sampleWorkingSets, 1000);
    project.browser = await launchBrowser();
  }, 1_200_000);

  afterAll(async () => {
    clearInterval(sampling);
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
