// The container engine of a test run, for testcontainers (see src/testing/containers.ts).
// TEST_ENGINE=embedded: none, the embedded servers as before. TEST_ENGINE=containers: one is
// required. Unset: DOCKER_HOST when set; else, with podman and debootstrap installed, the
// stand-in images are built (cached, infra/test/images) and `podman system service` answers
// on a socket of this run; else none.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildStandIns, podmanEnv, startPodmanService } from '../../../infra/test/images/build.mjs';

const onPath = (program) => spawnSync('sh', ['-c', `command -v ${program}`]).status === 0;
/** The stand-ins the test servers run (see TEST_IMAGES); node first, the others build on it. */
const TEST_STAND_INS = ['node', 'postgres', 'redis', 'minio', 'mailpit'];

/** Sets the variables testcontainers and the test helpers read; returns a stop function, or null. */
export async function startContainerEngine() {
  const wanted = process.env.TEST_ENGINE ?? 'auto';
  if (wanted === 'embedded') return null;
  let stop = () => {};
  if (!process.env.DOCKER_HOST) {
    const missing = ['podman', 'debootstrap', 'curl'].filter((program) => !onPath(program));
    if (missing.length) {
      if (wanted === 'containers')
        throw new Error(`TEST_ENGINE=containers needs DOCKER_HOST or ${missing.join(', ')} installed`);
      return null;
    }
    const started = Date.now();
    const built = buildStandIns(TEST_STAND_INS, () => undefined);
    if (Object.keys(built).length)
      console.log(`[test engine] stand-ins built in ${Math.round((Date.now() - started) / 1000)} s`);
    const dir = await mkdtemp(join(tmpdir(), 'blog-test-engine-'));
    const service = await startPodmanService(join(dir, 'podman.sock'));
    Object.assign(process.env, podmanEnv(), { DOCKER_HOST: service.dockerHost });
    stop = async () => {
      service.stop();
      await rm(dir, { recursive: true, force: true });
    };
  }
  Object.assign(process.env, {
    TEST_CONTAINERS: '1',
    TEST_RUN_ID: randomBytes(6).toString('hex'),
    // Ryuk (testcontainers' reaper) is an image no registry here serves; removeRunContainers does its work.
    TESTCONTAINERS_RYUK_DISABLED: 'true',
  });
  return stop;
}

/** Removes every container this run started (also those of test files that failed before their afterAll). */
export async function removeRunContainers() {
  if (process.env.TEST_CONTAINERS !== '1') return;
  const { getContainerRuntimeClient } = await import('testcontainers');
  const client = await getContainerRuntimeClient();
  const ours = await client.container.dockerode.listContainers({
    all: true,
    filters: { label: [`blog.test-run=${process.env.TEST_RUN_ID}`] },
  });
  await Promise.all(ours.map((c) => client.container.dockerode.getContainer(c.Id).remove({ force: true })));
}
