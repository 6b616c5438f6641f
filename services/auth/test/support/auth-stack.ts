import type { INestMicroservice } from '@nestjs/common';
import { ClientProxyFactory, Transport, type ClientProxy } from '@nestjs/microservices';
import { createTestDatabase, freePort, type TestDatabase } from '@blog/server-kit/testing';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { firstValueFrom } from 'rxjs';
import { loadAuthConfig, startAuthService, type AuthConfig } from '../../src/index.js';

export const SECRET = 'integration-test-secret-0123456789abcdef';

export interface RpcFailure {
  status: number;
  error: string;
  field?: string;
  retryAfter?: number;
}

/** The auth service on its own database, over real TCP, and the calls a test makes to it. */
export interface AuthStack {
  db: TestDatabase;
  config: AuthConfig;
  send<T>(pattern: string, data: unknown): Promise<T>;
  /** The error a call fails with; throws if it succeeds. */
  failure(pattern: string, data: unknown): Promise<RpcFailure>;
  /** Stops the service and starts it again on the same database and port. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export async function startAuthStack(): Promise<AuthStack> {
  const db = await createTestDatabase('auth');
  const port = await freePort();
  const config = loadAuthConfig({
    DATABASE_URL: db.url,
    JWT_SECRET: SECRET,
    AUTH_PORT: String(port),
    DATA_DIR: await mkdtemp(join(tmpdir(), 'auth-data-')),
    LOG_LEVEL: 'warn',
  });
  let service: INestMicroservice;
  let client: ClientProxy;
  const start = async () => {
    service = await startAuthService(config);
    client = ClientProxyFactory.create({ transport: Transport.TCP, options: { host: '127.0.0.1', port } });
  };
  await start();
  const send = <T>(pattern: string, data: unknown) =>
    firstValueFrom(client.send<T>(pattern, { requestId: 'test', data }));
  return {
    db,
    config,
    send,
    async failure(pattern, data) {
      try {
        await send(pattern, data);
      } catch (error) {
        return error as RpcFailure;
      }
      throw new Error('expected the call to fail');
    },
    async restart() {
      client.close();
      await service.close();
      await start();
    },
    async stop() {
      client?.close();
      await service?.close();
      await db.drop();
    },
  };
}
