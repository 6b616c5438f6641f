import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import type { ClientProxy } from '@nestjs/microservices';
import {
  Patterns,
  type BlogArchive,
  type MailListResult,
  type RpcRequest,
  type SubscriberView,
} from '@blog/contracts';
import { createRpcClient, currentRequestId, sendTyped } from '@blog/server-kit';
import type { PostsConfig } from '../config.js';
import { POSTS_CONFIG } from '../tokens.js';

type RestoreRequest = RpcRequest<typeof Patterns.mail.restoreSubscribers>;

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
    return sendTyped(
      this.client,
      Patterns.mail.restoreSubscribers,
      // An archive's statuses are whatever its file says: the mail service's schema checks each one.
      { subscribers: subscribers as RestoreRequest['subscribers'], madeHere },
      {
        requestId: currentRequestId() ?? 'import',
        timeoutMs: 30_000,
      },
    );
  }

  /** One page of the subscribers, every status (the export's list). */
  async listSubscribers(page: number, limit: number): Promise<MailListResult<SubscriberView>> {
    return sendTyped(
      this.client,
      Patterns.mail.listSubscribers,
      { page, limit },
      {
        requestId: currentRequestId() ?? 'export',
        timeoutMs: 30_000,
      },
    );
  }

  /** Tells the owner comments wait for approval (the caller decides how often). */
  async commentPending(notice: RpcRequest<typeof Patterns.mail.commentPending>): Promise<{ sent: boolean }> {
    return sendTyped(this.client, Patterns.mail.commentPending, notice, {
      requestId: currentRequestId() ?? 'comment',
      timeoutMs: 10_000,
    });
  }

  /** Tells the owner the backups need a look (the caller sends it at most once a day). */
  async backupWarning(notice: RpcRequest<typeof Patterns.mail.backupWarning>): Promise<{ sent: boolean }> {
    return sendTyped(this.client, Patterns.mail.backupWarning, notice, {
      requestId: currentRequestId() ?? 'backup',
      timeoutMs: 10_000,
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.client.close();
  }
}
