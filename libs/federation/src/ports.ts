// What the federation needs from the blog: plain data in and out, no Nest, no Fedify types. The gateway
// implements it on RPC clients, services/social on its own services, tests in memory.
import type { webcrypto } from 'node:crypto';
import type { FollowerRecipient } from '@blog/contracts';

/** A key as Web Crypto exports it (JWK). */
export type JsonWebKey = webcrypto.JsonWebKey;

/** A remote account as the blog keeps it (followers, comment authors): the contracts' FollowerRecipient. */
export type RemoteFollower = FollowerRecipient;

export interface ArticleImage {
  url: string;
  mediaType: string;
  alt: string;
}

/** A visible post as an Article; `html` holds absolute links only. */
export interface ArticleData {
  /** The post id; the Article's id is the stable `/post/{id}` URL. */
  id: number;
  title: string;
  html: string;
  excerpt: string;
  /** The post's page (tree URL). */
  url: string;
  published: Date;
  updated: Date | null;
  tags: string[];
  images: ArticleImage[];
  /** Approved comments: their count and ids (a remote Note's id, or the comment's URL here). */
  replies?: { total: number; items: string[] };
}

/** A note of the blog's, or the owner's reply to a fediverse comment, as a Note; `html` holds absolute links only. */
export interface NoteData {
  /** The Note's id: `{origin}/notes/{id}`, or the reply's comment URL under its post. */
  uri: string;
  url: string;
  html: string;
  published: Date;
  updated: Date | null;
  /** What it answers (a remote object's id), and that object's author, whom it mentions and is sent to. */
  inReplyTo: string | null;
  mention: { actorUri: string; handle: string } | null;
  /** Its pictures, absolute, as the Note's `Image` attachments (none when absent). */
  images?: ArticleImage[];
}

/** A reply (a Note) from the fediverse to one of our Articles or to a comment on one. */
export interface RemoteComment {
  /** The Note's id, which Update and Delete refer to. */
  objectUri: string;
  /** An Article id (`{origin}/post/{id}`) or the objectUri of an earlier comment. */
  inReplyToUri: string;
  actor: { uri: string; handle: string; name: string | null; url: string | null; iconUrl: string | null };
  /** As received: the receiver sanitises it. */
  html: string;
  published: Date;
}

export interface SiteData {
  origin: string;
  /** The configured handle's user part (`blog` in `@blog@example.org`). */
  handle: string;
  title: string;
  summaryHtml: string;
  iconUrl: string | null;
  imageUrl: string | null;
  approveFollowers: boolean;
  postCount: number;
  /** How posts are sent: an Article (default) or a Note carrying the title, the whole text and the link. */
  postFormat?: 'article' | 'note';
  /** Who may quote the blog's posts and notes (FEP-044f); default anyone. */
  quotePolicy?: QuotePolicy;
  /** The blog's other accounts (actor URIs), FEP-7628. */
  alsoKnownAs?: string[];
  /** Where the blog's followers were moved (an actor URI), or null. */
  movedTo?: string | null;
  /** Search consent, FEP-5feb (default true each). */
  indexable?: boolean;
  discoverable?: boolean;
  /** The following collection lists its accounts (default true); hidden, it gives their count only. */
  showFollowing?: boolean;
}

export type QuotePolicy = 'anyone' | 'followers' | 'nobody';

/** An accepted quote (FEP-044f): the stamp is served at `{origin}/ap/quotes/{id}` for third parties to check. */
export interface QuoteStamp {
  /** The stamp's path id. */
  id: string;
  /** The QuoteRequest's id. */
  activityId: string;
  actorUri: string;
  /** Our post's or note's id. */
  objectUri: string;
  /** The quoting post's id. */
  quoteUri: string;
}

export interface JwkPair {
  publicJwk: JsonWebKey;
  privateJwk: JsonWebKey;
}

export interface ActorKeys {
  rsa: JwkPair;
  ed25519: JwkPair;
}

export type ReactionKind = 'like' | 'announce';

export interface Reaction {
  kind: ReactionKind;
  activityId: string;
  actorUri: string;
  objectUri: string;
}

/** A post or note of an account the blog follows (or one it boosted), for the Reader. */
export interface ReaderEntry {
  /** The Create's or Announce's id: one Reader entry each. */
  activityId: string;
  objectUri: string;
  url: string | null;
  type: string;
  name: string | null;
  /** As received: the receiver sanitises it. */
  html: string;
  summary: string | null;
  sensitive: boolean;
  /** Remote picture URLs: the receiver caches them (never hot-linked). */
  attachments: { url: string; mediaType: string; alt: string }[];
  published: Date;
  inReplyTo: string | null;
  author: RemoteFollower;
  boostedBy: RemoteFollower | null;
}

export type OwnerNotificationKind = 'follow' | 'mention' | 'reply' | 'like' | 'boost' | 'quote';

/** Something the owner is told about; one per activity id. */
export interface OwnerNotification {
  kind: OwnerNotificationKind;
  activityId: string;
  actor: RemoteFollower;
  objectUri: string | null;
  /** As received (a reply's or mention's HTML): the receiver reduces it to plain text. */
  html: string | null;
}

export interface FederationPorts {
  site(): Promise<SiteData>;
  /** Made once and kept: the actor's keys never change on their own. */
  actorKeys(): Promise<ActorKeys>;
  followers: {
    /** Accepted followers, oldest first, from `cursor` (the first page's, or a page's nextCursor). */
    page(cursor: string, limit: number): Promise<{ items: RemoteFollower[]; nextCursor: string | null }>;
    /** How many accepted followers there are (the collection's totalItems). */
    count(): Promise<number>;
    /** 'pending' when the owner approves followers: no Accept is sent then. */
    add(follower: RemoteFollower & { followActivityId: string }): Promise<'accepted' | 'pending'>;
    remove(actorUri: string): Promise<void>;
    /** Whether this actor is an accepted follower (the quote policy "followers"). Optional. */
    isFollower?(actorUri: string): Promise<boolean>;
    /**
     * A follower moved (FEP-7628): its row now names the new account, kept accepted; false when
     * the old account was no follower. Optional.
     */
    move?(oldActorUri: string, account: RemoteFollower): Promise<boolean>;
  };
  /** Accepted quotes (counted with likes and boosts) and their stamps. Optional (quotes refused without it). */
  quotes?: {
    add(stamp: QuoteStamp): Promise<void>;
    stamp(id: string): Promise<QuoteStamp | null>;
  };
  /** Actor URIs the blog follows. */
  following(): Promise<string[]>;
  /** A remote actor accepted the blog's Follow (matched by the Follow's id). Optional. */
  followAccepted?(followActivityId: string, actorUri: string): Promise<void>;
  /** A remote actor refused the blog's Follow (matched by the Follow's id). Optional. */
  followRejected?(followActivityId: string, actorUri: string): Promise<void>;
  /** The Reader: what followed accounts post and boost. Optional (no Reader without it). */
  reader?: {
    /** Whether the blog follows this actor (accepted): only their activities reach the Reader. */
    follows(actorUri: string): Promise<boolean>;
    add(entry: ReaderEntry): Promise<void>;
    /** The author edited it: every entry of the object takes the new text. */
    update(entry: ReaderEntry): Promise<void>;
    /** The author deleted it (or undid a boost: `activityId`). */
    remove(objectUri: string, actorUri: string): Promise<void>;
    removeBoost(activityId: string, actorUri: string): Promise<void>;
  };
  /** Tells the owner (follows, mentions, replies, likes, boosts, quotes). Optional. */
  notify?(notification: OwnerNotification): Promise<void>;
  /** True when the actor or its domain is blocked. */
  blocked(actorUri: string): Promise<boolean>;
  reaction(reaction: Reaction): Promise<void>;
  undoReaction(activityId: string, actorUri: string): Promise<void>;
  articles: {
    /** null: no such visible post (404); 'gone': deleted or unpublished after federation (410). */
    byPostId(id: number): Promise<ArticleData | 'gone' | null>;
    /** Newest first, by id: the outbox's Creates name their Articles (contracts' ArticleRef). */
    outbox(
      offset: number,
      limit: number,
    ): Promise<{ items: { id: number; published: Date }[]; total: number }>;
  };
  /** The blog's notes (`/notes/{id}`). Optional (no Notes without it). */
  notes?: {
    /** null: no such note (404); 'gone': deleted (410). */
    byId(id: number): Promise<NoteData | 'gone' | null>;
  };
  comments: {
    create(comment: RemoteComment): Promise<void>;
    update(comment: RemoteComment): Promise<void>;
    delete(objectUri: string, actorUri: string): Promise<void>;
  };
}
