import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, connect } from 'node:net';

export interface TestRedis {
  url: string;
  /** Stops the server (a test of Redis being down); `start` brings it back on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
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
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn(
      binary,
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      {
        stdio: 'ignore',
      },
    );
    for (let i = 0; i < 100; i++) {
      if (await accepting(port)) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`redis-server did not start on port ${port}`);
  };
  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      running.once('exit', () => resolve());
      running.kill('SIGKILL');
    });
  };
  await start();
  return { url: `redis://127.0.0.1:${port}`, external: false, start, stop, close: stop };
}
