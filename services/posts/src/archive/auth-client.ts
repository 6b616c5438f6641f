import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import type { ClientProxy } from '@nestjs/microservices';
import { isRpcErrorBody, Patterns, type PublicUser } from '@blog/contracts';
import { createRpcClient, currentRequestId } from '@blog/server-kit';
import { firstValueFrom, timeout } from 'rxjs';
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
    const answer = await firstValueFrom(
      this.client
        .send(Patterns.auth.listUsers, { requestId: currentRequestId() ?? 'export', data: {} })
        .pipe(timeout(30_000)),
    );
    if (isRpcErrorBody(answer)) throw new Error(answer.error);
    return answer as PublicUser[];
  }

  async onApplicationShutdown(): Promise<void> {
    await this.client.close();
  }
}
