import { createServer, type Server, type Socket } from 'node:net';
import { freePort } from '@blog/server-kit/testing';
import { api, ADMIN, startTestStack, type TestStack } from './support/test-stack.js';

describe('a service that is down or silent', () => {
  let stack: TestStack;
  let silent: Server;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    // The mail "service" accepts connections and never answers.
    const mailPort = await freePort();
    silent = createServer((socket) => sockets.push(socket)).listen(mailPort, '127.0.0.1');
    stack = await startTestStack(
      { RPC_TIMEOUT_MS: '800', HEALTH_TIMEOUT_MS: '500', MAIL_PORT: String(mailPort) },
      ['mail'],
    );
  }, 60_000);
  afterAll(async () => {
    await stack?.stop();
    for (const socket of sockets) socket.destroy();
    silent?.close();
  });

  it('reports the silent service in health with 503', async () => {
    // The silent service never answers: health ends at HEALTH_TIMEOUT_MS (500 ms; 530 ms on an
    // idle machine). 10 times that: a hang fails, a loaded machine does not.
    const started = Date.now();
    const response = await api(stack, '/api/health');
    expect(Date.now() - started).toBeLessThan(5000);
    expect(response.status).toBe(503);
    expect(response.json).toMatchObject({ status: 'unavailable', down: ['mail'] });
  });

  it('answers 503 quickly while auth is down, then recovers when it is back', async () => {
    await stack.services.auth.close();
    const started = Date.now();
    const response = await api(stack, '/api/auth/login', { body: ADMIN });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(response.status).toBe(503);
    expect(response.json).toEqual({ error: 'Service unavailable' });
    const health = await api(stack, '/api/health');
    expect(health.json).toMatchObject({ down: ['auth', 'mail'] });

    await stack.restartAuth();
    const again = await api(stack, '/api/auth/login', { body: ADMIN });
    expect(again.status).toBe(200);
  });
});
