import { z } from 'zod';
import { remoteUri } from './social.js';

/**
 * The owner's own side of the fediverse: the accounts the blog follows, the Reader (what they
 * post and boost), the blog's likes and boosts, and the notifications. The social service owns
 * them; this file is the one place for their shapes, limits and error texts.
 */

export const OwnerFediverseErrors = {
  account: 'account must be @user@server, or the http(s) URL of an account or its profile',
  notFound: 'No fediverse account answers at that address',
  notAnActor: 'That address is not a fediverse account',
  self: 'The blog cannot follow itself',
  followingNotFound: 'Not following that account',
  readerCursor: "cursor must be a Reader page's next",
  notificationsCursor: "cursor must be a notifications page's next",
  object: 'object must be the http(s) URL of a post or note in the fediverse',
  objectNotFound: 'That post or note could not be fetched',
} as const;

/** `@user@server` (the leading @ optional), as people write a fediverse handle. */
export const REMOTE_ACCOUNT_HANDLE =
  /^@?([a-z0-9_.-]{1,64})@((?:[a-z0-9-]{1,63}\.)*[a-z0-9-]{1,63}(?::\d{1,5})?)$/i;

/** What the owner types to follow someone: a handle, or an actor or profile URL. */
export const followAccountSchema = z.object({
  account: z
    .string({ error: OwnerFediverseErrors.account })
    .trim()
    .min(3, OwnerFediverseErrors.account)
    .max(2048, OwnerFediverseErrors.account)
    .refine(
      (value) => REMOTE_ACCOUNT_HANDLE.test(value) || remoteUri.safeParse(value).success,
      OwnerFediverseErrors.account,
    ),
});
export type FollowAccountInput = z.infer<typeof followAccountSchema>;

export const FOLLOWING_STATUSES = ['pending', 'accepted', 'rejected'] as const;
export type FollowingStatus = (typeof FOLLOWING_STATUSES)[number];

/** A remote account as the dashboard shows it; `avatar` is the blog's own cached copy's URL. */
export interface RemoteAccountView {
  uri: string;
  handle: string;
  name: string | null;
  url: string | null;
  avatar: string | null;
}

export interface FollowingView extends RemoteAccountView {
  id: number;
  status: FollowingStatus;
  since: string;
}
export interface FollowingListResult {
  items: FollowingView[];
  total: number;
}

/** A keyset cursor: the id of the last item of the previous page. */
const cursorSchema = (error: string) =>
  z
    .string({ error })
    .regex(/^[1-9][0-9]{0,17}$/, error)
    .optional();

export const READER_PAGE = 20;
export const readerQuerySchema = z.object({ cursor: cursorSchema(OwnerFediverseErrors.readerCursor) });
export type ReaderQuery = z.infer<typeof readerQuerySchema>;

export interface ReaderAttachment {
  /** The blog's cached copy (never the remote URL). */
  url: string;
  mediaType: string;
  alt: string;
}

export interface ReaderItem {
  id: string;
  /** The object's id (what a like, boost or reply names). */
  object: string;
  url: string | null;
  type: string;
  name: string | null;
  /** Sanitised on the server. */
  content: string;
  /** The content warning; the item stays folded until opened when there is one. */
  summary: string | null;
  sensitive: boolean;
  attachments: ReaderAttachment[];
  published: string;
  inReplyTo: string | null;
  author: RemoteAccountView;
  boostedBy: RemoteAccountView | null;
  liked: boolean;
  boosted: boolean;
}
export interface ReaderPage {
  items: ReaderItem[];
  next: string | null;
}

/** A like or boost the owner sends (or takes back). */
export const objectActionSchema = z.object({
  object: z.string({ error: OwnerFediverseErrors.object }).pipe(remoteUri),
});
export type ObjectActionInput = z.infer<typeof objectActionSchema>;
export const OWN_REACTION_KINDS = ['like', 'boost'] as const;
export type OwnReactionKind = (typeof OWN_REACTION_KINDS)[number];
export interface OwnReactionResult {
  object: string;
  kind: OwnReactionKind;
  /** True while the like or boost stands. */
  active: boolean;
}

export const NOTIFICATION_KINDS = ['follow', 'mention', 'reply', 'like', 'boost', 'quote'] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];
export const NOTIFICATIONS_PAGE = 30;
export const notificationsQuerySchema = z.object({
  cursor: cursorSchema(OwnerFediverseErrors.notificationsCursor),
});
export type NotificationsQuery = z.infer<typeof notificationsQuerySchema>;

export interface NotificationView {
  id: string;
  kind: NotificationKind;
  actor: RemoteAccountView;
  /** What it is about: one of our posts (like, boost, quote), or the remote Note (reply, mention). */
  object: string | null;
  /** A short plain-text extract of a reply or mention. */
  excerpt: string | null;
  createdAt: string;
  read: boolean;
}
export interface NotificationsPage {
  items: NotificationView[];
  next: string | null;
  unread: number;
}
/** Marks everything read (no `upTo`), or everything up to and including one id. */
export const notificationsReadSchema = z.object({
  upTo: z
    .string()
    .regex(/^[1-9][0-9]{0,17}$/, 'upTo must be a notification id')
    .optional(),
});

/** How long Reader items (and their cached pictures) are kept. */
export const READER_RETENTION_DAYS_DEFAULT = 30;
