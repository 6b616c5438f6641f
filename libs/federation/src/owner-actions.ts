// What the owner does in the fediverse from the dashboard: look an account up (WebFinger or its
// URL), stop following it, like and boost other people's posts and take that back. Every fetch
// goes through the blog's loaders, so the outbound policy decides what may be reached.
import './temporal.js';
import type { Context } from '@fedify/fedify';
import { Announce, Follow, isActor, Like, PUBLIC_COLLECTION, Undo, type Actor } from '@fedify/vocab';
import type { DocumentLoader } from '@fedify/vocab-runtime';
import { REMOTE_ACCOUNT_HANDLE } from '@blog/contracts';
import type { OutboundAllowList } from '@blog/server-kit';
import { webFetch } from '@blog/server-kit';
import { describe, shortHash } from './inbox.js';
import { FEDERATION_ACTOR_IDENTIFIER as BLOG_ACTOR } from './paths.js';
import type { RemoteFollower } from './ports.js';

/** A WebFinger answer is a few hundred bytes; more is not one. */
const WEBFINGER_MAX_BYTES = 64 * 1024;
const WEBFINGER_MS = 4000;

export class AccountLookupError extends Error {
  constructor(
    readonly kind: 'not-found' | 'not-an-actor',
    message: string,
  ) {
    super(message);
  }
}

export type OwnReaction = 'like' | 'boost';

export interface OwnerActions {
  /** The account a handle (`@user@host`) or an actor or profile URL names, as the blog keeps it. */
  lookup(account: string): Promise<RemoteFollower>;
  /** Undo{Follow} of the blog's Follow, to the account. */
  unfollow(
    target: Pick<RemoteFollower, 'actorUri' | 'inbox' | 'sharedInbox'>,
    followActivityId: string,
  ): Promise<void>;
  /**
   * A Like or Announce of another server's post (to its author, and an Announce to the blog's
   * followers too), or its Undo (`undo`: the activity taken back). Answers the activity's id.
   */
  react(kind: OwnReaction, objectUri: string, undo?: string): Promise<string>;
}

const recipientOf = (account: Pick<RemoteFollower, 'actorUri' | 'inbox' | 'sharedInbox'>) => ({
  id: new URL(account.actorUri),
  inboxId: new URL(account.inbox),
  endpoints: account.sharedInbox ? { sharedInbox: new URL(account.sharedInbox) } : null,
});

export function ownerActions(deps: {
  context: () => Context<void>;
  actorUri: URL;
  followersUri: URL;
  documents: DocumentLoader;
  allow: OutboundAllowList;
  userAgent?: string;
}): OwnerActions {
  const { actorUri } = deps;
  const fetchWebFinger = webFetch(deps.allow, {
    userAgent: deps.userAgent,
    timeoutMs: WEBFINGER_MS,
    maxBytes: WEBFINGER_MAX_BYTES,
  });

  const actorAt = async (uri: string): Promise<Actor> => {
    const found = await deps
      .context()
      .lookupObject(uri, { documentLoader: deps.documents })
      .catch(() => null);
    if (found === null) throw new AccountLookupError('not-found', `nothing could be fetched at ${uri}`);
    if (!isActor(found) || !found.id || !found.inboxId)
      throw new AccountLookupError('not-an-actor', `${uri} is not a fediverse account`);
    return found;
  };

  /**
   * WebFinger over https; over http only for a host OUTBOUND_ALLOW names (a test's or a LAN
   * server), which has no certificate to speak of.
   */
  const webfinger = async (user: string, host: string): Promise<string> => {
    const resource = encodeURIComponent(`acct:${user}@${host}`);
    const hostname = host.replace(/:\d+$/, '');
    const schemes =
      deps.allow.allowsHost(hostname) || deps.allow.allowsAddress(hostname) ? ['https', 'http'] : ['https'];
    for (const scheme of schemes) {
      const answer = await fetchWebFinger(`${scheme}://${host}/.well-known/webfinger?resource=${resource}`, {
        headers: { accept: 'application/jrd+json, application/json' },
      }).catch(() => null);
      if (!answer?.ok) continue;
      const jrd = (await answer.json().catch(() => null)) as { links?: unknown } | null;
      const links = Array.isArray(jrd?.links) ? (jrd.links as Record<string, unknown>[]) : [];
      const self = links.find(
        (l) => l.rel === 'self' && typeof l.type === 'string' && /activity\+json|ld\+json/.test(l.type),
      );
      if (typeof self?.href === 'string') return self.href;
    }
    throw new AccountLookupError('not-found', `no account @${user}@${host} answers`);
  };

  return {
    async lookup(account) {
      const handle = REMOTE_ACCOUNT_HANDLE.exec(account.trim());
      const uri = handle ? await webfinger(handle[1]!, handle[2]!.toLowerCase()) : account.trim();
      return describe(await actorAt(uri));
    },

    async unfollow(target, followActivityId) {
      const follow = new Follow({
        id: new URL(followActivityId),
        actor: actorUri,
        object: new URL(target.actorUri),
      });
      const undo = new Undo({
        id: new URL(`${actorUri.href}#undo-follow-${shortHash(followActivityId)}-${Date.now().toString(36)}`),
        actor: actorUri,
        object: follow,
      });
      await deps.context().sendActivity({ identifier: BLOG_ACTOR }, recipientOf(target), undo);
    },

    async react(kind, objectUri, undo) {
      const ctx = deps.context();
      const object = await ctx.lookupObject(objectUri, { documentLoader: deps.documents }).catch(() => null);
      const authorId = object && 'attributionId' in object ? (object.attributionId as URL | null) : null;
      if (!object?.id || !authorId)
        throw new AccountLookupError('not-found', `${objectUri} could not be fetched as a post`);
      const author = await actorAt(authorId.href);
      const to = recipientOf(await describe(author));
      const stamp = `${shortHash(object.id.href)}-${Date.now().toString(36)}`;
      const addressing =
        kind === 'boost' ? { to: PUBLIC_COLLECTION, ccs: [deps.followersUri, authorId] } : { to: authorId };
      let activity: Like | Announce | Undo =
        kind === 'like'
          ? new Like({
              id: new URL(`${actorUri.href}#like-${stamp}`),
              actor: actorUri,
              object: object.id,
              ...addressing,
            })
          : new Announce({
              id: new URL(`${actorUri.href}#boost-${stamp}`),
              actor: actorUri,
              object: object.id,
              published: Temporal.Now.instant(),
              ...addressing,
            });
      if (undo) {
        const taken =
          kind === 'like'
            ? new Like({ id: new URL(undo), actor: actorUri, object: object.id })
            : new Announce({ id: new URL(undo), actor: actorUri, object: object.id });
        activity = new Undo({
          id: new URL(`${actorUri.href}#undo-${kind}-${stamp}`),
          actor: actorUri,
          object: taken,
          ...addressing,
        });
      }
      await ctx.sendActivity({ identifier: BLOG_ACTOR }, to, activity);
      // A boost (and its undo) reaches the blog's followers too, as Mastodon sends it.
      if (kind === 'boost')
        await ctx.sendActivity({ identifier: BLOG_ACTOR }, 'followers', activity, {
          preferSharedInbox: true,
        });
      return activity.id!.href;
    },
  };
}
