// What the blog does with what arrives in its inbox: follows, reactions, and replies that become
// comments (through FederationPorts). Blocked actors are ignored; a signer writes for itself only
// (the inbox gate proved who signed before any of this runs).
import { createHash } from 'node:crypto';
import type { Context, Federation } from '@fedify/fedify';
import { preloadedContexts, type DocumentLoader } from '@fedify/vocab-runtime';
import { httpUrlOrNull } from '@blog/contracts';
import {
  Accept,
  Announce,
  Article,
  Create,
  Delete,
  Document,
  Follow,
  Image,
  isActor,
  Like,
  Mention,
  Move,
  Note,
  Page,
  Question,
  QuoteRequest,
  Reject,
  Undo,
  Update,
  type Actor,
} from '@fedify/vocab';
import { ExpiringMap } from './expiring-map.js';
import { answerQuoteRequest, followerMoved, type InteropDeps } from './interop.js';
import { FEDERATION_ACTOR_IDENTIFIER as BLOG_ACTOR, SHARED_INBOX_PATH, ACTOR_PATH } from './paths.js';
import type {
  FederationPorts,
  OwnerNotificationKind,
  ReaderEntry,
  RemoteComment,
  RemoteFollower,
} from './ports.js';

/** Remote accounts remembered in memory (each a few hundred bytes). */
const ACCOUNTS_REMEMBERED = 2_000;
/** How long a remote document stays in the KV cache (Fedify's kvCache default, which the loaders use). */
const DOCUMENT_CACHE_MS = 5 * 60_000;
/** Pictures a Reader entry keeps of a post (Mastodon allows 4). */
const READER_ATTACHMENTS_MAX = 4;
/** What the Reader shows: posts and notes, not chat messages or profile updates. */
type PostLike = Note | Article | Question | Page;
const isPostLike = (object: unknown): object is PostLike =>
  object instanceof Note || object instanceof Article || object instanceof Question || object instanceof Page;

export const shortHash = (text: string) => createHash('sha256').update(text).digest('base64url').slice(0, 22);
const asDate = (value: Temporal.Instant | null | undefined) =>
  value ? new Date(value.epochMilliseconds) : new Date();

export function listenToInbox(
  federation: Federation<void>,
  deps: {
    ports: FederationPorts;
    origin: URL;
    actorUri: URL;
    /** Documents with a short whole-fetch deadline. */
    quickDocuments: DocumentLoader;
    onInboxError?: (error: Error, activityId: string | null) => void;
    /** Quote requests (FEP-044f) and moves (FEP-7628). */
    interop: InteropDeps;
  },
): void {
  const { ports, origin, actorUri } = deps;
  /**
   * The object of a Create or Update: embedded, or fetched from its id with the short deadline.
   * An embedded object whose id is on another server than the activity's is not taken as sent:
   * it is fetched from its own id. A fetch that times out throws, so the queue parks the
   * activity for a retry; any other failure is no object.
   */
  const objectOf = async (ctx: Context<void>, activity: Create | Update | Announce): Promise<unknown> => {
    const options = { documentLoader: deps.quickDocuments, contextLoader: ctx.contextLoader };
    try {
      const object = await activity.getObject(options);
      if (object || !activity.objectId) return object;
      return await new Create({ object: activity.objectId }).getObject(options);
    } catch (error) {
      if (timedOut(error)) throw error;
      return null;
    }
  };
  const ours = (uri: URL | null) => uri !== null && uri.origin === origin.origin;
  const isOurArticle = (ctx: Context<void>, uri: URL) => ctx.parseUri(uri)?.type === 'object';
  const blocked = (actorId: URL) => ports.blocked(actorId.href);
  const quick = (ctx: Context<void>) => ({
    documentLoader: deps.quickDocuments,
    contextLoader: ctx.contextLoader,
    suppressError: true,
  });

  /**
   * A remote account by its id, in the blog's words; null when it cannot be had as an actor.
   * Remembered in memory as long as the document cache keeps its document: each of a followed
   * account's posts would otherwise parse its whole actor document again (a third of a Create's work).
   */
  const accounts = new ExpiringMap<RemoteFollower>(ACCOUNTS_REMEMBERED);
  const accountOf = async (ctx: Context<void>, id: URL): Promise<RemoteFollower | null> => {
    const known = accounts.get(id.href);
    if (known) return known;
    const found = await ctx.lookupObject(id.href, { documentLoader: deps.quickDocuments }).catch(() => null);
    if (!isActor(found) || found.id?.href !== id.href) return null;
    const account = await describe(found);
    accounts.set(id.href, account, DOCUMENT_CACHE_MS);
    return account;
  };

  const notify = async (
    ctx: Context<void>,
    kind: OwnerNotificationKind,
    activityId: URL | null,
    actor: URL | RemoteFollower,
    objectUri: string | null,
    html: string | null = null,
  ) => {
    if (!ports.notify || !activityId) return;
    const who = actor instanceof URL ? await accountOf(ctx, actor) : actor;
    if (who) await ports.notify({ kind, activityId: activityId.href, actor: who, objectUri, html });
  };

  /** Whether a post names the blog's actor in a Mention. */
  const mentionsUs = async (ctx: Context<void>, object: PostLike) => {
    for await (const tag of object.getTags(quick(ctx)))
      if (tag instanceof Mention && tag.href?.href === actorUri.href) return true;
    return false;
  };

  /** A followed account's post (or one it boosted) as a Reader entry; pictures only, at most 4. */
  const readerEntryOf = async (
    ctx: Context<void>,
    object: PostLike,
    activityId: URL,
    author: RemoteFollower,
    boostedBy: RemoteFollower | null,
  ): Promise<ReaderEntry | null> => {
    if (!object.id) return null;
    const attachments: ReaderEntry['attachments'] = [];
    for await (const a of object.getAttachments(quick(ctx))) {
      if (attachments.length >= READER_ATTACHMENTS_MAX) break;
      if (!(a instanceof Document || a instanceof Image)) continue;
      const url = httpUrlOrNull(a.url instanceof URL ? a.url.href : a.url?.href?.href);
      const mediaType = a.mediaType ?? '';
      if (url && /^image\//.test(mediaType))
        attachments.push({ url, mediaType, alt: a.name?.toString() ?? '' });
    }
    const url = object.url instanceof URL ? object.url.href : (object.url?.href?.href ?? null);
    return {
      activityId: activityId.href,
      objectUri: object.id.href,
      url: httpUrlOrNull(url),
      type:
        object instanceof Article
          ? 'Article'
          : object instanceof Question
            ? 'Question'
            : object instanceof Page
              ? 'Page'
              : 'Note',
      name: object.name?.toString() ?? null,
      html: object.content?.toString() ?? '',
      summary: object.summary?.toString() || null,
      sensitive: object.sensitive ?? false,
      attachments,
      published: asDate(object.published),
      inReplyTo: object.replyTargetId?.href ?? null,
      author,
      boostedBy,
    };
  };

  /** What a followed account wrote itself reaches the Reader. */
  const toReader = async (ctx: Context<void>, activity: Create | Update, object: unknown, actorId: URL) => {
    const reader = ports.reader;
    if (!reader || !isPostLike(object) || object.attributionId?.href !== actorId.href) return;
    if (!activity.id || !(await reader.follows(actorId.href))) return;
    const author = await accountOf(ctx, actorId);
    const entry = author && (await readerEntryOf(ctx, object, activity.id, author, null));
    if (!entry) return;
    await (activity instanceof Update ? reader.update(entry) : reader.add(entry));
  };

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

  /** A followed account boosted someone's post: it reaches the Reader, with who boosted it. */
  const boostToReader = async (ctx: Context<void>, announce: Announce, actorId: URL) => {
    const reader = ports.reader;
    if (!reader || !announce.id || !(await reader.follows(actorId.href))) return;
    const object = await objectOf(ctx, announce);
    if (!isPostLike(object) || !object.attributionId) return;
    const [author, booster] = await Promise.all([
      accountOf(ctx, object.attributionId),
      accountOf(ctx, actorId),
    ]);
    const entry = author && booster && (await readerEntryOf(ctx, object, announce.id, author, booster));
    if (entry) await reader.add(entry);
  };

  federation
    .setInboxListeners(`${ACTOR_PATH}/inbox`, SHARED_INBOX_PATH)
    .withIdempotency('per-inbox')
    .on(Follow, async (ctx, follow) => {
      if (!follow.id || !follow.actorId || follow.objectId?.href !== actorUri.href) return;
      if (await blocked(follow.actorId)) return;
      const follower = await follow.getActor(ctx);
      if (!follower?.id || !follower.inboxId || follower.id.href !== follow.actorId.href) return;
      const who = await describe(follower);
      const status = await ports.followers.add({ ...who, followActivityId: follow.id.href });
      await notify(ctx, 'follow', follow.id, who, null);
      if (status !== 'accepted') return;
      await ctx.sendActivity({ identifier: BLOG_ACTOR }, follower, acceptOf(actorUri, follow));
    })
    .on(Accept, async (_ctx, accept) => {
      // By objectId, never by dereferencing the Follow (G8): its id need not resolve.
      if (!accept.objectId || !accept.actorId || (await blocked(accept.actorId))) return;
      await ports.followAccepted?.(accept.objectId.href, accept.actorId.href);
    })
    .on(Reject, async (_ctx, reject) => {
      if (!reject.objectId || !reject.actorId) return;
      await ports.followRejected?.(reject.objectId.href, reject.actorId.href);
    })
    .on(Undo, async (ctx, undo) => {
      if (!undo.actorId) return;
      const inner = await undo
        .getObject({
          documentLoader: deps.quickDocuments,
          contextLoader: ctx.contextLoader,
          suppressError: true,
        })
        .catch(() => null);
      if (inner instanceof Follow) {
        if (inner.actorId?.href === undo.actorId.href && inner.objectId?.href === actorUri.href)
          await ports.followers.remove(undo.actorId.href);
      } else if (inner instanceof Like || inner instanceof Announce) {
        if (inner.id && inner.actorId?.href === undo.actorId.href) {
          await ports.undoReaction(inner.id.href, undo.actorId.href);
          if (inner instanceof Announce) await ports.reader?.removeBoost(inner.id.href, undo.actorId.href);
        }
      } else if (!inner && undo.objectId) {
        // Only an id that does not resolve: a reaction is found by it (and its actor), anything else is nothing.
        await ports.undoReaction(undo.objectId.href, undo.actorId.href);
        await ports.reader?.removeBoost(undo.objectId.href, undo.actorId.href);
      }
    })
    .on(Create, async (ctx, create) => {
      if (!create.actorId || (await blocked(create.actorId))) return;
      const object = await objectOf(ctx, create);
      const comment = await commentOf(ctx, object, create.actorId);
      if (comment) await ports.comments.create(comment);
      // The owner hears of a reply to something of the blog's, or of a post that mentions it.
      if (isPostLike(object) && object.id) {
        const toUs = ours(object.replyTargetId);
        if (toUs || (await mentionsUs(ctx, object)))
          await notify(
            ctx,
            toUs ? 'reply' : 'mention',
            object.id,
            create.actorId,
            object.id.href,
            object.content?.toString() ?? '',
          );
      }
      await toReader(ctx, create, object, create.actorId);
    })
    .on(Update, async (ctx, update) => {
      if (!update.actorId || (await blocked(update.actorId))) return;
      const object = await objectOf(ctx, update);
      const comment = await commentOf(ctx, object, update.actorId);
      if (comment) await ports.comments.update(comment);
      await toReader(ctx, update, object, update.actorId);
    })
    .on(Delete, async (_ctx, del) => {
      if (!del.actorId || !del.objectId) return;
      // An account deleting itself: it follows no more.
      if (del.objectId.href === del.actorId.href) await ports.followers.remove(del.actorId.href);
      else {
        await ports.comments.delete(del.objectId.href, del.actorId.href);
        await ports.reader?.remove(del.objectId.href, del.actorId.href);
      }
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
      await notify(ctx, 'like', like.id, like.actorId, like.objectId.href);
    })
    .on(Announce, async (ctx, announce) => {
      if (!announce.id || !announce.objectId || !announce.actorId || (await blocked(announce.actorId)))
        return;
      if (!ours(announce.objectId)) {
        await boostToReader(ctx, announce, announce.actorId);
        return;
      }
      if (!isOurArticle(ctx, announce.objectId)) return;
      await ports.reaction({
        kind: 'announce',
        activityId: announce.id.href,
        actorUri: announce.actorId.href,
        objectUri: announce.objectId.href,
      });
      await notify(ctx, 'boost', announce.id, announce.actorId, announce.objectId.href);
    })
    .on(QuoteRequest, (ctx, request) => answerQuoteRequest(ctx, request, deps.interop))
    .on(Move, (ctx, move) => followerMoved(ctx, move, deps.interop))
    .onError((_ctx, error) => deps.onInboxError?.(error, null));
}

/**
 * What Fedify's inbox handler puts on the inbox queue for an activity it took in (its InboxMessage,
 * which Fedify does not export): the worker that runs the listeners above reads this shape.
 */
export interface QueuedInboxActivity {
  type: 'inbox';
  id: string;
  baseUrl: string;
  activity: unknown;
  /** The actor whose own inbox it came to; null for the shared inbox. */
  identifier: string | null;
  attempt: number;
  started: string;
  traceContext: Record<string, string>;
}

export const queuedInboxActivity = (
  origin: URL,
  activity: unknown,
  identifier: string | null,
): QueuedInboxActivity => ({
  type: 'inbox',
  id: crypto.randomUUID(),
  baseUrl: origin.href,
  activity,
  identifier,
  attempt: 0,
  started: new Date().toISOString(),
  traceContext: {},
});

/**
 * Whether each JSON-LD context a document names, at any depth (scoped contexts inside inline ones
 * too), is built into Fedify or written inline, with no @import: reading it then fetches nothing,
 * and no context can fail to load.
 */
export function contextsAreKnown(json: unknown): boolean {
  const stack: unknown[] = [json];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value !== 'object' || value === null) continue;
    if (Array.isArray(value)) {
      stack.push(...value);
      continue;
    }
    for (const [key, inner] of Object.entries(value)) {
      if (key === '@import') return false;
      if (key === '@context')
        for (const context of Array.isArray(inner) ? inner : [inner])
          if (
            typeof context === 'string'
              ? !(context in preloadedContexts)
              : typeof context !== 'object' || context === null
          )
            return false;
      stack.push(inner);
    }
  }
  return true;
}

/** Whether an error (or one it was caused by) is a fetch that ran out of time. */
function timedOut(error: unknown): boolean {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++)
    if ((e as Error & { kind?: unknown }).kind === 'timeout' || e.name === 'TimeoutError') return true;
  return false;
}

/** The blog's Accept of a Follow: its id derives from the Follow's, so a repeat is the same Accept. */
export function acceptOf(actorUri: URL, follow: Follow): Accept {
  return new Accept({
    id: new URL(`${actorUri.href}#accept-${shortHash(follow.id!.href)}`),
    actor: actorUri,
    object: follow,
  });
}

/** A remote actor in the blog's words. */
export async function describe(actor: Actor): Promise<RemoteFollower> {
  const id = actor.id!;
  const icon = await actor.getIcon().catch(() => null);
  const url = actor.url instanceof URL ? actor.url.href : (actor.url?.href?.href ?? null);
  // A page, avatar or shared inbox that is not an http(s) link is none (the storage refuses it too).
  return {
    actorUri: id.href,
    handle: `@${actor.preferredUsername?.toString() ?? 'unknown'}@${id.host}`,
    name: actor.name?.toString() ?? null,
    url: httpUrlOrNull(url),
    inbox: actor.inboxId?.href ?? '',
    sharedInbox: httpUrlOrNull(actor.endpoints?.sharedInbox?.href),
    iconUrl: httpUrlOrNull(icon?.url instanceof URL ? icon.url.href : icon?.url?.href?.href),
  };
}
