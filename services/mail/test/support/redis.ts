import { freePort } from '@blog/server-kit/testing';
import { spawn } from 'node:child_process';
import { connect } from 'node:net';

export interface TestRedis {
  url: string;
  stop(): Promise<void>;
}

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => {
      socket.destroy();
      resolve(data.toString().startsWith('+PONG'));
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * A real Redis for BullMQ tests: TEST_REDIS_URL when set, otherwise a `redis-server` of its
 * own on a free port, in memory only (Debian package redis-server; CI installs it).
 */
export async function startTestRedis(): Promise<TestRedis> {
  if (process.env.TEST_REDIS_URL) return { url: process.env.TEST_REDIS_URL, stop: async () => {} };
  const port = await freePort();
  const child = spawn(
    process.env.REDIS_SERVER ?? 'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const failed = new Promise<never>((_, reject) =>
    child.once('error', (error) =>
      reject(new Error(`cannot start redis-server (${error.message}): install it or set TEST_REDIS_URL`)),
    ),
  );
  const ready = (async () => {
    for (let i = 0; i < 200; i++) {
      if (await ping(port)) return;
      if (child.exitCode !== null) throw new Error(`redis-server exited with code ${child.exitCode}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error('redis-server did not answer within 5 s');
  })();
  await Promise.race([ready, failed]);
  return {
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
