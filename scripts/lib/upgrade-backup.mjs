// Before a new version changes an existing blog's database, `npm start` backs the blog up (the
// same backup as the dashboard's, into BACKUP_TARGET), so `npm run restore` can bring back the
// state before it if a migration fails or the new version disappoints. DATA_DIR/schema-stamp
// names the migrations of the code that last started healthy: while it matches, a start checks
// nothing. Otherwise the check (and the backup) run in a child process of their own, so the
// launcher, which lives as long as the blog, never holds the modules they load.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SERVICES = ['auth', 'posts', 'media', 'mail', 'social'];

/** The built migration files of every service, one per line: changes when a version adds one. */
export function schemaStamp(root) {
  const lines = [];
  for (const service of SERVICES) {
    const folder = join(root, 'services', service, 'dist', 'migrations');
    if (!existsSync(folder)) continue;
    for (const name of readdirSync(folder).sort())
      if (/^\d+-.*\.js$/.test(name)) lines.push(`${service}/${name}`);
  }
  return `${lines.join('\n')}\n`;
}

function stampFile(dataDir) {
  return join(dataDir, 'schema-stamp');
}

/** Written once this code's migrations have run (the start is healthy). */
export async function writeSchemaStamp(dataDir, stamp) {
  await writeFile(stampFile(dataDir), stamp);
}

/** Per schema, this code's migrations the database has not run; null for a database with none run (a new blog). */
async function pendingMigrations(databaseUrl) {
  const { default: pg } = await import('pg');
  const { SERVICE_MIGRATIONS } = await import('./service-migrations.mjs');
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const pending = {};
    let existing = false;
    for (const [service, MIGRATIONS] of Object.entries(SERVICE_MIGRATIONS)) {
      const { rows: table } = await client.query(
        `SELECT 1 FROM pg_tables WHERE schemaname = $1 AND tablename = 'migrations'`,
        [service],
      );
      const ran = new Set();
      if (table.length)
        for (const { name } of (await client.query(`SELECT name FROM "${service}".migrations`)).rows)
          ran.add(name);
      if (ran.size) existing = true;
      // TypeORM's name for a migration: the instance's `name`, else its class's.
      const missing = MIGRATIONS.map((Migration) => new Migration().name || Migration.name).filter(
        (name) => !ran.has(name),
      );
      if (missing.length) pending[service] = missing;
    }
    return existing ? pending : null;
  } finally {
    await client.end();
  }
}

/**
 * The check and the backup: the backup's path, or null when none was needed (a new blog, or
 * nothing pending). Run in a child by backupBeforeUpgrade, and by `npm run upgrade` in containers.
 */
export async function checkAndBackUp({ dataDir, databaseUrl, env, say, restoreInto = 'an empty DATA_DIR' }) {
  const pending = await pendingMigrations(databaseUrl);
  if (!pending || Object.keys(pending).length === 0) return null;
  const changes = Object.entries(pending)
    .map(([schema, names]) => `${schema}: ${names.join(', ')}`)
    .join('; ');
  say(`this version changes the database (${changes}): backing the blog up first`);
  const { openBackupStore, takeBackup } = await import('@blog/server-kit/backup');
  const { createStorage } = await import('@blog/server-kit');
  const store = await openBackupStore(env.BACKUP_TARGET || join(dataDir, 'backups'), {
    endpoint: env.BACKUP_S3_ENDPOINT || env.S3_ENDPOINT,
    region: env.BACKUP_S3_REGION || env.S3_REGION,
    accessKeyId: env.BACKUP_S3_ACCESS_KEY_ID || env.S3_ACCESS_KEY_ID,
    secretAccessKey: env.BACKUP_S3_SECRET_ACCESS_KEY || env.S3_SECRET_ACCESS_KEY,
  });
  const jwtFile = join(dataDir, 'jwt-secret');
  const jwtSecret = existsSync(jwtFile) ? readFileSync(jwtFile, 'utf8').trim() : '';
  const result = await takeBackup(
    {
      databaseUrl,
      media: await createStorage({ ...env, DATA_DIR: dataDir }),
      site: env.SITE_URL || null,
      secrets: jwtSecret ? { jwtSecret } : {},
    },
    store,
    { passphrase: env.BACKUP_PASSPHRASE },
  );
  const path = `${store.where}/${result.file}`;
  say(
    `backed up to ${path}; should this version fail, \`npm run restore -- ${path}\` into ${restoreInto} ` +
      'with the previous version brings the blog back as it was',
  );
  return path;
}

/**
 * Backs the blog up when this code has migrations its database has not run. Resolves to
 * `{ stamp, file }`: the stamp to write once healthy, and the backup's path (null when none was
 * needed). A backup that fails stops the start: the database is left as it was.
 */
export async function backupBeforeUpgrade({ root, dataDir, databaseUrl, env, say }) {
  const stamp = schemaStamp(root);
  const file = stampFile(dataDir);
  if (existsSync(file) && readFileSync(file, 'utf8') === stamp) return { stamp, file: null };
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url)], {
    cwd: root,
    env: { ...env, DATA_DIR: dataDir, DATABASE_URL: databaseUrl },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let problem = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  child.stderr.on('data', (chunk) => (problem += chunk));
  const code = await new Promise((done) => child.once('exit', done));
  for (const line of out.split('\n')) if (line.startsWith('say ')) say(line.slice(4));
  const result = out.split('\n').find((line) => line.startsWith('file '));
  if (code !== 0 || !result)
    throw new Error(
      `the backup before this version's database changes failed: ${problem.trim() || `exit ${code}`}`,
    );
  const backup = result.slice(5);
  return { stamp, file: backup === '-' ? null : backup };
}

// Run as its own process by backupBeforeUpgrade: `say …` lines, then `file <path or ->`.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const env = process.env;
  const say = (message) => process.stdout.write(`say ${message}\n`);
  checkAndBackUp({
    dataDir: env.DATA_DIR,
    databaseUrl: env.DATABASE_URL,
    env,
    say,
  }).then(
    (path) => process.stdout.write(`file ${path ?? '-'}\n`),
    (error) => {
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
