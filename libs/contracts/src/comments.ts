import { z } from 'zod';

/**
 * Comments under a post: written by a signed-in reader of the site, or arriving as a
 * reply from the fediverse. The posts service stores and moderates them; this file is the one
 * place for their shape, limits and routes.
 */

/** Characters of a comment's text as written (Markdown-free plain text for site readers). */
export const COMMENT_CONTENT_MAX = 5_000;
/** A remote reply's HTML before sanitising; longer ones are refused, not cut. */
export const COMMENT_REMOTE_HTML_MAX = 20_000;
/** Comments a site reader may send per hour (the per-account limit). */
export const COMMENTS_PER_READER_HOUR = 10;
/** At most one "new comment to approve" mail to the owner per this many minutes. */
export const COMMENT_MAIL_EVERY_MINUTES = 60;
export const COMMENTS_PAGE_MAX = 100;

export const COMMENT_STATUSES = ['pending', 'approved', 'spam'] as const;
export type CommentStatus = (typeof COMMENT_STATUSES)[number];

export const CommentErrors = {
  contentRequired: 'Comment text is required',
  contentTooLong: `A comment is at most ${COMMENT_CONTENT_MAX} characters`,
  notFound: 'Comment not found',
  postNotFound: 'Post not found',
  parentNotFound: 'The comment answered is not under this post',
  tooMany: 'Too many comments; try again later',
  closed: 'Comments are closed on this post',
} as const;

export interface CommentAuthor {
  name: string;
  /** `@user@server` for a remote author; the site user's name for a local one. */
  handle: string | null;
  /** The author's profile page (remote), or null. */
  url: string | null;
  /** The remote author's actor id (what "Block this account" blocks); null for a local one. */
  actorUri: string | null;
  /** Path of the locally cached avatar (never the remote URL), or null. */
  avatarUrl: string | null;
  /** True for a signed-in reader of this site. */
  local: boolean;
}

/** A comment as every answer shows it. `content` is sanitised HTML. */
export interface CommentView {
  id: number;
  postId: number;
  parentId: number | null;
  status: CommentStatus;
  content: string;
  author: CommentAuthor;
  /** Where it came from when not this site: "Mastodon" for a fediverse reply, else null. */
  via: string | null;
  /** Present (true) only on the blog owner's reply from the dashboard: shown as the author's. */
  byOwner?: true;
  createdAt: string;
  updatedAt: string;
}

/** A post's approved comments, threaded one level deep: replies sit under their top comment. */
export interface CommentThread extends CommentView {
  replies: CommentView[];
}

export interface PostCommentsResult {
  postId: number;
  count: number;
  comments: CommentThread[];
}

export interface AdminCommentsResult {
  status: CommentStatus;
  total: number;
  page: number;
  pageSize: number;
  items: (CommentView & { post: { id: number; title: string; url: string } })[];
  counts: Record<CommentStatus, number>;
}

/** `POST /api/posts/{id}/comments` from a signed-in reader → 202 with the pending comment. */
export const commentCreateSchema = z.object({
  content: z
    .string({ error: CommentErrors.contentRequired })
    .trim()
    .min(1, CommentErrors.contentRequired)
    .max(COMMENT_CONTENT_MAX, CommentErrors.contentTooLong),
  parentId: z.coerce.number().int().positive().optional(),
});
export type CommentCreateInput = z.infer<typeof commentCreateSchema>;

export const adminCommentsQuerySchema = z.object({
  status: z.enum(COMMENT_STATUSES).default('pending'),
  page: z.coerce.number().int().min(1).default(1),
  pageSize: z.coerce.number().int().min(1).max(COMMENTS_PAGE_MAX).default(30),
});
export type AdminCommentsQuery = z.infer<typeof adminCommentsQuerySchema>;

/** Site-wide and per-post moderation choices. */
export const commentSettingsSchema = z.object({
  /** Approve at once a comment from an author who already has an approved one. */
  autoApproveKnown: z.boolean(),
});
export type CommentSettings = z.infer<typeof commentSettingsSchema>;

/** Comments one address may send per hour, whatever the account (the gateway's per-address limit). */
export const COMMENTS_PER_ADDRESS_HOUR = 30;

/** The per-post switch: `PUT /api/admin/posts/{id}/comments/settings`. */
export const postCommentSettingsSchema = commentSettingsSchema;
export interface PostCommentSettings extends CommentSettings {
  postId: number;
}

/** A comment's id as routes and services take it (a number, or its digits). */
export const commentIdSchema = z.coerce
  .number({ error: 'id must be a number' })
  .int()
  .positive('id must be a positive number')
  .max(2_147_483_647, 'id must be a positive number');

/** The fediverse author of a remote reply; `avatarKey` is the locally cached copy's storage key. */
export const commentActorSchema = z.object({
  uri: z.url().max(2000),
  name: z.string().trim().max(200).default(''),
  handle: z.string().trim().max(300).nullable().default(null),
  url: z.url().max(2000).nullable().default(null),
  avatarKey: z.string().max(500).nullable().default(null),
});
export type CommentActor = z.infer<typeof commentActorSchema>;

/**
 * A `Create{Note}` from the fediverse (the federation calls this): under `postId`, or under the
 * post or comment whose URL `inReplyTo` is. `html` is the Note's content before sanitising.
 */
export const remoteCommentCreateSchema = z
  .object({
    postId: z.coerce.number().int().positive().optional(),
    inReplyTo: z.string().max(2000).optional(),
    remoteObjectId: z.url().max(2000),
    actor: commentActorSchema,
    html: z.string().max(COMMENT_REMOTE_HTML_MAX, `A reply is at most ${COMMENT_REMOTE_HTML_MAX} characters`),
    published: z.iso.datetime({ offset: true }).optional(),
    via: z.string().max(100).default('Mastodon'),
  })
  .refine((value) => value.postId !== undefined || value.inReplyTo !== undefined, {
    message: 'postId or inReplyTo is required',
  });
export type RemoteCommentCreate = z.input<typeof remoteCommentCreateSchema>;

/** An `Update{Note}`: honoured only when `actorUri` wrote the comment. */
export const remoteCommentUpdateSchema = z.object({
  remoteObjectId: z.url().max(2000),
  actorUri: z.url().max(2000),
  html: z.string().max(COMMENT_REMOTE_HTML_MAX, `A reply is at most ${COMMENT_REMOTE_HTML_MAX} characters`),
});

/** A `Delete{Note}` (or Tombstone): honoured only when `actorUri` wrote the comment. */
export const remoteCommentDeleteSchema = z.object({
  remoteObjectId: z.url().max(2000),
  actorUri: z.url().max(2000),
});

/** A block: every comment of one actor, or of every actor on one server (host name). */
export const commentPurgeSchema = z
  .object({
    actorUri: z.url().max(2000).optional(),
    domain: z
      .string()
      .trim()
      .toLowerCase()
      .regex(/^[a-z0-9.-]+(:\d+)?$/, 'domain must be a host name')
      .max(300)
      .optional(),
  })
  .refine((value) => (value.actorUri === undefined) !== (value.domain === undefined), {
    message: 'actorUri or domain is required (one of them)',
  });

/** What the federation is told of a remote write: the comment, or null when nothing changed. */
export interface RemoteCommentResult {
  comment: CommentView | null;
}

/**
 * A comment in the blog archive (blog.json, under its post): what it takes to bring it back.
 * `id` and `parentId` are the exporting blog's, linking replies to their comment; the avatar
 * (a cached file) is not carried.
 */
export const archiveCommentSchema = z.object({
  id: z.number().int(),
  parentId: z.number().int().nullable(),
  status: z.enum(COMMENT_STATUSES),
  content: z.string().max(COMMENT_REMOTE_HTML_MAX),
  author: z.object({
    name: z.string().max(300),
    handle: z.string().max(300).nullable(),
    url: z.string().max(2000).nullable(),
    local: z.boolean(),
  }),
  remoteObjectId: z.string().max(2000).nullable(),
  remoteActorUri: z.string().max(2000).nullable(),
  via: z.string().max(100).nullable(),
  sourceId: z.string().max(400).nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type ArchiveComment = z.infer<typeof archiveCommentSchema>;
