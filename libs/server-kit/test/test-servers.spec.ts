/**
 * The test run's servers come from containers when the run has an engine (Jest's global setup,
 * test-setup/engine.mjs): this suite shows it, so a run that silently fell back to the embedded
 * servers is seen. PostgreSQL is the compose file's image, Redis stops and comes back on its port.
 */
import { connect } from 'node:net';
import pg from 'pg';
import { containersEnabled, startTestRedis, TEST_IMAGES, TEST_RUN_LABEL } from '@blog/server-kit/testing';

const suite = containersEnabled() ? describe : describe.skip;
const name = `test servers through testcontainers${containersEnabled() ? '' : ' (skipped: no container engine in this run: no DOCKER_HOST, no podman, or TEST_ENGINE=embedded)'}`;

const runContainers = async () => {
  const { getContainerRuntimeClient } = await import('testcontainers');
  const client = await getContainerRuntimeClient();
  return client.container.dockerode.listContainers({
    filters: { label: [`${TEST_RUN_LABEL}=${process.env.TEST_RUN_ID}`] },
  });
};
const accepts = (url: string) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(Number(new URL(url).port), '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

suite(name, () => {
  it('runs the test PostgreSQL as a container of the compose file image, PostgreSQL 18', async () => {
    const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await client.connect();
    try {
      const { rows } = await client.query<{ server_version: string }>('SHOW server_version');
      expect(rows[0]!.server_version).toMatch(/^18\./);
    } finally {
      await client.end();
    }
    const port = Number(new URL(process.env.TEST_DATABASE_URL!).port);
    const postgres = (await runContainers()).filter((c) =>
      c.Image.endsWith(TEST_IMAGES.postgres.split('/').pop()!),
    );
    expect(postgres.map((c) => c.Ports.map((p) => p.PublicPort)).flat()).toContain(port);
  });

  it('starts Redis in a container that stops and comes back on the same port', async () => {
    const redis = await startTestRedis();
    try {
      expect(
        (await runContainers()).some((c) =>
          c.Ports.some((p) => p.PublicPort === Number(new URL(redis.url).port)),
        ),
      ).toBe(true);
      await redis.stop();
      expect(await accepts(redis.url)).toBe(false);
      await redis.start();
      expect(await accepts(redis.url)).toBe(true);
    } finally {
      await redis.close();
    }
  });
});
