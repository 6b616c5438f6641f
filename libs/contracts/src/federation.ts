import { z } from 'zod';

/**
 * The blog in the fediverse: what crosses RPC between the gateway, posts and
 * social for ActivityPub. One federation runs, in the social service; the gateway hands it the
 * requests this file's `isFederationRequest` picks out, posts answers Articles and keeps the log
 * of what must be sent (federation events), and social delivers them.
 */

/** Inbox POST bodies past this are refused with 413 (Mastodon's own activities stay far below). */
export const FEDERATION_MAX_BODY_BYTES = 256 * 1024;

/** Paths only the federation answers (webfinger, NodeInfo, the actor, its inboxes and collections). */
const FEDERATION_ONLY_PATHS = /^\/(?:\.well-known\/(?:webfinger|nodeinfo)|nodeinfo\/|ap\/)/;
/** The Article of a post: `/post/{id}`, the stable id (the tree URL changes with slug or category). */
const ARTICLE_PATH = /^\/post\/[1-9]\d{0,15}\/?$/;
/** A note's page, which is also its Note's id. */
const NOTE_PATH = /^\/notes\/[1-9]\d{0,9}\/?$/;
/** What an ActivityPub client sends in Accept (or a JSON-LD client with the ActivityStreams profile). */
const ACTIVITY_JSON = /application\/(?:activity\+json|ld\+json)/i;

/**
 * Whether the gateway hands a request to the federation: its own paths always, and a post's
 * stable URL when an ActivityPub client asks for JSON. A browser's page read never matches, so the
 * read path pays one regular expression for the fediverse and nothing else.
 */
export function isFederationRequest(path: string, accept: string | undefined): boolean {
  if (FEDERATION_ONLY_PATHS.test(path)) return true;
  return (ARTICLE_PATH.test(path) || NOTE_PATH.test(path)) && ACTIVITY_JSON.test(accept ?? '');
}

/** Whether a federation request is an inbox POST (rate-limited per remote server, body-capped). */
export const FEDERATION_INBOX_PATH = /^\/ap\/(?:inbox|actor\/[^/]+\/inbox)\/?$/;

/** Bounds of the headers a federation request carries; past them the gateway answers 431. */
export const FEDERATION_MAX_HEADERS = 200;
export const FEDERATION_MAX_HEADER_NAME = 256;
export const FEDERATION_MAX_HEADER_VALUE = 8192;
const headerList = z
  .array(z.tuple([z.string().max(FEDERATION_MAX_HEADER_NAME), z.string().max(FEDERATION_MAX_HEADER_VALUE)]))
  .max(FEDERATION_MAX_HEADERS);

/** An HTTP request the gateway hands to the federation (the URL is built on SITE_URL, never Host). */
export const federationHttpRequestSchema = z.object({
  method: z.enum(['GET', 'HEAD', 'POST']),
  url: z.url({ protocol: /^https?$/ }).max(4096),
  headers: headerList,
  /** The body, base64; at most FEDERATION_MAX_BODY_BYTES once decoded. */
  body: z
    .base64()
    .max(Math.ceil(FEDERATION_MAX_BODY_BYTES / 3) * 4)
    .optional(),
});
export type FederationHttpRequest = z.infer<typeof federationHttpRequestSchema>;

/**
 * The federation's answer, or `pass`: the blog's own routes answer (an HTML page, its 404).
 * `signer` is the host of the key whose signature (or proof) verified, for an inbox POST that
 * passed the federation's checks: only those count against a remote server's limit.
 */
export type FederationHttpAnswer =
  | { pass: true }
  | { pass: false; status: number; headers: [string, string][]; body: string | null; signer?: string | null };

/** A picture of a post as the Article's attachment. */
export interface ArticleImageView {
  url: string;
  mediaType: string;
  alt: string;
}

/** A visible post as the federation shows it: absolute links only, dates as ISO strings. */
export interface ArticleView {
  id: number;
  title: string;
  /** The sanitised HTML, links and pictures made absolute on SITE_URL. */
  html: string;
  excerpt: string;
  /** The post's page (its tree URL). */
  url: string;
  published: string;
  updated: string | null;
  tags: string[];
  images: ArticleImageView[];
  /** Approved comments (the Article's `replies` collection): remote Note ids or local comment URLs. */
  replies: { total: number; items: string[] };
}

/** `gone`: the post was federated and is deleted or unpublished since (410); null: no such post (404). */
export type ArticleAnswer = ArticleView | { gone: true } | null;

export const ARTICLE_OUTBOX_PAGE_MAX = 100;
export const articleQuerySchema = z.object({ postId: z.coerce.number().int().positive() });
export const articleOutboxQuerySchema = z.object({
  offset: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(ARTICLE_OUTBOX_PAGE_MAX).default(20),
});
/**
 * An outbox entry: the Create of a post names its Article by id. Whole Articles (up to 200,000
 * characters each) would make a page of megabytes, past NATS's 1 MB message limit; a client
 * fetches an Article it wants by its id.
 */
export interface ArticleRef {
  id: number;
  published: string;
}
export interface ArticleOutboxPage {
  /** Newest first. */
  items: ArticleRef[];
  total: number;
}

export const FEDERATION_EVENT_KINDS = ['create', 'update', 'delete'] as const;
export type FederationEventKind = (typeof FEDERATION_EVENT_KINDS)[number];

/**
 * One activity the blog owes its followers, written by posts in the same transaction as the post
 * change (so none is lost), due at the post's publish time (a scheduled post's Create waits for
 * its time), and marked done by social once handed to the delivery queue.
 */
export interface FederationEvent {
  id: string;
  /** The post whose Article it is; null for a note's or an owner's reply's Note. */
  postId: number | null;
  /** A note's (its Note is `/notes/{id}`). */
  noteId?: number | null;
  /** An owner's reply to a fediverse comment (its Note is the comment's URL under its post). */
  commentId?: number | null;
  kind: FederationEventKind;
  dueAt: string;
}

export const federationPendingQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(100),
});
export const federationEventDoneSchema = z.object({ id: z.uuid() });

/**
 * The gateway's limits on strangers' federation requests (per clock minute, in each gateway's
 * memory). Every inbox POST counts per client address; one whose signature verified counts per
 * remote server too (the host of the signer's key), so junk that only names a server's key
 * cannot spend that server's minute. Other federation requests (webfinger, the actor, Articles)
 * count per address.
 */
export const FEDERATION_INBOX_POSTS_PER_ADDRESS_PER_MINUTE = 300;
export const FEDERATION_INBOX_POSTS_PER_SERVER_PER_MINUTE = 600;
export const FEDERATION_READS_PER_ADDRESS_PER_MINUTE = 600;

/** What the gateway answers, as `{ error }`, when it refuses a federation request itself. */
export const FederationErrors = {
  tooManyRequests: 'Too many requests. Please try again later.',
  methodNotAllowed: 'Method not allowed',
  unsupportedMediaType: 'An inbox takes application/activity+json or application/ld+json',
  headersTooLarge: 'Request headers are too large',
  bodyTooSlow: 'The request body arrived too slowly',
  nestedTooDeep: 'The JSON body is nested too deep',
  tooManyValues: 'The JSON body holds too many values',
  unsigned: 'An inbox POST needs an HTTP signature or an object integrity proof',
} as const;

/**
 * Inbox bodies nested deeper than this (arrays and objects) are refused with 400 before they
 * reach the federation: real activities nest a few levels, and JSON-LD processing recurses.
 */
export const FEDERATION_MAX_JSON_DEPTH = 64;
