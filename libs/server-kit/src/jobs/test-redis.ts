import { connect } from 'node:net';
import { localServer } from '../testing/local-server.js';
import { freePort } from '../testing/ports.js';

export interface TestRedis {
  url: string;
  /** Stops the server (a test of Redis being down); `start` brings it back on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
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
 * A Redis for tests: TEST_REDIS_URL when set (then stop/start are not possible), else a
 * `redis-server` (REDIS_SERVER or /usr/bin/redis-server) started on a free port, no persistence.
 */
export async function startTestRedis(): Promise<TestRedis & { close(): Promise<void>; external: boolean }> {
  const external = process.env.TEST_REDIS_URL;
  if (external) {
    const unsupported = async () => {
      throw new Error('TEST_REDIS_URL is external: it cannot be stopped by the test');
    };
    return { url: external, external: true, stop: unsupported, start: unsupported, close: async () => {} };
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
  return { url: `redis://127.0.0.1:${port}`, external: false, ...server, close: server.stop };
}
