import { ServerTCP } from '@nestjs/microservices';
import { Patterns, type NewsletterEvent, type NewsletterPost, type RpcEnvelope } from '@blog/contracts';
import { freePort } from '@blog/server-kit/testing';
import { randomUUID } from 'node:crypto';

/**
 * A small stand-in for the posts service's newsletter RPCs (what is owed, handed over, and a
 * post's e-mail content), answering on TCP as the posts service does: the mail service's
 * sending engine is tested without the posts side of the feature.
 */
export interface PostsStandIn {
  port: number;
  /** Visible posts by id; a missing one answers `{gone: true}`. */
  posts: Map<number, NewsletterPost>;
  /** Events owed and not yet handed over. */
  events: NewsletterEvent[];
  /** Ids of events mail said it took over, in order. */
  done: string[];
  /** newsletterPost calls so far, per post. */
  asked: Map<number, number>;
  publish(post: NewsletterPost): NewsletterEvent;
  close(): Promise<void>;
}

export function newsletterPost(id: number, fields: Partial<NewsletterPost> = {}): NewsletterPost {
  return {
    id,
    title: `Post number ${id}`,
    url: `https://blog.example/posts/${id}-post-number-${id}`,
    html: `<p>The whole text of post ${id}.</p>`,
    text: `The whole text of post ${id}.`,
    excerpt: `The whole text of post ${id}.`,
    published: new Date().toISOString(),
    pictures: [],
    ...fields,
  };
}

export async function startPostsStandIn(siteTitle = 'Stand-in Blog'): Promise<PostsStandIn> {
  const port = await freePort();
  const server = new ServerTCP({ host: '127.0.0.1', port });
  const standIn: PostsStandIn = {
    port,
    posts: new Map(),
    events: [],
    done: [],
    asked: new Map(),
    publish(post) {
      standIn.posts.set(post.id, post);
      const event = { id: randomUUID(), postId: post.id, dueAt: new Date().toISOString() };
      standIn.events.push(event);
      return event;
    },
    close: async () => server.close(),
  };
  const data = <T>(message: RpcEnvelope<unknown>) => (message?.data ?? {}) as T;
  server.addHandler(Patterns.posts.site, async () => ({ title: siteTitle }), false);
  server.addHandler(
    Patterns.posts.newsletterPending,
    async (message: RpcEnvelope<unknown>) =>
      standIn.events.slice(0, data<{ limit?: number }>(message).limit ?? 20),
    false,
  );
  server.addHandler(
    Patterns.posts.newsletterDone,
    async (message: RpcEnvelope<unknown>) => {
      const { id } = data<{ id: string }>(message);
      const before = standIn.events.length;
      standIn.events = standIn.events.filter((event) => event.id !== id);
      standIn.done.push(id);
      return { done: standIn.events.length < before };
    },
    false,
  );
  server.addHandler(
    Patterns.posts.newsletterPost,
    async (message: RpcEnvelope<unknown>) => {
      const postId = Number(data<{ postId: number }>(message).postId);
      standIn.asked.set(postId, (standIn.asked.get(postId) ?? 0) + 1);
      return standIn.posts.get(postId) ?? { gone: true };
    },
    false,
  );
  await new Promise<void>((resolve, reject) =>
    server.listen((error?: unknown) => (error ? reject(error as Error) : resolve())),
  );
  return standIn;
}
