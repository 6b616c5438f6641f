import { connect } from 'node:net';
import { containersEnabled, startTestContainer, TEST_IMAGES } from './containers.js';
import { localServer } from './local-server.js';
import { freePort } from './ports.js';

export interface TestRedis {
  url: string;
  /** Stops the server (a test of Redis being down); `start` brings it back on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops it for good. */
  close(): Promise<void>;
}

function accepting(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * A real Redis for tests, in memory only: a container of the compose file's Redis image when
 * the run has a container engine (see containers.ts), else a `redis-server` (REDIS_SERVER or
 * /usr/bin/redis-server, Debian's package) started on a free port.
 */
export async function startTestRedis(): Promise<TestRedis> {
  if (containersEnabled()) {
    const container = await startTestContainer({
      image: TEST_IMAGES.redis,
      ports: [6379],
      command: ['redis-server', '--save', '', '--appendonly', 'no'],
    });
    return { url: `redis://127.0.0.1:${container.port(6379)}`, ...container };
  }
  const port = await freePort();
  const binary = process.env.REDIS_SERVER ?? '/usr/bin/redis-server';
  const server = localServer(
    'redis-server',
    binary,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    () => accepting(port),
  );
  await server.start();
  return { url: `redis://127.0.0.1:${port}`, ...server, close: server.stop };
}
