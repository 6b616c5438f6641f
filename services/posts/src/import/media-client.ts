import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { ClientProxy } from '@nestjs/microservices';
import { Patterns } from '@blog/contracts';
import { createRpcClient, currentRequestId, sendTyped } from '@blog/server-kit';
import type { PostsConfig } from '../config.js';
import { POSTS_CONFIG } from '../tokens.js';

/**
 * The posts service's own client of the media service, to have imported media processed at
 * once. Best effort: the media service's periodic sweep queues anything a lost call missed.
 */
@Injectable()
export class MediaClient implements OnApplicationShutdown {
  private readonly logger = new Logger(MediaClient.name);
  private readonly client: ClientProxy;

  constructor(@Inject(POSTS_CONFIG) config: PostsConfig) {
    this.client = createRpcClient(config, 'posts', { host: config.MEDIA_HOST, port: config.MEDIA_PORT });
  }

  enqueue(ids: string[]): void {
    sendTyped(
      this.client,
      Patterns.media.enqueue,
      { ids },
      {
        requestId: currentRequestId() ?? 'import',
        timeoutMs: 5000,
      },
    ).catch((error: Error) => this.logger.debug(`media not told at once (the sweep will): ${error.message}`));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.client.close();
  }
}
