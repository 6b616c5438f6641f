// What other servers ask of the blog beyond follows and replies: who may quote its posts
// (FEP-044f), accounts that move (FEP-7628), and a post sent as a Note for Mastodon's timeline.
import { createHash } from 'node:crypto';
import type { Context } from '@fedify/fedify';
import {
  Accept,
  InteractionPolicy,
  InteractionRule,
  isActor,
  Move,
  PUBLIC_COLLECTION,
  QuoteAuthorization,
  QuoteRequest,
  Reject,
  type Actor,
} from '@fedify/vocab';
import type { DocumentLoader } from '@fedify/vocab-runtime';
import { FEDERATION_ACTOR_IDENTIFIER as BLOG_ACTOR } from './paths.js';
import type { ArticleData, FederationPorts, QuotePolicy, RemoteFollower, SiteData } from './ports.js';

export { QUOTE_STAMP_PATH } from './paths.js';

/**
 * The interactionPolicy of the blog's posts and notes: `canQuote` names who is approved at once:
 * everyone, the blog's followers, or (nobody) the blog itself only, as Mastodon writes it.
 */
export function interactionPolicyOf(
  site: Pick<SiteData, 'quotePolicy'>,
  blog: { actorUri: URL; followersUri: URL },
): InteractionPolicy {
  const policy: QuotePolicy = site.quotePolicy ?? 'anyone';
  const automaticApprovals =
    policy === 'anyone'
      ? [PUBLIC_COLLECTION]
      : policy === 'followers'
        ? [blog.followersUri, blog.actorUri]
        : [blog.actorUri];
  return new InteractionPolicy({ canQuote: new InteractionRule({ automaticApprovals }) });
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * A post as a Note's content: the title as a bold first line, the whole (already sanitised) text,
 * then the link to its page; Mastodon shows a Note's text in full.
 */
export function postNoteHtml(a: Pick<ArticleData, 'title' | 'html' | 'url'>): string {
  const url = escapeHtml(a.url);
  return `<p><strong>${escapeHtml(a.title)}</strong></p>${a.html}<p><a href="${url}">${url}</a></p>`;
}

export interface InteropDeps {
  ports: FederationPorts;
  actorUri: URL;
  /** The id of the stamp for a QuoteRequest id. */
  stampUri(id: string): URL;
  stampId(requestId: string): string;
  /** Whether a URI names one of the blog's posts or notes that can be seen. */
  isOurObject(ctx: Context<void>, uri: URL): Promise<boolean>;
  /** The federation's own loader: fetches obey the outbound address policy. */
  documents: DocumentLoader;
  describe(actor: Actor): Promise<RemoteFollower>;
}

/** The actor at `uri` (fetched fresh through the outbound policy), or null. */
export async function fetchActor(ctx: Context<void>, uri: string, documents: DocumentLoader) {
  const found = await ctx.lookupObject(uri, { documentLoader: documents }).catch(() => null);
  return isActor(found) && found.id?.href === uri ? found : null;
}

/** Whether the actor lists `alias` in its alsoKnownAs. */
export const listsAlias = (actor: Actor, alias: string) => actor.aliasIds.some((id) => id.href === alias);

/**
 * A QuoteRequest for one of our posts or notes: Accept with a stamp (a QuoteAuthorization served
 * at a stable URL) when the policy lets the requester quote, else Reject. The answer goes to the
 * requester's inbox; the stamp is stored before the Accept is sent.
 */
export async function answerQuoteRequest(
  ctx: Context<void>,
  request: QuoteRequest,
  deps: InteropDeps,
): Promise<void> {
  const { ports, actorUri } = deps;
  if (!request.id || !request.actorId || !request.objectId) return;
  if (await ports.blocked(request.actorId.href)) return;
  if (!(await deps.isOurObject(ctx, request.objectId))) return;
  // The quote itself: FEP-044f names it in `instrument` (embedded or by id).
  const quoteUri = request.instrumentId;
  const requester = await fetchActor(ctx, request.actorId.href, deps.documents);
  if (!requester) return;
  const policy = (await ports.site()).quotePolicy ?? 'anyone';
  const allowed =
    quoteUri !== null &&
    ports.quotes !== undefined &&
    (policy === 'anyone' ||
      (policy === 'followers' && ((await ports.followers.isFollower?.(request.actorId.href)) ?? false)));
  const answerId = (kind: string) =>
    new URL(`${actorUri.href}#quote-${kind}-${deps.stampId(request.id!.href)}`);
  if (!allowed) {
    await ctx.sendActivity(
      { identifier: BLOG_ACTOR },
      requester,
      new Reject({ id: answerId('reject'), actor: actorUri, to: request.actorId, object: request.id }),
    );
    return;
  }
  const id = deps.stampId(request.id.href);
  await ports.quotes!.add({
    id,
    activityId: request.id.href,
    actorUri: request.actorId.href,
    objectUri: request.objectId.href,
    quoteUri: quoteUri.href,
  });
  await ctx.sendActivity(
    { identifier: BLOG_ACTOR },
    requester,
    new Accept({
      id: answerId('accept'),
      actor: actorUri,
      to: request.actorId,
      object: request.id,
      result: deps.stampUri(id),
    }),
  );
  // The owner hears of an accepted quote as of a like or a boost.
  await ports.notify?.({
    kind: 'quote',
    activityId: request.id.href,
    actor: await deps.describe(requester),
    objectUri: request.objectId.href,
    html: null,
  });
}

/** The stamp of an accepted quote, as served at its URL. */
export function quoteAuthorizationOf(
  stamp: { quoteUri: string; objectUri: string },
  stampUri: URL,
  actorUri: URL,
): QuoteAuthorization {
  return new QuoteAuthorization({
    id: stampUri,
    attribution: actorUri,
    interactingObject: new URL(stamp.quoteUri),
    interactionTarget: new URL(stamp.objectUri),
  });
}

/**
 * A follower's Move (FEP-7628): the old account (the signer) names its new one; the new account's
 * actor, fetched fresh through the outbound policy, must list the old one in alsoKnownAs. Then
 * the follower row names the new account, so deliveries go there. Anything else is ignored.
 */
export async function followerMoved(ctx: Context<void>, move: Move, deps: InteropDeps): Promise<void> {
  const { ports } = deps;
  const old = move.actorId;
  if (!old || move.objectId?.href !== old.href || !move.targetId || !ports.followers.move) return;
  if (move.targetId.href === old.href) return;
  if ((await ports.blocked(old.href)) || (await ports.blocked(move.targetId.href))) return;
  const target = await fetchActor(ctx, move.targetId.href, deps.documents);
  if (!target?.inboxId || !listsAlias(target, old.href)) return;
  await ports.followers.move(old.href, await deps.describe(target));
}

/** The blog's own Move of its followers to `target`, whose actor must list the blog's. */
export function moveOf(actorUri: URL, target: URL): Move {
  return new Move({
    id: new URL(
      `${actorUri.href}#move-${createHash('sha256').update(target.href).digest('base64url').slice(0, 22)}`,
    ),
    actor: actorUri,
    object: actorUri,
    target,
    to: PUBLIC_COLLECTION,
  });
}
