import { z } from 'zod';

/**
 * The blog's social graph in the fediverse: its followers, the remote actors
 * behind them, its actor keys, blocks and the likes and announces of its posts. The social
 * service owns them; this file is the one place for their shapes, limits and error texts.
 */

export const FOLLOWER_STATUSES = ['pending', 'accepted'] as const;
export type FollowerStatus = (typeof FOLLOWER_STATUSES)[number];
export const REACTION_KINDS = ['like', 'announce'] as const;
export type ReactionKind = (typeof REACTION_KINDS)[number];
export const ACTOR_KEY_KINDS = ['rsa', 'ed25519'] as const;
export type ActorKeyKind = (typeof ACTOR_KEY_KINDS)[number];

export const SOCIAL_PAGE_DEFAULT = 30;
export const SOCIAL_PAGE_MAX = 100;
/** Longest remote URI or URL taken (an actor id, an inbox, an activity id). */
export const REMOTE_URI_MAX = 2048;

export const SocialErrors = {
  followerNotFound: 'Follower not found',
  notPending: 'This follower is not waiting for approval',
  blockNotFound: 'Block not found',
  blockTarget: 'Give either actor (an actor URL) or domain, not both',
  blockActor: 'actor must be an http(s) URL of a fediverse account',
  blockDomain: 'domain must be a host name such as mastodon.example',
  alreadyBlocked: 'This account or server is already blocked',
  blocked: 'This account or its server is blocked',
  uri: 'must be an http(s) URL',
  deliveryHost: 'host must be a server name such as mastodon.example (with its port, if any)',
  followersCursor: "cursor must be a followers page's nextCursor",
} as const;

/** An http(s) URL from another server (ids, inboxes, profile pages). */
export const remoteUri = z
  .string()
  .trim()
  .max(REMOTE_URI_MAX)
  .pipe(z.url({ protocol: /^https?$/, error: SocialErrors.uri }));

/** A host name (a server), lowercased: "Mastodon.Example." → "mastodon.example". */
export const domainSchema = z
  .string({ error: SocialErrors.blockDomain })
  .trim()
  .toLowerCase()
  .transform((value) => value.replace(/\.$/, ''))
  .pipe(
    z
      .string()
      .max(253, SocialErrors.blockDomain)
      .regex(/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/, {
        error: SocialErrors.blockDomain,
      }),
  );

/**
 * The post an Article id names: the blog's Articles are `{origin}/post/{id}` (libs/federation's
 * ports); anything else (another server's object, a comment) is null.
 */
export function articlePostId(objectUri: string, origin: string): number | null {
  return localObjectId(objectUri, origin, 'post');
}

/** The id of one of the blog's notes from its URI (`{origin}/notes/{id}`); null for anything else. */
export function noteIdOf(objectUri: string, origin: string): number | null {
  return localObjectId(objectUri, origin, 'notes');
}

function localObjectId(objectUri: string, origin: string, folder: 'post' | 'notes'): number | null {
  const prefix = `${origin.replace(/\/+$/, '')}/${folder}/`;
  if (!objectUri.startsWith(prefix)) return null;
  const id = objectUri.slice(prefix.length);
  return /^[1-9][0-9]{0,9}$/.test(id) && Number(id) <= 2_147_483_647 ? Number(id) : null;
}

/** What a like, boost or quote is of: one of the blog's posts or notes (by its URI here), else null. */
export type ReactionSubject = { postId: number } | { noteId: number };
export function reactionSubject(objectUri: string, origin: string): ReactionSubject | null {
  const postId = articlePostId(objectUri, origin);
  if (postId !== null) return { postId };
  const noteId = noteIdOf(objectUri, origin);
  return noteId !== null ? { noteId } : null;
}

/** The server part of an actor URI, lowercased (what a domain block matches). */
export function actorHost(uri: string): string {
  return new URL(uri).hostname.toLowerCase();
}

/** Whether `host` is `domain` or one of its sub-domains (a block of a server covers its sub-domains). */
export function hostInDomain(host: string, domain: string): boolean {
  return host === domain || host.endsWith(`.${domain}`);
}

/**
 * A remote account as the federation saw it (its actor document), stored for the follower list
 * and delivery; the fields of libs/federation's RemoteFollower.
 */
export const remoteActorSchema = z.object({
  actorUri: remoteUri,
  /** `user@server` or `@user@server`; stored without the leading "@". */
  handle: z
    .string()
    .trim()
    .max(300)
    .transform((value) => value.replace(/^@/, ''))
    .nullable()
    .default(null),
  name: z.string().trim().max(300).nullable().default(null),
  url: remoteUri.nullable().default(null),
  inbox: remoteUri,
  sharedInbox: remoteUri.nullable().default(null),
  iconUrl: remoteUri.nullable().default(null),
});
export type RemoteActorInput = z.input<typeof remoteActorSchema>;
export type RemoteActor = z.output<typeof remoteActorSchema>;

/** A Follow received: accepted at once, or kept pending when the owner approves followers. */
export const followCommandSchema = remoteActorSchema.extend({
  followActivityId: remoteUri,
  /** The site's `fediverse.approveFollowers` when the Follow arrived. */
  requireApproval: z.boolean().default(false),
});
export type FollowCommand = z.input<typeof followCommandSchema>;

export interface FollowResult {
  id: number;
  status: FollowerStatus;
  /** False when this actor already followed (the Follow repeated): nothing changed but the activity id. */
  created: boolean;
}

/** Undo{Follow}: the follower whose actor sent it (the Follow's id, when given, must match too). */
export const unfollowCommandSchema = z.object({
  actorUri: remoteUri,
  followActivityId: remoteUri.optional(),
});

/** Items a page of the followers or following collection holds. */
const collectionPageLimit = z.coerce.number().int().min(1).max(1000).default(100);

/** The followers collection's first page: it starts before every follower. */
export const FOLLOWERS_FIRST_CURSOR = '0';
/**
 * Where a page of the followers collection starts, as the previous page's `nextCursor` gave it
 * (opaque to callers: it is the last follower id of that page, so a page is an index range, not a
 * scan past the ones before it).
 */
export const followersCursorSchema = z
  .string({ error: SocialErrors.followersCursor })
  .regex(/^(0|[1-9][0-9]{0,9})$/, SocialErrors.followersCursor)
  .transform(Number)
  .refine((id) => id <= 2_147_483_647, SocialErrors.followersCursor);
/** The followers collection's pages (accepted followers only, oldest first). */
export const followersPageQuerySchema = z.object({
  cursor: followersCursorSchema.prefault(FOLLOWERS_FIRST_CURSOR),
  limit: collectionPageLimit,
});
/** A follower as the federation delivers to it (libs/federation's RemoteFollower); `handle` is `@user@host`. */
export interface FollowerRecipient {
  actorUri: string;
  handle: string;
  name: string | null;
  url: string | null;
  inbox: string;
  sharedInbox: string | null;
  iconUrl: string | null;
}
export interface FollowersPage {
  items: FollowerRecipient[];
  /** The next page's cursor; null on the last page. */
  nextCursor: string | null;
}

/** An account this blog follows (the `following` collection). */
export const followingCommandSchema = z.object({
  targetUri: remoteUri,
  followActivityId: remoteUri,
});
export const followingPageQuerySchema = z.object({
  offset: z.coerce.number().int().min(0).default(0),
  limit: collectionPageLimit,
});
/** Actor URIs this blog follows (accepted), oldest first. */
export interface FollowingPage {
  items: string[];
  total: number;
}

export const blockedQuerySchema = z.object({ actorUri: remoteUri });

/**
 * Like or Announce of a post or of a note (`postId` or `noteId`, one of them); one row per
 * activity id, so a repeated delivery counts once.
 */
export const reactionCommandSchema = z
  .object({
    activityId: remoteUri,
    postId: z.coerce.number().int().positive('postId must be a positive number').optional(),
    noteId: z.coerce.number().int().positive('noteId must be a positive number').optional(),
    actorUri: remoteUri,
    kind: z.enum(REACTION_KINDS, { error: 'kind must be like or announce' }),
  })
  .refine((r) => (r.postId === undefined) !== (r.noteId === undefined), {
    message: 'a reaction is of a post (postId) or of a note (noteId)',
  });
export type ReactionCommand = z.input<typeof reactionCommandSchema>;
/** Ids whose reactions to count: at most a page of the dashboard's list at a time. */
const reactionIds = (name: string) =>
  z
    .array(z.coerce.number().int().positive(`${name} must be positive numbers`))
    .max(1000, `${name} holds at most 1000 ids`);
/** The posts whose likes, announces and quotes to count. */
export const reactionCountsQuerySchema = z.object({ postIds: reactionIds('postIds') });
/** The notes whose likes, announces and quotes to count. */
export const noteReactionCountsQuerySchema = z.object({ noteIds: reactionIds('noteIds') });
/** By post (or note) id (likes, announces and accepted quotes); one nobody reacted to is absent. */
export type ReactionCounts = Record<number, { likes: number; announces: number; quotes: number }>;

/** Undo{Like|Announce}: only the actor who reacted can take it back. */
export const undoReactionCommandSchema = z.object({ activityId: remoteUri, actorUri: remoteUri });

/** A JSON Web Key (RFC 7517) as WebCrypto exports it. */
export interface Jwk {
  kty?: string;
  [member: string]: unknown;
}
/** A key pair as JWKs (the private half stays between the social service and the federation). */
export interface JwkPair {
  publicJwk: Jwk;
  privateJwk: Jwk;
}
/** The blog actor's key pairs by kind (libs/federation's ActorKeys). */
export type ActorKeyPairs = Record<ActorKeyKind, JwkPair>;

/** The admin's follower list: `handle` is `@user@server`. */
export interface FollowerView {
  id: number;
  handle: string;
  server: string;
  name: string | null;
  url: string | null;
  since: string;
  status: FollowerStatus;
}
export interface SocialCounts {
  accepted: number;
  pending: number;
  likes: number;
  announces: number;
}
export interface FollowerListResult {
  items: FollowerView[];
  total: number;
  page: number;
  pageSize: number;
  counts: SocialCounts;
}

const pageParam = (fallback: number, max: number, name: string) =>
  z.coerce
    .number({ error: `${name} must be a number` })
    .int(`${name} must be a whole number`)
    .min(1, `${name} must be at least 1`)
    .max(max, `${name} must be at most ${max}`)
    .default(fallback);

export const followerListQuerySchema = z.object({
  status: z.enum(FOLLOWER_STATUSES, { error: 'status must be pending or accepted' }).optional(),
  page: pageParam(1, 1_000_000, 'page'),
  pageSize: pageParam(SOCIAL_PAGE_DEFAULT, SOCIAL_PAGE_MAX, 'pageSize'),
});
export type FollowerListQuery = z.infer<typeof followerListQuerySchema>;

/** A numeric id in a path (followers, blocks). */
export const socialIdSchema = z.object({
  id: z.coerce.number({ error: 'id must be a number' }).int().positive('id must be a positive number'),
});

/** `POST /api/admin/fediverse/blocks`: `{actor}` (an account) or `{domain}` (a whole server). */
export const blockInputSchema = z
  .object({
    actor: z
      .string({ error: SocialErrors.blockActor })
      .trim()
      .max(REMOTE_URI_MAX, SocialErrors.blockActor)
      .pipe(z.url({ protocol: /^https?$/, error: SocialErrors.blockActor }))
      .optional(),
    domain: domainSchema.optional(),
  })
  .strict()
  .refine((input) => (input.actor === undefined) !== (input.domain === undefined), {
    error: SocialErrors.blockTarget,
  });
export type BlockInput = z.input<typeof blockInputSchema>;

export interface BlockView {
  id: number;
  /** The blocked account's URI, or null for a server block. */
  actor: string | null;
  /** The blocked server, or null for an account block. */
  domain: string | null;
  createdAt: string;
}
export interface BlockResult {
  block: BlockView;
  /** Followers the block removed (that account, or every account of that server). */
  removedFollowers: number;
}
export interface BlockListResult {
  items: BlockView[];
  total: number;
}

/** Why a delivery was given up (libs/federation's DeliveryGivenUp): 404/410, 48 hours of failures, or the host's circuit stayed open. */
export const DELIVERY_FAILURE_REASONS = ['gone', 'expired', 'dropped'] as const;
export type DeliveryFailureReason = (typeof DELIVERY_FAILURE_REASONS)[number];
/** The dashboard lists at most this many servers (the most recent failures). */
export const DELIVERY_FAILURES_MAX = 100;

/** The server a delivery failure is kept under: the inbox's host, with its port if not the default. */
export function deliveryHost(inbox: string): string {
  return new URL(inbox).host.toLowerCase();
}

/** A remote server deliveries to it were given up for; one per host, the latest failure's details. */
export interface DeliveryFailureView {
  host: string;
  inbox: string;
  lastActivityId: string | null;
  reason: DeliveryFailureReason;
  statusCode: number | null;
  error: string | null;
  firstFailedAt: string;
  lastFailedAt: string;
  /** Activities (posts, edits, accepts) given up for this server since its row appeared. */
  count: number;
}
export interface DeliveryFailureListResult {
  items: DeliveryFailureView[];
}

/** `DELETE /api/admin/fediverse/deliveries/{host}`: a host as deliveryHost gives it. */
export const deliveryFailureHostSchema = z.object({
  host: z
    .string({ error: SocialErrors.deliveryHost })
    .trim()
    .toLowerCase()
    .pipe(
      z
        .string()
        .min(1, SocialErrors.deliveryHost)
        .max(300, SocialErrors.deliveryHost)
        .regex(/^[a-z0-9.:[\]-]+$/, SocialErrors.deliveryHost),
    ),
});

/** Mastodon's domain-block CSV: its header, as Mastodon exports it and as the blog's export writes it. */
export const BLOCKLIST_CSV_HEADER =
  '#domain,#severity,#reject_media,#reject_reports,#public_comment,#obfuscate';
/** A blocklist upload: Mastodon's lists of a few thousand servers fit many times over. */
export const BLOCKLIST_MAX_BYTES = 1024 * 1024;
export const BLOCKLIST_MAX_LINES = 20_000;
/** Wrong lines reported (the rest are counted out, not listed). */
export const BLOCKLIST_MAX_ERRORS = 100;

/** `POST /api/admin/fediverse/blocks/import`'s answer. */
export interface BlocklistImportReport {
  /** Servers blocked by this import. */
  added: number;
  /** Rows not blocked: already blocked, named twice, or severity silence or noop. */
  skipped: number;
  /** Comments of the newly blocked servers removed, as a manual block removes them. */
  removedComments: number;
  errors: { line: number; message: string }[];
}

/** `POST /api/admin/fediverse/move`: the account (its actor URL) the blog's followers move to. */
export const moveFollowersSchema = z.object({
  target: z
    .string({ error: 'target must be the http(s) URL of the account to move to' })
    .trim()
    .max(REMOTE_URI_MAX, 'target must be the http(s) URL of the account to move to')
    .pipe(z.url({ protocol: /^https?$/, error: 'target must be the http(s) URL of the account to move to' })),
});
export type MoveFollowersInput = z.input<typeof moveFollowersSchema>;
export interface MoveFollowersResult {
  /** The target's actor id, now the site's movedTo. */
  movedTo: string;
}
