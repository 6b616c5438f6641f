import { z } from 'zod';

/**
 * Comments under a post (issue 30): written by a signed-in reader of the site, or arriving as a
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
  /** Path of the locally cached avatar (never the remote URL), or null. */
  avatarUrl: string | null;
  /** True for a signed-in reader of this site. */
  local: boolean;
}

/** A comment as every answer shows it (issue 30 §6). `content` is sanitised HTML. */
export interface CommentView {
  id: number;
  postId: number;
  parentId: number | null;
  status: CommentStatus;
  content: string;
  author: CommentAuthor;
  /** Where it came from when not this site: "Mastodon" for a fediverse reply, else null. */
  via: string | null;
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
