import { connect } from 'node:net';
import { freePort } from './ports.js';

/**
 * Test servers in containers, through testcontainers, when the test run has a container
 * engine: Jest's global setup (test-setup/engine.mjs) sets TEST_CONTAINERS=1, DOCKER_HOST and
 * TESTCONTAINERS_RYUK_DISABLED (Ryuk's image cannot be pulled here; the global teardown removes
 * every container labelled with the run's TEST_RUN_ID instead). Without an engine the helpers
 * that call this start their servers in-process or as local binaries, as before.
 */
export const containersEnabled = (): boolean => process.env.TEST_CONTAINERS === '1';

/** The label the global teardown sweeps by. */
export const TEST_RUN_LABEL = 'blog.test-run';

/** The images the tests run: the names the compose file uses (stand-ins here, see infra/test/images). */
export const TEST_IMAGES = {
  postgres: 'docker.io/library/postgres:18-bookworm',
  redis: 'docker.io/library/redis:7.4-bookworm',
  s3: 'docker.io/minio/minio:RELEASE.2025-04-22T22-12-26Z',
  smtp: 'docker.io/axllent/mailpit:v1.31.3',
} as const;

export interface TestContainerOptions {
  image: string;
  /** Container ports, each published on a free host port of 127.0.0.1. */
  ports: number[];
  environment?: Record<string, string>;
  command?: string[];
  /** A line the server logs once it serves (else: its first port accepts connections). */
  readyLog?: RegExp;
}

export interface RunningTestContainer {
  /** Host port published for a container port. */
  port(containerPort: number): number;
  /** Stops the container but keeps it (a test of the server being down); `start` brings it back on the same ports. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Removes it. */
  close(): Promise<void>;
}

const accepting = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

async function untilAccepting(port: number, ms: number): Promise<void> {
  for (const deadline = Date.now() + ms; !(await accepting(port));) {
    if (Date.now() > deadline)
      throw new Error(`nothing accepts connections on 127.0.0.1:${port} after ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Starts a container with testcontainers; host ports are fixed so a stopped container comes back on them. */
export async function startTestContainer(options: TestContainerOptions): Promise<RunningTestContainer> {
  // Loaded when called: testcontainers is a dev dependency, never needed by a running blog.
  const { GenericContainer, Wait, getContainerRuntimeClient } = await import('testcontainers');
  const hostPorts = new Map<number, number>();
  for (const port of options.ports) hostPorts.set(port, await freePort());
  let definition = new GenericContainer(options.image)
    .withExposedPorts(...options.ports.map((container) => ({ container, host: hostPorts.get(container)! })))
    .withEnvironment(options.environment ?? {})
    .withLabels({ [TEST_RUN_LABEL]: process.env.TEST_RUN_ID ?? 'manual' })
    .withWaitStrategy(options.readyLog ? Wait.forLogMessage(options.readyLog) : Wait.forListeningPorts())
    .withStartupTimeout(120_000);
  if (options.command) definition = definition.withCommand(options.command);
  const started = await definition.start();
  const client = await getContainerRuntimeClient();
  const container = client.container.getById(started.getId());
  const first = hostPorts.get(options.ports[0]!)!;
  return {
    port: (containerPort) => hostPorts.get(containerPort)!,
    stop: () => client.container.stop(container, { timeout: 0 }),
    async start() {
      await client.container.start(container);
      await untilAccepting(first, 30_000);
    },
    close: async () => {
      await started.stop({ timeout: 0, remove: true });
    },
  };
}
