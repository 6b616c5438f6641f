import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import type { ClientProxy } from '@nestjs/microservices';
import {
  FOLLOWERS_FIRST_CURSOR,
  Patterns,
  SOCIAL_PAGE_MAX,
  type ArchiveFollower,
  type FollowersPage,
  type RpcAnswer,
  type RpcRequest,
  type TypedPattern,
} from '@blog/contracts';
import { createRpcClient, currentRequestId, sendTyped } from '@blog/server-kit';
import type { PostsConfig } from '../config.js';
import { POSTS_CONFIG } from '../tokens.js';

/** Followers a page of the social service's collection holds (its limit is 1000). */
const PAGE = 500;

/** The social service did not list the followers: the export stops (an archive without them is not the whole blog). */
export class FollowersUnavailableError extends Error {
  override name = 'FollowersUnavailableError';
}

/** The posts service's own client of the social service: an export lists the accepted followers. */
@Injectable()
export class SocialClient implements OnApplicationShutdown {
  private readonly client: ClientProxy;

  constructor(@Inject(POSTS_CONFIG) config: PostsConfig) {
    this.client = createRpcClient(config, 'posts', { host: config.SOCIAL_HOST, port: config.SOCIAL_PORT });
  }

  /**
   * The accepted followers, oldest first, a page at a time: handle and actor from the
   * followers collection, and when each followed from the admin's list (matched by handle,
   * which both name the same way; null for one that followed between the two walks).
   */
  async *followers(): AsyncGenerator<ArchiveFollower[]> {
    const since = new Map<string, string>();
    for (let page = 1; ; page++) {
      const result = await this.call(Patterns.social.listFollowers, {
        status: 'accepted',
        page,
        pageSize: SOCIAL_PAGE_MAX,
      });
      for (const follower of result.items) since.set(follower.handle, follower.since);
      if (result.items.length < SOCIAL_PAGE_MAX || page * SOCIAL_PAGE_MAX >= result.total) break;
    }
    for (let cursor: string | null = FOLLOWERS_FIRST_CURSOR; cursor !== null;) {
      const collectionPage: FollowersPage = await this.call(Patterns.social.followersPage, {
        cursor,
        limit: PAGE,
      });
      if (collectionPage.items.length)
        yield collectionPage.items.map((follower) => ({
          // The collection names an actor without a handle by its URI.
          handle: follower.handle.startsWith('@') ? follower.handle : null,
          actorUri: follower.actorUri,
          since: since.get(follower.handle) ?? null,
        }));
      cursor = collectionPage.nextCursor;
    }
  }

  private async call<P extends TypedPattern>(pattern: P, data: RpcRequest<P>): Promise<RpcAnswer<P>> {
    try {
      return await sendTyped(this.client, pattern, data, {
        requestId: currentRequestId() ?? 'export',
        timeoutMs: 30_000,
      });
    } catch (error) {
      // An RpcErrorBody names its `error`; a connection's failure its `message` or `code`.
      const { error: body, message, code } = (error ?? {}) as Record<string, unknown>;
      const reason = [body, message, code].find((part) => typeof part === 'string' && part);
      throw new FollowersUnavailableError(
        `The fediverse followers could not be listed: the social service did not answer (${String(reason ?? 'no reason given')})`,
      );
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.client.close();
  }
}
