// What the container tests share (infra/test/compose.spec.ts on docker-compose, infra/test/k8s.spec.ts
// on `podman kube play`): the project's images and the stand-ins built into podman's storage,
// commands run with their output kept, and the HTTP calls they make to the site they bring up and
// to its mail sink.
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { buildStandIns } from '../images/build.mjs';

export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export const ROOT = resolve(import.meta.dirname, '../../..');
const CA = process.env.NODE_EXTRA_CA_CERTS ?? '/etc/ssl/certs/ca-certificates.crt';

/** The programs of `needed` that are not on PATH. */
export const missingPrograms = (needed: string[]) =>
  needed.filter((program) => spawnSync('sh', ['-c', `command -v ${program}`]).status !== 0);

/** A command's stdout, or an Error with the end of its stderr. */
export type Run = (
  command: string,
  args: string[],
  options?: { timeoutMs?: number; input?: string },
) => string;

/** Runs commands in the folder and with the environment `where()` gives at the time of the call. */
export function commandRunner(where: () => { cwd?: string; env?: NodeJS.ProcessEnv }): Run {
  return (command, args, options = {}) => {
    const result = spawnSync(command, args, {
      ...where(),
      encoding: 'utf8',
      timeout: options.timeoutMs ?? 600_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    if (result.status !== 0)
      throw new Error(
        `${command} ${args.join(' ')} failed (${result.status ?? result.signal}):\n${(result.stderr ?? '').slice(-3000)}`,
      );
    return result.stdout;
  };
}

/** `work`'s result; its seconds go into `timings[name]`. */
export function timed<T>(timings: Record<string, number>, name: string, work: () => T): T {
  const started = Date.now();
  const result = work();
  timings[name] = Math.round((Date.now() - started) / 100) / 10;
  return result;
}

/**
 * The stand-ins of infra/test/images, then `localhost/blog-app:local` and `localhost/blog-web:local`
 * from infra/Dockerfile. Each is rebuilt only where its inputs changed (a second build of the same
 * tree is podman's layer cache); the seconds of each step go into `timings`.
 */
export function buildImages(run: Run, timings: Record<string, number>): void {
  timed(timings, 'standInsSeconds', () => buildStandIns(undefined, () => undefined));
  for (const target of ['app', 'web'])
    timed(timings, `${target}ImageSeconds`, () =>
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
}

/**
 * `check`'s first answer other than undefined (its errors count as undefined), tried every half
 * second for `ms`; a timeout names the last error, if the last try threw.
 */
export async function until<T>(what: string, check: () => Promise<T | undefined>, ms: number): Promise<T> {
  for (const deadline = Date.now() + ms; ;) {
    let failure = '';
    const value = await check().catch((error: Error) => {
      failure = ` (the last try: ${error?.message ?? error})`;
      return undefined;
    });
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms / 1000} s${failure}`);
    await new Promise((done) => setTimeout(done, 500));
  }
}

export type Api = (
  path: string,
  init?: { method?: string; body?: BodyInit; token?: string },
) => Promise<{ status: number; json: Json; text: string }>;

/** Calls to the site at `site()`: the status, the body and its JSON (or {}). */
export function siteApi(site: () => string): Api {
  return async (path, init = {}) => {
    const response = await fetch(`${site()}${path}`, {
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
}

/**
 * The first message in the mail sink (Mailpit's HTTP API at `base()`) that matches, with its
 * text; within 180 s. A send that fails (a busy machine, the sink not yet listening) is tried
 * again after MAIL_RETRY_INTERVAL_MS (30 s) by a sweep that also runs every 30 s: up to a minute
 * later, and more room than that for a loaded CI machine.
 */
export function mailSink(base: () => string): (match: (message: Json) => boolean) => Promise<Json> {
  return (match) =>
    until(
      'mail in the sink',
      async () => {
        const list = (await (await fetch(`${base()}/api/v1/messages`)).json()) as Json;
        const found = (list.messages as Json[]).find(match);
        return found
          ? ((await (await fetch(`${base()}/api/v1/message/${found.ID}`)).json()) as Json)
          : undefined;
      },
      180_000,
    );
}

/**
 * `node --input-type=module -e` of this, in an app container with DATABASE_URL, plays the
 * previous version's database: the posts schema's last migration undone (its own `down`).
 */
export const UNDO_LAST_POSTS_MIGRATION = [
  "import { DataSource } from 'typeorm';",
  "import { dataSourceOptions } from '@blog/server-kit';",
  "import { MIGRATIONS } from '/app/services/posts/dist/migrations/index.js';",
  'const source = await new DataSource({ ...dataSourceOptions({ url: process.env.DATABASE_URL,',
  "schema: 'posts', entities: [], migrations: MIGRATIONS, poolSize: 1 }), migrationsRun: false }).initialize();",
  'await source.undoLastMigration();',
  'await source.destroy();',
].join(' ');

/**
 * A reader subscribes through the site, confirms from the mail sink (the link's host replaced by
 * the site's) and gets the digest the owner sends: the confirmation link and the digest.
 */
export async function subscribeAndGetDigest(options: {
  site: string;
  api: Api;
  mail: (match: (message: Json) => boolean) => Promise<Json>;
  token: string;
  reader: string;
}): Promise<{ link: string; digest: Json }> {
  const { site, api, mail, token, reader } = options;
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
  const digest = await mail((m) => m.To?.some((t: Json) => t.Address === reader) && m.ID !== confirmation.ID);
  return { link, digest };
}
