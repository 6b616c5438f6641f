import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import type { ClientProxy } from '@nestjs/microservices';
import { Patterns, type PublicUser } from '@blog/contracts';
import { createRpcClient, currentRequestId, sendTyped } from '@blog/server-kit';
import type { PostsConfig } from '../config.js';
import { POSTS_CONFIG } from '../tokens.js';

/** The posts service's own client of the auth service: an export lists the accounts (never their passwords). */
@Injectable()
export class AuthClient implements OnApplicationShutdown {
  private readonly client: ClientProxy;

  constructor(@Inject(POSTS_CONFIG) config: PostsConfig) {
    this.client = createRpcClient(config, 'posts', { host: config.AUTH_HOST, port: config.AUTH_PORT });
  }

  async listUsers(): Promise<PublicUser[]> {
    return sendTyped(
      this.client,
      Patterns.auth.listUsers,
      {},
      {
        requestId: currentRequestId() ?? 'export',
        timeoutMs: 30_000,
      },
    );
  }

  async onApplicationShutdown(): Promise<void> {
    await this.client.close();
  }
}
