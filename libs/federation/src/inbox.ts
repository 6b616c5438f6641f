// What the blog does with what arrives in its inbox: follows, reactions, and replies that become
// comments (through FederationPorts). Blocked actors are ignored; a signer writes for itself only
// (the inbox gate proved who signed before any of this runs).
import { createHash } from 'node:crypto';
import type { Context, Federation } from '@fedify/fedify';
import type { DocumentLoader } from '@fedify/vocab-runtime';
import { httpUrlOrNull } from '@blog/contracts';
import {
  Accept,
  Announce,
  Create,
  Delete,
  Follow,
  isActor,
  Like,
  Note,
  Undo,
  Update,
  type Actor,
} from '@fedify/vocab';
import { FEDERATION_ACTOR_IDENTIFIER as BLOG_ACTOR, SHARED_INBOX_PATH, ACTOR_PATH } from './paths.js';
import type { FederationPorts, RemoteComment, RemoteFollower } from './ports.js';

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
  },
): void {
  const { ports, origin, actorUri } = deps;
  /**
   * The object of a Create or Update: embedded, or fetched from its id with the short deadline.
   * An embedded object whose id is on another server than the activity's is not taken as sent:
   * it is fetched from its own id. A fetch that times out throws, so the queue parks the
   * activity for a retry; any other failure is no object.
   */
  const objectOf = async (ctx: Context<void>, activity: Create | Update): Promise<unknown> => {
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
      await ctx.sendActivity({ identifier: BLOG_ACTOR }, follower, acceptOf(actorUri, follow));
    })
    .on(Accept, async (_ctx, accept) => {
      // By objectId, never by dereferencing the Follow (G8): its id need not resolve.
      if (!accept.objectId || !accept.actorId || (await blocked(accept.actorId))) return;
      await ports.followAccepted?.(accept.objectId.href, accept.actorId.href);
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
        if (inner.id && inner.actorId?.href === undo.actorId.href)
          await ports.undoReaction(inner.id.href, undo.actorId.href);
      } else if (!inner && undo.objectId) {
        // Only an id that does not resolve: a reaction is found by it (and its actor), anything else is nothing.
        await ports.undoReaction(undo.objectId.href, undo.actorId.href);
      }
    })
    .on(Create, async (ctx, create) => {
      if (!create.actorId || (await blocked(create.actorId))) return;
      const comment = await commentOf(ctx, await objectOf(ctx, create), create.actorId);
      if (comment) await ports.comments.create(comment);
    })
    .on(Update, async (ctx, update) => {
      if (!update.actorId || (await blocked(update.actorId))) return;
      const comment = await commentOf(ctx, await objectOf(ctx, update), update.actorId);
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
    .onError((_ctx, error) => deps.onInboxError?.(error, null));
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
