// The blog's actor, its Articles and collections, and what it does with what arrives in its inbox.
// Fedify does the protocol (signatures, content negotiation, queues); the blog's data comes through
// FederationPorts, so the same federation runs in the gateway (on RPC) and in services/social.
import './temporal.js';
import { AsyncLocalStorage } from 'node:async_hooks';
import {
  createFederation,
  importJwk,
  type Context,
  type Federation,
  type FederationQueueOptions,
  type KvStore,
  type MessageQueue,
} from '@fedify/fedify';
import {
  Article,
  Collection,
  Create,
  Delete,
  Endpoints,
  Follow,
  Hashtag,
  Image,
  isActor,
  Mention,
  Note,
  Person,
  PUBLIC_COLLECTION,
  QuoteAuthorization,
  Tombstone,
  Update,
  type Recipient,
} from '@fedify/vocab';
import { FOLLOWERS_FIRST_CURSOR, followersCursorSchema } from '@blog/contracts';
import type { OutboundAllowList, TakingTurns } from '@blog/server-kit';
import { blogLoaders, loaderFactories } from './loaders.js';
import { InboxGate, type InboxRefusalReason } from './inbox-gate.js';
import {
  backOff,
  permanent,
  statusOf,
  watchOutbox,
  type DeliveryGivenUp,
  type OutboxMessageInfo,
} from './delivery.js';
import {
  acceptOf,
  contextsAreKnown,
  describe,
  listenToInbox,
  queuedInboxActivity,
  shortHash,
} from './inbox.js';
import {
  fetchActor,
  interactionPolicyOf,
  listsAlias,
  moveOf,
  postNoteHtml,
  quoteAuthorizationOf,
  type InteropDeps,
} from './interop.js';
import { ownerActions, type OwnerActions } from './owner-actions.js';
import { ACTOR_PATH, FEDERATION_ACTOR_IDENTIFIER, QUOTE_STAMP_PATH } from './paths.js';
import type { ArticleData, FederationPorts, NoteData, RemoteFollower, SiteData } from './ports.js';

export { routeGlobalFetch, type DeliveryGivenUp } from './delivery.js';
export { AccountLookupError, type OwnerActions, type OwnReaction } from './owner-actions.js';
export { ACTOR_PATH, FEDERATION_ACTOR_IDENTIFIER, INBOX_PATHS, SHARED_INBOX_PATH } from './paths.js';
export { interactionPolicyOf, postNoteHtml, QUOTE_STAMP_PATH } from './interop.js';

/** How the site wants its posts and notes sent: the post's form and who may quote. */
export type ObjectStyle = Pick<SiteData, 'postFormat' | 'quotePolicy'>;

/** The owner's Move was refused: the target is not an account, or does not list the blog (422). */
export class MoveRefusedError extends Error {
  override name = 'MoveRefusedError';
}

const BLOG_ACTOR = FEDERATION_ACTOR_IDENTIFIER;
const PAGE = 20;
const FOLLOWERS_PAGE = 100;

export type ArticleActivityKind = 'create' | 'update' | 'delete';

export interface BlogFederationOptions {
  ports: FederationPorts;
  /** Site URL: ids are built from it, never from a request's Host. */
  origin: string;
  kv: KvStore;
  /**
   * Without one, deliveries are sent at once inside sendActivity (tests). One queue carries
   * everything; separate ones keep inbox work and delivery from waiting on each other (fanout
   * shares the outbox queue unless given its own).
   */
  queue?: MessageQueue | BlogFederationQueues;
  /** OUTBOUND_ALLOW: every fetch and delivery obeys the outbound address policy. */
  allow: OutboundAllowList;
  /** The process that serves only HTTP leaves the queue to the worker process. Default false. */
  manuallyStartQueue?: boolean;
  userAgent?: string;
  /** Deliveries are tried again with back-off for this long, then given up. Default 48 hours. */
  retryHours?: number;
  onDeliveryGivenUp?: (report: DeliveryGivenUp) => void | Promise<void>;
  /** A queued delivery an inbox took (with a queue only): a server given up on takes deliveries again. */
  onDelivered?: (inbox: string) => void | Promise<void>;
  onInboxError?: (error: Error, activityId: string | null) => void;
  /** An inbox POST the gate refused (before any JSON-LD work), and why. */
  onInboxRefused?: (reason: InboxRefusalReason) => void;
  /**
   * Inbox POSTs verified and queued a few at a time (after their signer's key is fetched, which
   * holds no turn); one that gets no turn is answered 503 with Retry-After. Unset: no limit.
   */
  inboxTurns?: TakingTurns;
  software?: { name: string; version: string };
}

export interface BlogFederationQueues {
  inbox: MessageQueue;
  outbox: MessageQueue;
  fanout?: MessageQueue;
}

export interface BlogFederation {
  federation: Federation<void>;
  origin: URL;
  actorUri: URL;
  /** The Article id: the stable `/post/{id}` URL (the tree URL changes with slug or category). */
  articleUri(postId: number): URL;
  /** Fedify's answer for a request, or null when the blog's own routes answer (HTML, unknown paths). */
  respond(request: Request): Promise<Response | null>;
  /** The host of the verified signer of an inbox POST `respond` took in (null: refused, or not one). */
  signerOf(request: Request): string | null;
  /** Create, Update or Delete{Tombstone} of an Article, with ids stable per event (receivers drop repeats). */
  activityFor(kind: ArticleActivityKind, article: ArticleData, style?: ObjectStyle): Create | Update | Delete;
  /** Sends an Article's activity to every follower (shared inboxes), in order per Article. */
  publish(kind: ArticleActivityKind, article: ArticleData): Promise<void>;
  /** Create, Update or Delete{Tombstone} of a note's (or an owner's reply's) Note. */
  noteActivityFor(kind: ArticleActivityKind, note: NoteData, style?: ObjectStyle): Create | Update | Delete;
  /**
   * Sends a Note's activity to every follower and, for a reply, to the author it mentions (their
   * actor looked up through the outbound policy when it is sent), in order per Note.
   */
  publishNote(kind: ArticleActivityKind, note: NoteData): Promise<void>;
  /**
   * Sends the Accept of a Follow the owner approved later (the same Accept id the inbox gives one
   * accepted at once). The follower as stored: no fetch, only a queued delivery.
   */
  acceptFollow(
    follower: Pick<RemoteFollower, 'actorUri' | 'inbox' | 'sharedInbox'>,
    followActivityId: string,
  ): Promise<void>;
  /** Sends a Follow to a remote actor (by its URI: webfinger of loopback handles is refused, G12). Returns the Follow id. */
  follow(actorUri: string): Promise<string>;
  /**
   * Moves the blog's followers to `target` (FEP-7628): its actor, fetched fresh through the
   * outbound policy, must list the blog's actor in alsoKnownAs (else MoveRefusedError); then a
   * Move goes to every follower. Answers the target's actor id. Storing movedTo is the caller's.
   */
  moveFollowersTo(target: string): Promise<string>;
  /** The owner's lookups, unfollows, likes and boosts. */
  owner: OwnerActions;
  context(): Context<void>;
}

const instant = (date: Date) => Temporal.Instant.fromEpochMilliseconds(date.getTime());

/** A sender told "busy" tries again after this long (Mastodon retries a delivery anyway). */
const BUSY_RETRY_AFTER_SECONDS = '5';

/** The answer to an inbox POST taken onto the queue: Fedify's own words for it. */
const enqueued = () =>
  new Response('Activity is enqueued.', {
    status: 202,
    headers: { 'content-type': 'text/plain; charset=utf-8' },
  });

/** An accept-header check for the 410 answer: an ActivityPub client asked. */
const wantsActivityJson = (request: Request) =>
  /application\/(activity\+json|ld\+json)/i.test(request.headers.get('accept') ?? '');

/** Fedify's queue option: the outbox queue (which fanout shares by default) watched for deliveries. */
function fedifyQueues(
  queue: BlogFederationOptions['queue'],
  delivering: AsyncLocalStorage<OutboxMessageInfo>,
  onDelivered: BlogFederationOptions['onDelivered'],
): MessageQueue | FederationQueueOptions | undefined {
  if (!queue) return undefined;
  if ('enqueue' in queue) return watchOutbox(queue, delivering, onDelivered);
  const outbox = watchOutbox(queue.outbox, delivering, onDelivered);
  // The same object for both, so that Fedify listens to it once.
  const fanout = !queue.fanout || queue.fanout === queue.outbox ? outbox : queue.fanout;
  return { inbox: queue.inbox === queue.outbox ? outbox : queue.inbox, outbox, fanout };
}

export function createBlogFederation(options: BlogFederationOptions): BlogFederation {
  const { ports } = options;
  const origin = new URL(options.origin);
  const retry = backOff(options.retryHours ?? 48);
  // The outbox message being delivered, so the error hook knows its inbox and attempt (Fedify's
  // onOutboxError gets neither, and its retry policy gets no inbox).
  const delivering = new AsyncLocalStorage<OutboxMessageInfo>();
  const report = async (r: DeliveryGivenUp) => {
    const m = delivering.getStore();
    if (m) m.failed = true;
    await options.onDeliveryGivenUp?.(r);
  };
  const queue = fedifyQueues(options.queue, delivering, options.onDelivered);
  const loaders = blogLoaders(options.allow, options.kv, options.userAgent);
  const gate = new InboxGate({
    documentLoader: loaders.documents,
    freshDocumentLoader: loaders.freshDocuments,
    contextLoader: loaders.contexts,
  });
  const signers = new WeakMap<Request, string>();

  const federation = createFederation<void>({
    kv: options.kv,
    queue,
    origin: origin.href,
    manuallyStartQueue: options.manuallyStartQueue ?? false,
    // The inbox gate (respond, below) has verified every POST before Fedify sees it: the signature
    // or proof, its key on the actor's own server and listed in the actor's document. Fedify's own
    // second check read the key from the store and verified it again: an eighth of the intake's CPU.
    skipSignatureVerification: true,
    ...loaderFactories(options.allow, options.kv, options.userAgent, loaders),
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
  federation.setOutboxPermanentFailureHandler(async (_ctx, failure) => {
    // Fedify tells a held activity's drop here too (status 0), after onActivityDrop reported it.
    if (failure.reason === 'circuit-breaker-ttl') return;
    await report({
      activityId: failure.activity.id?.href ?? null,
      inbox: failure.inbox.href,
      reason: 'gone',
      statusCode: failure.statusCode,
      error: failure.error.message,
    });
  });

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

  // A post goes out as an Article, or as a Note (the site's choice) with the same id and URL, so
  // replies and likes keep finding it.
  const articleOf = (a: ArticleData, style: ObjectStyle = {}) => {
    const interactionPolicy = interactionPolicyOf(style, { actorUri, followersUri });
    if (style.postFormat === 'note')
      return new Note({
        id: articleUri(a.id),
        attribution: actorUri,
        content: postNoteHtml(a),
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
        interactionPolicy,
      });
    return new Article({
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
      replies: a.replies
        ? new Collection({ totalItems: a.replies.total, items: a.replies.items.map((id) => new URL(id)) })
        : null,
      interactionPolicy,
    });
  };

  const activityFor = (
    kind: ArticleActivityKind,
    a: ArticleData,
    style: ObjectStyle = {},
  ): Create | Update | Delete => {
    const id = articleUri(a.id);
    const common = { actor: actorUri, to: PUBLIC_COLLECTION, cc: followersUri };
    if (kind === 'create')
      return new Create({ id: new URL(`${id.href}#create`), ...common, object: articleOf(a, style) });
    if (kind === 'update') {
      const at = (a.updated ?? a.published).getTime();
      return new Update({ id: new URL(`${id.href}#update-${at}`), ...common, object: articleOf(a, style) });
    }
    return new Delete({ id: new URL(`${id.href}#delete`), ...common, object: new Tombstone({ id }) });
  };

  // A reply is addressed to the followers and the author it answers, and names them in a Mention.
  const noteOf = (n: NoteData, style: ObjectStyle = {}) =>
    new Note({
      id: new URL(n.uri),
      attribution: actorUri,
      content: n.html,
      url: new URL(n.url),
      published: instant(n.published),
      updated: n.updated ? instant(n.updated) : null,
      to: PUBLIC_COLLECTION,
      ccs: n.mention ? [followersUri, new URL(n.mention.actorUri)] : [followersUri],
      replyTarget: n.inReplyTo ? new URL(n.inReplyTo) : null,
      tags: n.mention
        ? [new Mention({ href: new URL(n.mention.actorUri), name: `@${n.mention.handle}` })]
        : [],
      attachments: (n.images ?? []).map(
        (i) => new Image({ url: new URL(i.url), mediaType: i.mediaType, name: i.alt || null }),
      ),
      interactionPolicy: interactionPolicyOf(style, { actorUri, followersUri }),
    });

  const noteActivityFor = (
    kind: ArticleActivityKind,
    n: NoteData,
    style: ObjectStyle = {},
  ): Create | Update | Delete => {
    const id = new URL(n.uri);
    const ccs = n.mention ? [followersUri, new URL(n.mention.actorUri)] : [followersUri];
    const common = { actor: actorUri, to: PUBLIC_COLLECTION, ccs };
    // The activity ids hang off the Note's id without its fragment (a reply's id has one).
    const base = `${id.origin}${id.pathname}${id.search}${id.hash ? `${id.hash}-` : '#'}`;
    if (kind === 'create')
      return new Create({ id: new URL(`${base}create`), ...common, object: noteOf(n, style) });
    if (kind === 'update') {
      const at = (n.updated ?? n.published).getTime();
      return new Update({ id: new URL(`${base}update-${at}`), ...common, object: noteOf(n, style) });
    }
    return new Delete({ id: new URL(`${base}delete`), ...common, object: new Tombstone({ id }) });
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
      // Search consent (FEP-5feb) and the blog's other accounts and move (FEP-7628): site settings.
      discoverable: site.discoverable ?? true,
      indexable: site.indexable ?? true,
      aliases: (site.alsoKnownAs ?? []).map((uri) => new URL(uri)),
      successor: site.movedTo ? new URL(site.movedTo) : null,
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
    if (!found || found === 'gone') return null;
    // The site may send posts as Notes: the same URL then serves the Note (Fedify serialises what it is given).
    return articleOf(found, await ports.site()) as Article;
  });

  federation.setObjectDispatcher(Note, '/notes/{id}', async (ctx, values) => {
    if (!ports.notes || !/^[1-9]\d{0,9}$/.test(values.id)) return null;
    const found = await ports.notes.byId(Number(values.id));
    if (found === 'gone') gone.add(ctx.request);
    return found && found !== 'gone' ? noteOf(found, await ports.site()) : null;
  });

  // An accepted quote's stamp (FEP-044f): dereferenceable for anyone checking the quote.
  const stampUri = (id: string) => new URL(QUOTE_STAMP_PATH.replace('{id}', id), origin);
  federation.setObjectDispatcher(QuoteAuthorization, QUOTE_STAMP_PATH, async (_ctx, values) => {
    if (!ports.quotes || !/^[A-Za-z0-9_-]{22}$/.test(values.id)) return null;
    const stamp = await ports.quotes.stamp(values.id);
    return stamp ? quoteAuthorizationOf(stamp, stampUri(values.id), actorUri) : null;
  });

  const outbox = federation.setOutboxDispatcher(`${ACTOR_PATH}/outbox`, async (_ctx, identifier, cursor) => {
    if (identifier !== BLOG_ACTOR || cursor === null) return null;
    const offset = Number(cursor) || 0;
    const page = await ports.articles.outbox(offset, PAGE);
    // The Create each follower got, naming its Article by id (a client fetches the ones it wants).
    return {
      items: page.items.map(
        (a) =>
          new Create({
            id: new URL(`${articleUri(a.id).href}#create`),
            actor: actorUri,
            object: articleUri(a.id),
            published: instant(a.published),
            to: PUBLIC_COLLECTION,
            cc: followersUri,
          }),
      ),
      nextCursor: offset + PAGE < page.total ? String(offset + PAGE) : null,
    };
  });
  outbox.setCounter(async () => (await ports.articles.outbox(0, 1)).total);
  outbox.setFirstCursor(() => '0');

  // Fedify walks these pages to send to 'followers'. A cursor that is not one (a URL's query) is a 404.
  const followers = federation.setFollowersDispatcher(
    `${ACTOR_PATH}/followers`,
    async (_ctx, identifier, cursor) => {
      if (identifier !== BLOG_ACTOR || cursor === null) return null;
      if (!followersCursorSchema.safeParse(cursor).success) return null;
      const page = await ports.followers.page(cursor, FOLLOWERS_PAGE);
      return {
        items: page.items.map((f): Recipient => ({
          id: new URL(f.actorUri),
          inboxId: new URL(f.inbox),
          endpoints: f.sharedInbox ? { sharedInbox: new URL(f.sharedInbox) } : null,
        })),
        nextCursor: page.nextCursor,
      };
    },
  );
  followers.setCounter(() => ports.followers.count());
  followers.setFirstCursor(() => FOLLOWERS_FIRST_CURSOR);

  // Hidden by the owner: the count stays (as Mastodon shows it), the accounts do not.
  const following = federation.setFollowingDispatcher(`${ACTOR_PATH}/following`, async (_ctx, identifier) => {
    if (identifier !== BLOG_ACTOR) return null;
    if ((await ports.site()).showFollowing === false) return { items: [] };
    return { items: (await ports.following()).map((u) => new URL(u)) };
  });
  following.setCounter(async () => (await ports.following()).length);

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

  const interop: InteropDeps = {
    ports,
    actorUri,
    stampUri,
    stampId: shortHash,
    documents: loaders.freshDocuments,
    describe,
    // One of our visible posts or notes (a quote of anything else is not ours to allow).
    async isOurObject(ctx, uri) {
      const parsed = ctx.parseUri(uri);
      if (parsed?.type !== 'object' || uri.origin !== origin.origin) return false;
      const id = Number(parsed.values.id);
      if (!Number.isSafeInteger(id) || id < 1) return false;
      const found =
        parsed.class === Article
          ? await ports.articles.byPostId(id)
          : parsed.class === Note
            ? ((await ports.notes?.byId(id)) ?? null)
            : null;
      return found !== null && found !== 'gone';
    },
  };

  listenToInbox(federation, {
    ports,
    origin,
    actorUri,
    quickDocuments: loaders.quickDocuments,
    onInboxError: options.onInboxError,
    interop,
  });

  /**
   * An inbox POST passes the gate (shape, signature, the key on the actor's own origin and in
   * its document) before Fedify parses it; else the gate's 400 or 401, with nothing fetched for
   * a signature header that does not parse, and no JSON-LD work at all. The checks that cost no
   * fetch come first, then the signer's key is fetched when it is not known, and only then is a
   * turn taken (inboxTurns) for the signature, the queueing and Fedify's part.
   */
  const answerPost = async (request: Request): Promise<Response | null> => {
    const body = new Uint8Array(await request.arrayBuffer());
    const copy = new Request(request, { body });
    const post = gate.read(copy, body);
    if (!('json' in post)) return refusal(post.status, post.reason);
    await gate.warm(post);
    const endTurn = options.inboxTurns ? await options.inboxTurns.turn() : () => undefined;
    if (!endTurn)
      return new Response(JSON.stringify({ error: 'busy' }), {
        status: 503,
        headers: { 'content-type': 'application/json', 'retry-after': BUSY_RETRY_AFTER_SECONDS },
      });
    try {
      const verdict = await gate.verify(copy.clone(), post);
      if (!verdict.ok) return refusal(verdict.status, verdict.reason);
      signers.set(request, verdict.signer);
      if (await queuedDirectly(request.url, verdict.activity)) return enqueued();
      return await answerWithFedify(copy);
    } finally {
      endTurn();
    }
  };

  const refusal = (status: number, reason: InboxRefusalReason) => {
    options.onInboxRefused?.(reason);
    return new Response(JSON.stringify({ error: `refused: ${reason}` }), {
      status,
      headers: { 'content-type': 'application/json' },
    });
  };

  /** The inbox queue, when there is one (without, Fedify runs the listeners inside the request). */
  const inboxQueue = !options.queue ? null : 'enqueue' in options.queue ? options.queue : options.queue.inbox;
  /**
   * An admitted activity for the blog's inbox (its own or the shared one) whose contexts are all
   * known goes straight onto the inbox queue, as Fedify's inbox handler would put it there, and is
   * answered 202. The handler would parse it twice more (its signature checks, which the gate has
   * done), and the worker parses it anyway: two thirds of the JSON-LD work of every activity. Any
   * other POST goes to Fedify (a context to fetch first: a 400 when it cannot be read).
   */
  const queuedDirectly = async (url: string, activity: Record<string, unknown>): Promise<boolean> => {
    if (!inboxQueue || !contextsAreKnown(activity)) return false;
    const route = context().parseUri(new URL(url));
    if (route?.type !== 'inbox' || (route.identifier !== undefined && route.identifier !== BLOG_ACTOR))
      return false;
    await inboxQueue.enqueue(queuedInboxActivity(origin, activity, route.identifier ?? null));
    return true;
  };

  /** Fedify's answer, or null when the blog's own routes answer (HTML, unknown paths). */
  const answerWithFedify = async (request: Request): Promise<Response | null> => {
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
  };

  const context = () => federation.createContext(origin, undefined);

  return {
    federation,
    origin,
    actorUri,
    articleUri,
    activityFor,
    noteActivityFor,
    context,
    owner: ownerActions({
      context,
      actorUri,
      followersUri,
      documents: loaders.documents,
      allow: options.allow,
      userAgent: options.userAgent,
    }),
    signerOf: (request) => signers.get(request) ?? null,
    async respond(request) {
      // Every POST, not only the inbox paths as written: Fedify takes only inbox POSTs, and an
      // inbox reached by another spelling of its path must not skip the gate.
      return request.method === 'POST' ? answerPost(request) : answerWithFedify(request);
    },
    async publish(kind, article) {
      const style = kind === 'delete' ? {} : await ports.site();
      await context().sendActivity(
        { identifier: BLOG_ACTOR },
        'followers',
        activityFor(kind, article, style),
        {
          preferSharedInbox: true,
          orderingKey: articleUri(article.id).href, // Create, Update, Delete arrive in order per server
        },
      );
    },
    async publishNote(kind, note) {
      const ctx = context();
      const activity = noteActivityFor(kind, note, kind === 'delete' ? {} : await ports.site());
      const options = { preferSharedInbox: true, orderingKey: note.uri };
      await ctx.sendActivity({ identifier: BLOG_ACTOR }, 'followers', activity, options);
      if (!note.mention) return;
      // Through the federation's loaders (the outbound policy); a failure leaves the event for the next poll.
      const author = await ctx.lookupObject(note.mention.actorUri);
      if (!isActor(author) || !author.id) throw new Error(`not an actor: ${note.mention.actorUri}`);
      await ctx.sendActivity({ identifier: BLOG_ACTOR }, author, activity, options);
    },
    async acceptFollow(follower, followActivityId) {
      const follow = new Follow({
        id: new URL(followActivityId),
        actor: new URL(follower.actorUri),
        object: actorUri,
      });
      await context().sendActivity(
        { identifier: BLOG_ACTOR },
        {
          id: new URL(follower.actorUri),
          inboxId: new URL(follower.inbox),
          endpoints: follower.sharedInbox ? { sharedInbox: new URL(follower.sharedInbox) } : null,
        },
        acceptOf(actorUri, follow),
      );
    },
    async moveFollowersTo(target) {
      const ctx = context();
      const account = await fetchActor(ctx, target, loaders.freshDocuments);
      if (!account?.id) throw new MoveRefusedError(`No fediverse account answers at ${target}`);
      if (!listsAlias(account, actorUri.href))
        throw new MoveRefusedError(
          `${target} does not list this blog (${actorUri.href}) among its other accounts (alsoKnownAs): add it there first`,
        );
      await ctx.sendActivity({ identifier: BLOG_ACTOR }, 'followers', moveOf(actorUri, account.id), {
        preferSharedInbox: true,
      });
      return account.id.href;
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
