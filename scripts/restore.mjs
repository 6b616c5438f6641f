#!/usr/bin/env node
// `npm run restore -- <backup>`: brings a whole blog back from one of its backups, before the
// blog starts (also inside the app container). <backup> is the file in a backup target's
// backups/ folder, or its s3://bucket/prefix/backups/… URL; its media are read from beside it.
//   - DATABASE_URL set: restores into that database, which must be empty (no rows in the
//     services' schemas); media go where S3_* (or DATA_DIR/uploads) say, which must be empty.
//   - unset (`npm start`'s embedded PostgreSQL): DATA_DIR (default ./data) must be empty or
//     missing; the database is made there, and the secrets the data needs (jwt-secret).
// BACKUP_PASSPHRASE opens an encrypted backup; BACKUP_S3_* (else S3_*) reach an s3:// one.
// On any failure nothing restored is left: the database's schemas and the media written are
// removed (and, for the embedded run, DATA_DIR's new contents).
import './lib/check-node.mjs';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createStorage } from '@blog/server-kit';
import { locateBackup, restoreBackup } from '@blog/server-kit/backup';
import { SERVICE_MIGRATIONS } from './lib/service-migrations.mjs';
import { persistentSecret, startEmbeddedDatabase } from './lib/embedded-database.mjs';
import { freePort } from './lib/ports.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const say = (message) => process.stdout.write(`[restore] ${message}\n`);
const USAGE = 'usage: npm run restore -- <backup file or s3://bucket/prefix/backups/name>';

const s3Settings = (env) => ({
  endpoint: env.BACKUP_S3_ENDPOINT || env.S3_ENDPOINT,
  region: env.BACKUP_S3_REGION || env.S3_REGION,
  accessKeyId: env.BACKUP_S3_ACCESS_KEY_ID || env.S3_ACCESS_KEY_ID,
  secretAccessKey: env.BACKUP_S3_SECRET_ACCESS_KEY || env.S3_SECRET_ACCESS_KEY,
});

async function isEmptyFolder(folder) {
  return !existsSync(folder) || (await readdir(folder)).length === 0;
}

async function main([location]) {
  if (!location) throw new Error(USAGE);
  const env = process.env;
  const source = await locateBackup(location, s3Settings(env));
  const embedded = !env.DATABASE_URL;
  const dataDir = resolve(env.DATA_DIR ?? join(root, 'data'));
  let database = { url: env.DATABASE_URL, stop: async () => {} };
  if (embedded) {
    if (!(await isEmptyFolder(dataDir)))
      throw new Error(
        `DATA_DIR ${dataDir} is not empty: restore into an empty one (move the old one away, or set DATA_DIR)`,
      );
    await mkdir(dataDir, { recursive: true, mode: 0o755 });
    await chmod(dataDir, 0o755); // the embedded PostgreSQL runs as the postgres user
  }
  try {
    if (embedded) {
      const password = await persistentSecret(dataDir, 'postgres-password');
      const port = await freePort();
      const started = await startEmbeddedDatabase({ dataDir, port, password, say });
      database = { url: `postgres://postgres:${password}@127.0.0.1:${port}/blog`, stop: started.stop };
    }
    const media = await createStorage({ ...env, DATA_DIR: dataDir });
    await media.ensureReady();
    say(`restoring ${source.store.where}/${source.key}`);
    const result = await restoreBackup({
      source,
      databaseUrl: database.url,
      media,
      passphrase: env.BACKUP_PASSPHRASE,
      migrations: SERVICE_MIGRATIONS,
      onProgress: say,
    });
    const { jwtSecret } = result.header.secrets ?? {};
    if (embedded && jwtSecret)
      await writeFile(join(dataDir, 'jwt-secret'), `${jwtSecret}\n`, { mode: 0o600 });
    say(
      `restored the backup of ${result.header.createdAt}${result.header.site ? ` (${result.header.site})` : ''}: ` +
        `${result.tables} tables, ${result.rows} rows, ${result.media} media files`,
    );
    if (!embedded && jwtSecret === undefined)
      say(
        'start the blog with the JWT_SECRET (or TOTP_ENCRYPTION_KEY) it had: two-factor secrets are sealed with it',
      );
  } catch (error) {
    await database.stop().catch(() => {});
    database = { stop: async () => {} };
    if (embedded)
      for (const name of await readdir(dataDir))
        await rm(join(dataDir, name), { recursive: true, force: true });
    throw error;
  } finally {
    await database.stop().catch(() => {});
  }
}

main(process.argv.slice(2)).then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`[restore] failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
