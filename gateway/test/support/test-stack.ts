import type { INestApplication, INestMicroservice } from '@nestjs/common';
import { createTestDatabase, freePort, type TestDatabase } from '@blog/server-kit/testing';
import { loadAuthConfig, startAuthService } from '@blog/auth';
import { loadMailConfig, startMailService } from '@blog/mail';
import { loadMediaConfig, startMediaService } from '@blog/media';
import { loadPostsConfig, startPostsService } from '@blog/posts';
import { loadSocialConfig, startSocialService } from '@blog/social';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGateway, loadGatewayConfig } from '../../src/index.js';

export const TEST_SECRET = 'gateway-test-secret-0123456789abcdefghij';
export const ADMIN = { username: 'owner', password: 'owner-password-123' };

/** The real gateway and the five real services, in this process, on free ports, over one test database. */
export interface TestStack {
  baseUrl: string;
  env: Record<string, string>;
  gateway: INestApplication;
  services: Record<'auth' | 'posts' | 'media', INestMicroservice> & {
    mail?: INestMicroservice;
    social?: INestMicroservice;
  };
  restartAuth(): Promise<void>;
  restartPosts(): Promise<void>;
  stop(): Promise<void>;
}

/** `without` leaves a service unstarted (its port can then be taken by a stand-in). */
export async function startTestStack(
  extraEnv: Record<string, string> = {},
  without: ('mail' | 'social')[] = [],
): Promise<TestStack> {
  // A DATABASE_URL given by the caller is used as it is (and not dropped at the end).
  const db: TestDatabase | null = extraEnv.DATABASE_URL ? null : await createTestDatabase('stack');
  const [gatewayPort, authPort, postsPort, mediaPort, mailPort, socialPort] = await Promise.all(
    Array.from({ length: 6 }, () => freePort()),
  );
  const env: Record<string, string> = {
    DATABASE_URL: db?.url ?? '',
    JWT_SECRET: TEST_SECRET,
    DATA_DIR: await mkdtemp(join(tmpdir(), 'stack-data-')),
    ADMIN_USERNAME: ADMIN.username,
    ADMIN_PASSWORD: ADMIN.password,
    PORT: String(gatewayPort),
    HOST: '127.0.0.1',
    AUTH_PORT: String(authPort),
    POSTS_PORT: String(postsPort),
    MEDIA_PORT: String(mediaPort),
    MAIL_PORT: String(mailPort),
    SOCIAL_PORT: String(socialPort),
    LOG_LEVEL: 'error',
    // The suites register many accounts from 127.0.0.1; the per-address limit has its own test.
    REGISTER_MAX_PER_IP: '10000',
    // The suites' picture servers listen on 127.0.0.1; any other private address stays refused.
    OUTBOUND_ALLOW: '127.0.0.1',
    ...extraEnv,
  };
  const services = {
    auth: await startAuthService(loadAuthConfig(env)),
    posts: await startPostsService(loadPostsConfig(env), env),
    media: await startMediaService(loadMediaConfig(env), env),
    mail: without.includes('mail') ? undefined : await startMailService(loadMailConfig(env)),
    social: without.includes('social') ? undefined : await startSocialService(loadSocialConfig(env)),
  };
  const gateway = await createGateway(loadGatewayConfig(env), env);
  return {
    baseUrl: `http://127.0.0.1:${env.PORT}`, // the caller may choose the port (PORT)
    env,
    gateway,
    services,
    async restartAuth() {
      services.auth = await startAuthService(loadAuthConfig(env));
    },
    async restartPosts() {
      services.posts = await startPostsService(loadPostsConfig(env), env);
    },
    async stop() {
      await gateway.close();
      await Promise.all(Object.values(services).map((service) => service?.close().catch(() => undefined)));
      await db?.drop();
    },
  };
}

export async function api(
  stack: TestStack,
  path: string,
  init: { method?: string; body?: unknown; token?: string; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { ...init.headers };
  if (init.body !== undefined && typeof init.body !== 'string') headers['content-type'] = 'application/json';
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  const response = await fetch(`${stack.baseUrl}${path}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers,
    body:
      init.body === undefined
        ? undefined
        : typeof init.body === 'string'
          ? init.body
          : JSON.stringify(init.body),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return {
    status: response.status,
    headers: response.headers,
    json: json as Record<string, unknown> & unknown[],
    text,
  };
}

export async function loginAs(stack: TestStack, username: string, password: string): Promise<string> {
  const response = await api(stack, '/api/auth/login', { body: { username, password } });
  if (response.status !== 200) throw new Error(`login failed: ${response.status} ${response.text}`);
  return (response.json as unknown as { token: string }).token;
}

/** `npm run admin -- …` (scripts/admin.mjs, on the built code) against this stack's database. */
export async function runAdminCommand(stack: TestStack, args: string[]) {
  const { execFile } = await import('node:child_process');
  const script = new URL('../../../scripts/admin.mjs', import.meta.url).pathname;
  return new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
    execFile(
      process.execPath,
      [script, ...args],
      { env: { ...process.env, DATABASE_URL: stack.env.DATABASE_URL } },
      (error, stdout, stderr) => done({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}
