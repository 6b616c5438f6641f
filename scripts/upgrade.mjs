#!/usr/bin/env node
// `npm run upgrade`: the containers' step before the servers start (compose's `migrate`
// service, Kubernetes' `upgrade` init containers), what `npm start` does itself. When this
// image has migrations an existing database has not run, it backs the whole blog up into
// BACKUP_TARGET first (default DATA_DIR/backups), then runs every service's migrations. One
// upgrade at a time: the others wait on an advisory lock and then find nothing left to do. A
// failed backup stops before anything migrates; a failed migration says which backup brings
// back the state before it. Exits 0 when the database is this version's.
import './lib/check-node.mjs';
import pg from 'pg';
import { dataSourceOptions, openMigrated } from '@blog/server-kit';
import { SERVICE_MIGRATIONS } from './lib/service-migrations.mjs';
import { checkAndBackUp } from './lib/upgrade-backup.mjs';

const say = (message) => process.stdout.write(`[upgrade] ${message}\n`);

async function main() {
  const env = process.env;
  if (!env.DATABASE_URL)
    throw new Error(
      'DATABASE_URL is not set: npm run upgrade is for containers (npm start does this itself)',
    );
  const lock = new pg.Client({ connectionString: env.DATABASE_URL });
  await lock.connect();
  try {
    await lock.query('SELECT pg_advisory_lock(hashtext($1))', ['blog-upgrade']);
    const backup = await checkAndBackUp({
      dataDir: env.DATA_DIR ?? '/data',
      databaseUrl: env.DATABASE_URL,
      env,
      say,
      restoreInto: 'empty databases and an empty bucket',
    });
    for (const [schema, migrations] of Object.entries(SERVICE_MIGRATIONS)) {
      try {
        const source = await openMigrated(
          dataSourceOptions({ url: env.DATABASE_URL, schema, entities: [], migrations, poolSize: 1 }),
          schema,
        );
        await source.destroy();
      } catch (error) {
        const why = error instanceof Error ? error.message : String(error);
        throw new Error(
          `the ${schema} migrations failed: ${why}` +
            (backup
              ? `; the blog as it was before: npm run restore -- ${backup} into empty databases, with the previous version's image`
              : ''),
          { cause: error },
        );
      }
    }
    say(backup ? "the database is this version's (backed up first)" : "the database is this version's");
  } finally {
    await lock.end(); // ending the session releases the lock
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`[upgrade] failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
