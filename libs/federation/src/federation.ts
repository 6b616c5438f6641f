// The blog's actor, its Articles and collections, and what it does with what arrives in its inbox.
// Fedify does the protocol (signatures, content negotiation, queues); the blog's data comes through
// FederationPorts, so the same federation runs in the gateway (on RPC) and in services/social.
import './temporal.js';
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import {
  createFederation,
  importJwk,
  type Context,
  type Federation,
  type KvStore,
  type MessageQueue,
  type RetryPolicy,
} from '@fedify/fedify';
import {
  Accept,
  Announce,
  Article,
  Create,
  Delete,
  Endpoints,
  Follow,
  Hashtag,
  Image,
  isActor,
  Like,
  Note,
  Person,
  PUBLIC_COLLECTION,
  Tombstone,
  Undo,
  Update,
  type Actor,
  type Recipient,
} from '@fedify/vocab';
import { webFetch, type OutboundAllowList, type WebFetchOptions } from '@blog/server-kit';
import { loaderFactories } from './loaders.js';
import type { ArticleData, FederationPorts, RemoteComment, RemoteFollower } from './ports.js';

/** The actor's fixed identifier in its URIs; the handle people type is mapped to it (G9). */
export const FEDERATION_ACTOR_IDENTIFIER = 'blog';
const BLOG_ACTOR = FEDERATION_ACTOR_IDENTIFIER;
export const ACTOR_PATH = '/ap/actor/{identifier}';
export const SHARED_INBOX_PATH = '/ap/inbox';
/** Inbox POSTs (the actor's and the shared one): the middleware caps their bodies. */
export const INBOX_PATHS = /^\/ap\/(?:inbox|actor\/[^/]+\/inbox)\/?$/;
const PAGE = 20;

export type ArticleActivityKind = 'create' | 'update' | 'delete';

export interface DeliveryGivenUp {
  activityId: string | null;
  inbox: string;
  /** gone: the inbox answered 404/410; expired: failing for the whole retry period; dropped: the host's circuit stayed open. */
  reason: 'gone' | 'expired' | 'dropped';
  statusCode: number | null;
  error: string | null;
}

export interface BlogFederationOptions {
  ports: FederationPorts;
  /** Site URL: ids are built from it, never from a request's Host. */
  origin: string;
  kv: KvStore;
  /** Without one, deliveries are sent at once inside sendActivity (tests). */
  queue?: MessageQueue;
  /** OUTBOUND_ALLOW: every fetch and delivery obeys the outbound address policy. */
  allow: OutboundAllowList;
  /** The process that serves only HTTP leaves the queue to the worker process. Default false. */
  manuallyStartQueue?: boolean;
  userAgent?: string;
  /** Deliveries are tried again with back-off for this long, then given up. Default 48 hours. */
  retryHours?: number;
  onDeliveryGivenUp?: (report: DeliveryGivenUp) => void | Promise<void>;
  onInboxError?: (error: Error, activityId: string | null) => void;
  software?: { name: string; version: string };
}

export interface BlogFederation {
  federation: Federation<void>;
  origin: URL;
  actorUri: URL;
  /** The Article id: the stable `/post/{id}` URL (the tree URL changes with slug or category). */
  articleUri(postId: number): URL;
  /** Fedify's answer for a request, or null when the blog's own routes answer (HTML, unknown paths). */
  respond(request: Request): Promise<Response | null>;
  /** Create, Update or Delete{Tombstone} of an Article, with ids stable per event (receivers drop repeats). */
  activityFor(kind: ArticleActivityKind, article: ArticleData): Create | Update | Delete;
  /** Sends an Article's activity to every follower (shared inboxes), in order per Article. */
  publish(kind: ArticleActivityKind, article: ArticleData): Promise<void>;
  /** Sends a Follow to a remote actor (by its URI: webfinger of loopback handles is refused, G12). Returns the Follow id. */
  follow(actorUri: string): Promise<string>;
  context(): Context<void>;
}

const shortHash = (text: string) => createHash('sha256').update(text).digest('base64url').slice(0, 22);
const instant = (date: Date) => Temporal.Instant.fromEpochMilliseconds(date.getTime());
const asDate = (value: Temporal.Instant | null | undefined) =>
  value ? new Date(value.epochMilliseconds) : new Date();

/** An accept-header check for the 410 answer: an ActivityPub client asked. */
const wantsActivityJson = (request: Request) =>
  /application\/(activity\+json|ld\+json)/i.test(request.headers.get('accept') ?? '');

function backOff(retryHours: number): RetryPolicy {
  return ({ elapsedTime, attempts }) =>
    elapsedTime.total('hour') >= retryHours
      ? null
      : Temporal.Duration.from({ seconds: Math.min(30 * 2 ** attempts, 6 * 3600) });
}

export function createBlogFederation(options: BlogFederationOptions): BlogFederation {
  const { ports } = options;
  const origin = new URL(options.origin);
  const retry = backOff(options.retryHours ?? 48);
  // The outbox message being delivered, so the error hook knows its inbox and attempt (Fedify's
  // onOutboxError gets neither, and its retry policy gets no inbox).
  const delivering = new AsyncLocalStorage<OutboxMessageInfo>();
  const report = async (r: DeliveryGivenUp) => {
    await options.onDeliveryGivenUp?.(r);
  };
  const queue = options.queue && watchOutbox(options.queue, delivering);

  const federation = createFederation<void>({
    kv: options.kv,
    queue,
    origin: origin.href,
    manuallyStartQueue: options.manuallyStartQueue ?? false,
    ...loaderFactories(options.allow, options.kv, options.userAgent),
    outboxRetryPolicy: retry,
    onOutboxError: async (error) => {
      const m = delivering.getStore();
      if (!m || permanent(error)) return;
      const elapsed = Temporal.Instant.from(m.started).until(Temporal.Now.instant());
      if (retry({ elapsedTime: elapsed, attempts: m.attempt }) === null)
        await report({
          activityId: m.activityId ?? null,
          inbox: m.inbox,
          reason: 'expired',
          statusCode: statusOf(error),
          error: error.message,
        });
    },
    circuitBreaker: {
      onActivityDrop: (_host, drop) =>
        report({
          activityId: drop.activityId ?? null,
          inbox: drop.inbox.href,
          reason: 'dropped',
          statusCode: null,
          error: null,
        }),
    },
  });
  federation.setOutboxPermanentFailureHandler((_ctx, failure) =>
    report({
      activityId: failure.activity.id?.href ?? null,
      inbox: failure.inbox.href,
      reason: 'gone',
      statusCode: failure.statusCode,
      error: failure.error.message,
    }),
  );

  // Imported once: the keys never change, and in the gateway they come over RPC.
  type Key = Awaited<ReturnType<typeof importJwk>>;
  let keyPairs: Promise<{ publicKey: Key; privateKey: Key }[]> | undefined;
  const loadKeys = () =>
    (keyPairs ??= ports.actorKeys().then(async (k) => [
      {
        publicKey: await importJwk(k.rsa.publicJwk, 'public'),
        privateKey: await importJwk(k.rsa.privateJwk, 'private'),
      },
      {
        publicKey: await importJwk(k.ed25519.publicJwk, 'public'),
        privateKey: await importJwk(k.ed25519.privateJwk, 'private'),
      },
    ])).catch((error: unknown) => {
      keyPairs = undefined;
      throw error;
    });

  const articleUri = (postId: number) => new URL(`/post/${postId}`, origin);
  const actorUri = new URL(ACTOR_PATH.replace('{identifier}', BLOG_ACTOR), origin);
  const followersUri = new URL(`${actorUri.pathname}/followers`, origin);

  const articleOf = (a: ArticleData) =>
    new Article({
      id: articleUri(a.id),
      attribution: actorUri,
      name: a.title,
      content: a.html,
      summary: a.excerpt || null,
      url: new URL(a.url),
      published: instant(a.published),
      updated: a.updated ? instant(a.updated) : null,
      to: PUBLIC_COLLECTION,
      cc: followersUri,
      tags: a.tags.map(
        (t) => new Hashtag({ name: `#${t}`, href: new URL(`/tags/${encodeURIComponent(t)}`, origin) }),
      ),
      attachments: a.images.map(
        (i) => new Image({ url: new URL(i.url), mediaType: i.mediaType, name: i.alt || null }),
      ),
    });

  const activityFor = (kind: ArticleActivityKind, a: ArticleData): Create | Update | Delete => {
    const id = articleUri(a.id);
    const common = { actor: actorUri, to: PUBLIC_COLLECTION, cc: followersUri };
    if (kind === 'create')
      return new Create({ id: new URL(`${id.href}#create`), ...common, object: articleOf(a) });
    if (kind === 'update') {
      const at = (a.updated ?? a.published).getTime();
      return new Update({ id: new URL(`${id.href}#update-${at}`), ...common, object: articleOf(a) });
    }
    return new Delete({ id: new URL(`${id.href}#delete`), ...common, object: new Tombstone({ id }) });
  };

  // ---- the actor ----
  const actor = federation.setActorDispatcher(ACTOR_PATH, async (ctx, identifier) => {
    if (identifier !== BLOG_ACTOR) return null;
    const site = await ports.site();
    const keys = await ctx.getActorKeyPairs(identifier);
    return new Person({
      id: ctx.getActorUri(identifier),
      preferredUsername: site.handle,
      name: site.title,
      summary: site.summaryHtml,
      url: new URL('/', origin),
      inbox: ctx.getInboxUri(identifier),
      endpoints: new Endpoints({ sharedInbox: ctx.getInboxUri() }),
      outbox: ctx.getOutboxUri(identifier),
      followers: ctx.getFollowersUri(identifier),
      following: ctx.getFollowingUri(identifier),
      icon: site.iconUrl ? new Image({ url: new URL(site.iconUrl, origin) }) : null,
      image: site.imageUrl ? new Image({ url: new URL(site.imageUrl, origin) }) : null,
      publicKey: keys[0]?.cryptographicKey ?? null, // RSA first: Mastodon reads publicKey only
      assertionMethods: keys.map((k) => k.multikey), // FEP-521a: RSA and Ed25519
      manuallyApprovesFollowers: site.approveFollowers,
      discoverable: true,
    });
  });
  // Separate statements, not a chain (G7).
  actor.mapHandle(async (_ctx, username) => ((await ports.site()).handle === username ? BLOG_ACTOR : null));
  actor.setKeyPairsDispatcher(async (_ctx, identifier) => (identifier === BLOG_ACTOR ? loadKeys() : []));

  // ---- Articles: `null` is 404; 'gone' is remembered for this request so respond() answers 410 ----
  const gone = new WeakSet<Request>();
  federation.setObjectDispatcher(Article, '/post/{id}', async (ctx, values) => {
    if (!/^[1-9]\d{0,15}$/.test(values.id)) return null;
    const found = await ports.articles.byPostId(Number(values.id));
    if (found === 'gone') gone.add(ctx.request);
    return found && found !== 'gone' ? articleOf(found) : null;
  });

  const outbox = federation.setOutboxDispatcher(`${ACTOR_PATH}/outbox`, async (_ctx, identifier, cursor) => {
    if (identifier !== BLOG_ACTOR || cursor === null) return null;
    const offset = Number(cursor) || 0;
    const page = await ports.articles.outbox(offset, PAGE);
    return {
      items: page.items.map((a) => activityFor('create', a) as Create),
      nextCursor: offset + PAGE < page.total ? String(offset + PAGE) : null,
    };
  });
  outbox.setCounter(async () => (await ports.articles.outbox(0, 1)).total);
  outbox.setFirstCursor(() => '0');

  const followers = federation.setFollowersDispatcher(
    `${ACTOR_PATH}/followers`,
    async (_ctx, identifier, cursor) => {
      if (identifier !== BLOG_ACTOR || cursor === null) return null;
      const offset = Number(cursor) || 0;
      const page = await ports.followers.page(offset, 100);
      return {
        items: page.items.map((f): Recipient => ({
          id: new URL(f.actorUri),
          inboxId: new URL(f.inbox),
          endpoints: f.sharedInbox ? { sharedInbox: new URL(f.sharedInbox) } : null,
        })),
        nextCursor: offset + 100 < page.total ? String(offset + 100) : null,
      };
    },
  );
  followers.setCounter(async () => (await ports.followers.page(0, 1)).total);
  followers.setFirstCursor(() => '0');

  federation.setFollowingDispatcher(`${ACTOR_PATH}/following`, async (_ctx, identifier) =>
    identifier === BLOG_ACTOR ? { items: (await ports.following()).map((u) => new URL(u)) } : null,
  );

  federation.setNodeInfoDispatcher('/nodeinfo/2.1', async () => ({
    software: {
      name: options.software?.name ?? 'personal-blog',
      version: options.software?.version ?? '0.1.0',
    },
    protocols: ['activitypub'],
    usage: {
      users: { total: 1, activeMonth: 1, activeHalfyear: 1 },
      localPosts: (await ports.site()).postCount,
      localComments: 0,
    },
    openRegistrations: false,
  }));

  // ---- the inbox ----
  const ours = (uri: URL | null) => uri !== null && uri.origin === origin.origin;
  const isOurArticle = (ctx: Context<void>, uri: URL) => ctx.parseUri(uri)?.type === 'object';
  const blocked = (actorId: URL) => ports.blocked(actorId.href);

  /** A Note that answers one of our Articles, or anything not ours (the port knows its comments). */
  const commentOf = async (
    ctx: Context<void>,
    note: unknown,
    actorId: URL,
  ): Promise<RemoteComment | null> => {
    if (!(note instanceof Note) || !note.id || !note.replyTargetId) return null;
    if (note.attributionId?.href !== actorId.href) return null; // the signer writes for itself only
    if (ours(note.replyTargetId) && !isOurArticle(ctx, note.replyTargetId)) return null;
    const author = await ctx.lookupObject(actorId.href).catch(() => null);
    if (!isActor(author)) return null;
    const who = await describe(author);
    return {
      objectUri: note.id.href,
      inReplyToUri: note.replyTargetId.href,
      actor: { uri: who.actorUri, handle: who.handle, name: who.name, url: who.url, iconUrl: who.iconUrl },
      html: note.content?.toString() ?? '',
      published: asDate(note.published),
    };
  };

  federation
    .setInboxListeners(`${ACTOR_PATH}/inbox`, SHARED_INBOX_PATH)
    .withIdempotency('per-inbox')
    .on(Follow, async (ctx, follow) => {
      if (!follow.id || !follow.actorId || follow.objectId?.href !== actorUri.href) return;
      if (await blocked(follow.actorId)) return;
      const follower = await follow.getActor(ctx);
      if (!follower?.id || !follower.inboxId || follower.id.href !== follow.actorId.href) return;
      const status = await ports.followers.add({
        ...(await describe(follower)),
        followActivityId: follow.id.href,
      });
      if (status !== 'accepted') return;
      await ctx.sendActivity(
        { identifier: BLOG_ACTOR },
        follower,
        new Accept({
          id: new URL(`${actorUri.href}#accept-${shortHash(follow.id.href)}`),
          actor: actorUri,
          object: follow,
        }),
      );
    })
    .on(Accept, async (_ctx, accept) => {
      // By objectId, never by dereferencing the Follow (G8): its id need not resolve.
      if (!accept.objectId || !accept.actorId || (await blocked(accept.actorId))) return;
      await ports.followAccepted?.(accept.objectId.href, accept.actorId.href);
    })
    .on(Undo, async (ctx, undo) => {
      if (!undo.actorId) return;
      const inner = await undo.getObject({ ...ctx, suppressError: true }).catch(() => null);
      if (inner instanceof Follow) {
        if (inner.actorId?.href === undo.actorId.href && inner.objectId?.href === actorUri.href)
          await ports.followers.remove(undo.actorId.href);
      } else if (inner instanceof Like || inner instanceof Announce) {
        if (inner.id && inner.actorId?.href === undo.actorId.href)
          await ports.undoReaction(inner.id.href, undo.actorId.href);
      } else if (!inner && undo.objectId) {
        // Only an id that does not resolve: a reaction is found by it (and its actor), anything else is nothing.
        await ports.undoReaction(undo.objectId.href, undo.actorId.href);
      }
    })
    .on(Create, async (ctx, create) => {
      if (!create.actorId || (await blocked(create.actorId))) return;
      const comment = await commentOf(
        ctx,
        await create.getObject({ ...ctx, suppressError: true }),
        create.actorId,
      );
      if (comment) await ports.comments.create(comment);
    })
    .on(Update, async (ctx, update) => {
      if (!update.actorId || (await blocked(update.actorId))) return;
      const comment = await commentOf(
        ctx,
        await update.getObject({ ...ctx, suppressError: true }),
        update.actorId,
      );
      if (comment) await ports.comments.update(comment);
    })
    .on(Delete, async (_ctx, del) => {
      if (!del.actorId || !del.objectId) return;
      // An account deleting itself: it follows no more.
      if (del.objectId.href === del.actorId.href) await ports.followers.remove(del.actorId.href);
      else await ports.comments.delete(del.objectId.href, del.actorId.href);
    })
    .on(Like, async (ctx, like) => {
      if (!like.id || !like.objectId || !like.actorId || (await blocked(like.actorId))) return;
      if (!ours(like.objectId) || !isOurArticle(ctx, like.objectId)) return;
      await ports.reaction({
        kind: 'like',
        activityId: like.id.href,
        actorUri: like.actorId.href,
        objectUri: like.objectId.href,
      });
    })
    .on(Announce, async (ctx, announce) => {
      if (!announce.id || !announce.objectId || !announce.actorId || (await blocked(announce.actorId)))
        return;
      if (!ours(announce.objectId) || !isOurArticle(ctx, announce.objectId)) return;
      await ports.reaction({
        kind: 'announce',
        activityId: announce.id.href,
        actorUri: announce.actorId.href,
        objectUri: announce.objectId.href,
      });
    })
    .onError((_ctx, error) => options.onInboxError?.(error, null));

  const context = () => federation.createContext(origin, undefined);

  return {
    federation,
    origin,
    actorUri,
    articleUri,
    activityFor,
    context,
    async respond(request) {
      let passed = false;
      const pass = () => {
        passed = true;
        return new Response(null, { status: 404 });
      };
      const response = await federation.fetch(request, {
        contextData: undefined,
        onNotFound: pass,
        onNotAcceptable: pass,
      });
      if (!passed) return response;
      if (gone.has(request) && wantsActivityJson(request))
        return new Response(JSON.stringify({ error: 'gone' }), {
          status: 410,
          headers: { 'content-type': 'application/json', vary: 'Accept' },
        });
      return null;
    },
    async publish(kind, article) {
      await context().sendActivity({ identifier: BLOG_ACTOR }, 'followers', activityFor(kind, article), {
        preferSharedInbox: true,
        orderingKey: articleUri(article.id).href, // Create, Update, Delete arrive in order per server
      });
    },
    async follow(target) {
      const ctx = context();
      const remote = await ctx.lookupObject(target);
      if (!isActor(remote) || !remote.id) throw new Error(`not an actor: ${target}`);
      const id = new URL(`${actorUri.href}#follow-${shortHash(remote.id.href)}`);
      await ctx.sendActivity(
        { identifier: BLOG_ACTOR },
        remote,
        new Follow({ id, actor: actorUri, object: remote.id }),
      );
      return id.href;
    },
  };
}

/**
 * Fedify's delivery POSTs call the global fetch, with no address check (G11): the process that runs its
 * queue routes them through the outbound policy at boot. No server code of the blog uses the global
 * fetch otherwise. Returns the undo.
 */
export function routeGlobalFetch(allow: OutboundAllowList, options?: WebFetchOptions): () => void {
  const previous = globalThis.fetch;
  globalThis.fetch = webFetch(allow, options);
  return () => {
    globalThis.fetch = previous;
  };
}

/** A remote actor in the blog's words. */
async function describe(actor: Actor): Promise<RemoteFollower> {
  const id = actor.id!;
  const icon = await actor.getIcon().catch(() => null);
  const url = actor.url instanceof URL ? actor.url.href : (actor.url?.href?.href ?? null);
  return {
    actorUri: id.href,
    handle: `@${actor.preferredUsername?.toString() ?? 'unknown'}@${id.host}`,
    name: actor.name?.toString() ?? null,
    url,
    inbox: actor.inboxId?.href ?? '',
    sharedInbox: actor.endpoints?.sharedInbox?.href ?? null,
    iconUrl: icon?.url instanceof URL ? icon.url.href : (icon?.url?.href?.href ?? null),
  };
}

interface OutboxMessageInfo {
  inbox: string;
  activityId?: string;
  started: string;
  attempt: number;
}

const permanent = (error: Error) => [404, 410].includes(statusOf(error) ?? 0);
const statusOf = (error: Error): number | null => {
  const code = (error as Error & { statusCode?: unknown }).statusCode;
  return typeof code === 'number' ? code : null;
};

/** The queue, its handler run inside `store` with the outbox message being delivered. */
function watchOutbox(queue: MessageQueue, store: AsyncLocalStorage<OutboxMessageInfo>): MessageQueue {
  // Delegating calls, not a prototype copy: queues keep private (#) fields.
  const wrapped: MessageQueue = {
    nativeRetrial: queue.nativeRetrial ?? false,
    enqueue: (message, options) => queue.enqueue(message, options),
    listen: (handler, listenOptions) =>
      queue.listen((message: { type?: string } & Partial<OutboxMessageInfo>) => {
        if (message?.type !== 'outbox' || !message.inbox || !message.started) return handler(message);
        const info: OutboxMessageInfo = {
          inbox: message.inbox,
          activityId: message.activityId,
          started: message.started,
          attempt: message.attempt ?? 0,
        };
        return store.run(info, () => handler(message));
      }, listenOptions),
  };
  if (queue.enqueueMany) {
    const many = queue.enqueueMany.bind(queue);
    wrapped.enqueueMany = (messages, options) => many(messages, options);
  }
  if (queue.getDepth) {
    const depth = queue.getDepth.bind(queue);
    wrapped.getDepth = () => depth();
  }
  return wrapped;
}
