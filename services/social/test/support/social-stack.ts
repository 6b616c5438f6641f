import type { INestMicroservice } from '@nestjs/common';
import type { RpcErrorBody } from '@blog/contracts';
import { createTestDatabase, freePort, rpcTestClient, type TestDatabase } from '@blog/server-kit/testing';
import pg from 'pg';
import { loadSocialConfig, startSocialService } from '../../src/index.js';

/** A social service process (in this one) with its RPC client. */
export interface SocialReplica {
  app: INestMicroservice;
  send<T>(pattern: string, data?: unknown): Promise<T>;
  /** The error body of a call that must fail. */
  failure(pattern: string, data?: unknown): Promise<RpcErrorBody>;
  close(): Promise<void>;
}

/** One test database and any number of real social service replicas on it. */
export interface SocialStack {
  db: TestDatabase;
  sql: pg.Client;
  start(env?: Record<string, string>): Promise<SocialReplica>;
  stop(): Promise<void>;
}

export async function startSocialStack(): Promise<SocialStack> {
  const db = await createTestDatabase('social');
  const sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
  const replicas = new Set<SocialReplica>();
  return {
    db,
    sql,
    async start(env = {}) {
      const port = await freePort();
      const app = await startSocialService(
        loadSocialConfig({ DATABASE_URL: db.url, SOCIAL_PORT: String(port), LOG_LEVEL: 'error', ...env }),
      );
      const client = rpcTestClient(port);
      let closed = false;
      const replica: SocialReplica = {
        app,
        send: client.send,
        failure: client.failure,
        async close() {
          if (closed) return;
          closed = true;
          replicas.delete(replica);
          client.close();
          await app.close();
        },
      };
      replicas.add(replica);
      return replica;
    },
    async stop() {
      await Promise.all([...replicas].map((replica) => replica.close().catch(() => undefined)));
      await sql.end();
      await db.drop();
    },
  };
}
