import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import type { ClientProxy } from '@nestjs/microservices';
import { Patterns } from '@blog/contracts';
import { createRpcClient, currentRequestId, sendTyped } from '@blog/server-kit';
import { SOCIAL_CONFIG, type SocialConfig } from '../config.js';

/** The media service fetches within 5 s; this leaves room for its decoding and storing. */
const AVATAR_TIMEOUT_MS = 10_000;

/** The social service's client of the media service: remote authors' avatars, stored locally. */
@Injectable()
export class MediaClient implements OnApplicationShutdown {
  private readonly client: ClientProxy;

  constructor(@Inject(SOCIAL_CONFIG) config: SocialConfig) {
    this.client = createRpcClient(config, 'social', { host: config.MEDIA_HOST, port: config.MEDIA_PORT });
  }

  /** The stored copy's key (never hot-linked), or null when it cannot be had: a comment goes on without. */
  async cacheAvatar(url: string): Promise<string | null> {
    try {
      const { key } = await sendTyped(
        this.client,
        Patterns.media.cacheAvatar,
        { url },
        {
          requestId: currentRequestId() ?? 'federation',
          timeoutMs: AVATAR_TIMEOUT_MS,
        },
      );
      return key;
    } catch {
      return null;
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.client.close();
  }
}
