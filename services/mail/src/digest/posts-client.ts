import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import type { ClientProxy } from '@nestjs/microservices';
import {
  ErrorText,
  isRpcErrorBody,
  Patterns,
  POSTS_PAGE_MAX,
  type NewsletterEvent,
  type NewsletterPostAnswer,
  type PostListResult,
  type PostView,
  type RpcAnswer,
  type RpcRequest,
  type SiteConfig,
  type TypedPattern,
} from '@blog/contracts';
import { createRpcClient, currentRequestId, RpcError, sendTyped } from '@blog/server-kit';
import { MAIL_CONFIG, type MailConfig } from '../config.js';

const TIMEOUT_MS = 15_000;
/** A digest shows at most this many posts (a very busy week links to the site for the rest). */
export const DIGEST_POSTS_MAX = 50;

/** The mail service's own client of the posts service (services ask each other, never read other schemas). */
@Injectable()
export class PostsClient implements OnApplicationShutdown {
  private readonly client: ClientProxy;

  constructor(@Inject(MAIL_CONFIG) config: MailConfig) {
    this.client = createRpcClient(config, 'mail', { host: config.POSTS_HOST, port: config.POSTS_PORT });
  }

  /** Published posts dated in [from, to), newest first, as visitors see them. */
  async postsBetween(from: Date, to: Date): Promise<{ posts: PostView[]; total: number }> {
    const posts: PostView[] = [];
    let total = 0;
    // The list reads a `to` of exactly midnight UTC as a whole day: 1 ms earlier keeps the window exact.
    const toParam = to.getTime() % 86_400_000 === 0 ? new Date(to.getTime() - 1) : to;
    for (let page = 1; posts.length < DIGEST_POSTS_MAX; page++) {
      const result = await this.list({
        from: from.toISOString(),
        to: toParam.toISOString(),
        page,
        limit: POSTS_PAGE_MAX,
      });
      total = result.total;
      posts.push(
        ...result.items.filter((post) => {
          const at = Date.parse(post.created_at);
          return at >= from.getTime() && at < to.getTime();
        }),
      );
      if (result.items.length < POSTS_PAGE_MAX || page * POSTS_PAGE_MAX >= total) break;
    }
    return { posts: posts.slice(0, DIGEST_POSTS_MAX), total: Math.max(total, posts.length) };
  }

  /** The site's current configuration (its title heads every e-mail). */
  site(timeoutMs = 2000): Promise<SiteConfig> {
    return this.send(Patterns.posts.site, {}, timeoutMs);
  }

  /** Posts owed to the each-post subscribers and due now, oldest first. */
  newsletterPending(limit: number): Promise<NewsletterEvent[]> {
    return this.send(Patterns.posts.newsletterPending, { limit });
  }

  /** The event is taken over (its claims exist): posts stops handing it out. */
  newsletterDone(id: string): Promise<{ done: boolean }> {
    return this.send(Patterns.posts.newsletterDone, { id });
  }

  /** The post as its e-mail carries it, or `{gone: true}` once it is unpublished or deleted. */
  /** `preview`: a draft or scheduled post too (the owner's test e-mail), never for subscribers. */
  newsletterPost(postId: number, preview = false): Promise<NewsletterPostAnswer> {
    return this.send(Patterns.posts.newsletterPost, preview ? { postId, preview } : { postId });
  }

  private list(query: RpcRequest<typeof Patterns.posts.list>['query']): Promise<PostListResult> {
    return this.send(Patterns.posts.list, { query });
  }

  /** A call of the posts service, its request and answer as RpcContracts declares them. */
  private async send<P extends TypedPattern>(
    pattern: P,
    data: RpcRequest<P>,
    timeoutMs = TIMEOUT_MS,
  ): Promise<RpcAnswer<P>> {
    try {
      return await sendTyped(this.client, pattern, data, {
        requestId: currentRequestId() ?? 'mail-digest',
        timeoutMs,
      });
    } catch (error) {
      if (isRpcErrorBody(error)) throw new RpcError(error);
      throw new RpcError({ status: 503, error: ErrorText.serviceUnavailable });
    }
  }

  onApplicationShutdown() {
    this.client.close();
  }
}
