import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import type { ClientProxy } from '@nestjs/microservices';
import { Patterns } from '@blog/contracts';
import { createRpcClient, currentRequestId, sendTyped } from '@blog/server-kit';
import { SOCIAL_CONFIG, type SocialConfig } from '../config.js';

/** The media service fetches within 5 s; this leaves room for its decoding and storing. */
const AVATAR_TIMEOUT_MS = 10_000;
/** A picture may be larger than an avatar: more to fetch and decode. */
const PICTURE_TIMEOUT_MS = 20_000;

/** The social service's client of the media service: remote authors' avatars and Reader pictures, stored locally. */
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

  /** The blog's copy of a Reader picture, or null when it cannot be had (the entry shows without it). */
  async cachePicture(url: string): Promise<string | null> {
    try {
      const { key } = await sendTyped(
        this.client,
        Patterns.media.cachePicture,
        { url },
        { requestId: currentRequestId() ?? 'federation', timeoutMs: PICTURE_TIMEOUT_MS },
      );
      return key;
    } catch {
      return null;
    }
  }

  /** Reader pictures no entry shows any more. */
  async dropPictures(keys: string[]): Promise<void> {
    await sendTyped(
      this.client,
      Patterns.media.dropPictures,
      { keys },
      { requestId: currentRequestId() ?? 'federation', timeoutMs: PICTURE_TIMEOUT_MS },
    );
  }

  async onApplicationShutdown(): Promise<void> {
    await this.client.close();
  }
}
