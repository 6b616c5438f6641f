import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { ClientProxy } from '@nestjs/microservices';
import {
  isRpcErrorBody,
  Patterns,
  type BlogArchive,
  type MailListResult,
  type SubscriberView,
} from '@blog/contracts';
import { createRpcClient, currentRequestId } from '@blog/server-kit';
import { firstValueFrom, timeout } from 'rxjs';
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
    firstValueFrom(
      this.client
        .send(Patterns.media.enqueue, { requestId: currentRequestId() ?? 'import', data: { ids } })
        .pipe(timeout(5000)),
    ).catch((error: Error) => this.logger.debug(`media not told at once (the sweep will): ${error.message}`));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.client.close();
  }
}

/** The posts service's own client of the mail service: an export lists its subscribers, an import restores them. */
@Injectable()
export class MailClient implements OnApplicationShutdown {
  private readonly client: ClientProxy;

  constructor(@Inject(POSTS_CONFIG) config: PostsConfig) {
    this.client = createRpcClient(config, 'posts', { host: config.MAIL_HOST, port: config.MAIL_PORT });
  }

  /** `madeHere`: the archive is this blog's own (else confirmed subscribers come back unconfirmed). */
  async restoreSubscribers(
    subscribers: BlogArchive['subscribers'],
    madeHere: boolean,
  ): Promise<{ restored: number; unconfirmed: number }> {
    const answer = await firstValueFrom(
      this.client
        .send(Patterns.mail.restoreSubscribers, {
          requestId: currentRequestId() ?? 'import',
          data: { subscribers, madeHere },
        })
        .pipe(timeout(30_000)),
    );
    if (isRpcErrorBody(answer)) throw new Error(answer.error);
    return answer as { restored: number; unconfirmed: number };
  }

  /** One page of the subscribers, every status (the export's list). */
  async listSubscribers(page: number, limit: number): Promise<MailListResult<SubscriberView>> {
    const answer = await firstValueFrom(
      this.client
        .send(Patterns.mail.listSubscribers, {
          requestId: currentRequestId() ?? 'export',
          data: { page, limit },
        })
        .pipe(timeout(30_000)),
    );
    if (isRpcErrorBody(answer)) throw new Error(answer.error);
    return answer as MailListResult<SubscriberView>;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.client.close();
  }
}
