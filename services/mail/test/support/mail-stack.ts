import type { INestMicroservice } from '@nestjs/common';
import { ClientProxyFactory, Transport } from '@nestjs/microservices';
import { Patterns, type IdempotentAnswer, type PostView } from '@blog/contracts';
import { loadPostsConfig, startPostsService } from '@blog/posts';
import { createTestDatabase, freePort, rpcTestClient, type TestDatabase } from '@blog/server-kit/testing';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { firstValueFrom } from 'rxjs';
import { loadMailConfig, startMailService } from '../../src/index.js';

/** A mail service replica with its RPC client. */
export interface MailReplica {
  app: INestMicroservice;
  port: number;
  send<T>(pattern: string, data?: unknown): Promise<T>;
  /** The error body of a call that must fail. */
  failure(
    pattern: string,
    data?: unknown,
  ): Promise<{ status: number; error: string; field?: string; retryAfter?: number }>;
  close(): Promise<void>;
}

/** One test database with the real posts service and any number of real mail service replicas. */
export interface MailStack {
  db: TestDatabase;
  env: Record<string, string>;
  sql: pg.Client;
  startMail(extraEnv?: Record<string, string>): Promise<MailReplica>;
  /** Creates a post through the posts service (`date` picks its created_at). */
  createPost(fields: Record<string, string>, files?: unknown[]): Promise<PostView>;
  stop(): Promise<void>;
}

export async function startMailStack(env: Record<string, string>): Promise<MailStack> {
  const db = await createTestDatabase('mail');
  const dataDir = await mkdtemp(join(tmpdir(), 'mail-test-'));
  const postsPort = await freePort();
  const base: Record<string, string> = {
    DATABASE_URL: db.url,
    DATA_DIR: dataDir,
    POSTS_PORT: String(postsPort),
    LOG_LEVEL: 'error',
    ...env,
  };
  const posts = await startPostsService(loadPostsConfig(base), base);
  const postsClient = ClientProxyFactory.create({
    transport: Transport.TCP,
    options: { host: '127.0.0.1', port: postsPort },
  });
  const sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
  const replicas = new Set<MailReplica>();

  return {
    db,
    env: base,
    sql,
    async startMail(extraEnv = {}) {
      const port = await freePort();
      const app = await startMailService(loadMailConfig({ ...base, ...extraEnv, MAIL_PORT: String(port) }));
      const client = rpcTestClient(port);
      let closed = false;
      const replica: MailReplica = {
        app,
        port,
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
    async createPost(fields, files = []) {
      const { answer } = await firstValueFrom(
        postsClient.send<IdempotentAnswer<PostView>>(Patterns.posts.create, {
          requestId: 'test',
          data: { fields: { category: 'Projects', ...fields }, files },
        }),
      );
      return answer;
    },
    async stop() {
      await Promise.all([...replicas].map((replica) => replica.close().catch(() => undefined)));
      postsClient.close();
      await posts.close();
      await sql.end();
      await db.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it returns a truthy value. */
export async function eventually<T>(check: () => Promise<T> | T, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(25);
  }
}
