import { z } from 'zod';
import {
  loginSchema,
  passwordChangeSchema,
  registerSchema,
  roleChangeSchema,
  twoFactorConfirmSchema,
  type AccountView,
  type LoginResponse,
  type PublicUser,
  type RegisterResponse,
  type SessionState,
  type TwoFactorDisabled,
  type TwoFactorEnabled,
  type TwoFactorSetup,
} from './auth.js';
import {
  idempotencyKeySchema,
  idempotencyRequestSchema,
  type IdempotentAnswer,
  type StoredIdempotentAnswer,
} from './idempotency.js';
import type { ExportReport } from './blog-archive.js';
import { backupIdSchema, type BackupList, type BackupRunView } from './backups.js';
import {
  articleOutboxQuerySchema,
  articleQuerySchema,
  federationEventDoneSchema,
  federationHttpRequestSchema,
  federationPendingQuerySchema,
  type ArticleAnswer,
  type ArticleOutboxPage,
  type FederationEvent,
  type FederationHttpAnswer,
} from './federation.js';
import type { ImportReport } from './import.js';
import type { ImageSettings } from './image-settings.js';
import {
  contactSchema,
  messageListQuerySchema,
  subscribeSchema,
  frequencySchema,
  subscriberListQuerySchema,
  tokenCommandSchema,
  type ContactMessageView,
  type DigestRunResult,
  type MailAck,
  type MailListResult,
  type SubscriberView,
  type SubscriptionLinkResult,
} from './mail.js';
import type { BannerRendering } from './media.js';
import {
  newsletterEventDoneSchema,
  newsletterPendingQuerySchema,
  newsletterPostQuerySchema,
  newsletterPostRequestSchema,
  preferencesQuerySchema,
  preferencesUpdateSchema,
  type NewsletterEvent,
  type NewsletterPostAnswer,
  type NewsletterStatus,
  type NewsletterTestResult,
  type PreferencesView,
  type SubscriberCounts,
  type SubscriberImportReport,
} from './newsletter.js';
import {
  mediaResultSchema,
  mediaRunSchema,
  pendingMediaQuerySchema,
  type MediaRunStarted,
  type PendingMediaItem,
} from './media-jobs.js';
import {
  postListQuerySchema,
  postPreviewSchema,
  postUrlsQuerySchema,
  type PostListResult,
  type PostPreview,
  type PostUrlsResult,
  type PostView,
} from './posts.js';
import {
  adminCommentsQuerySchema,
  commentCreateSchema,
  commentIdSchema,
  commentPurgeSchema,
  commentSettingsSchema,
  remoteCommentCreateSchema,
  remoteCommentDeleteSchema,
  remoteCommentUpdateSchema,
  type AdminCommentsResult,
  type CommentSettings,
  type CommentView,
  type PostCommentSettings,
  type PostCommentsResult,
  type RemoteCommentResult,
} from './comments.js';
import { Patterns } from './rpc.js';
import {
  followAccountSchema,
  notificationsQuerySchema,
  notificationsReadSchema,
  objectActionSchema,
  OWN_REACTION_KINDS,
  readerQuerySchema,
  type FollowingListResult,
  type FollowingView,
  type NotificationsPage,
  type OwnReactionResult,
  type ReaderPage,
} from './fediverse-owner.js';
import { settingsUpdateSchema } from './settings.js';
import {
  blockedQuerySchema,
  blockInputSchema,
  deliveryFailureHostSchema,
  followCommandSchema,
  followerListQuerySchema,
  followersPageQuerySchema,
  followingCommandSchema,
  followingPageQuerySchema,
  reactionCommandSchema,
  moveFollowersSchema,
  reactionCountsQuerySchema,
  noteReactionCountsQuerySchema,
  remoteUri,
  socialIdSchema,
  undoReactionCommandSchema,
  unfollowCommandSchema,
  type ActorKeyPairs,
  type BlockListResult,
  type BlockResult,
  type DeliveryFailureListResult,
  type FollowerListResult,
  type FollowersPage,
  type FollowerView,
  type FollowingPage,
  type FollowResult,
  type MoveFollowersResult,
  type ReactionCounts,
} from './social.js';
import {
  commentReplySchema,
  federatedNoteQuerySchema,
  noteEditSchema,
  noteIdSchema,
  noteKeepSchema,
  noteMentionSchema,
  notePictureUploadSchema,
  notesQuerySchema,
  noteWriteSchema,
  type CommentReplyResult,
  type FederatedNoteAnswer,
  type NoteAnswer,
  type NoteMention,
  type NotesPage,
  type NoteView,
} from './notes.js';
import type { SiteConfig } from './site.js';
import {
  recentViewsRequestSchema,
  statsQuerySchema,
  viewBatchSchema,
  viewSaltRequestSchema,
  type StatsReport,
} from './stats.js';

/**
 * A message pattern's contract: the schema its handler validates the request with, and the
 * type of its answer (a type only: `answer` is never set at run time).
 */
export interface RpcContract<Request extends z.ZodType = z.ZodType, Answer = unknown> {
  readonly request: Request;
  readonly answer?: (answer: Answer) => void;
}

/** `rpc(schema).answers<T>()`: the contract of a pattern whose handler takes `schema` and answers T. */
export function rpc<Request extends z.ZodType>(request: Request) {
  return { answers: <Answer>(): RpcContract<Request, Answer> => ({ request }) };
}

/** A request that carries nothing. */
const none = z.object({});
/** A request that may come without data: none is taken as `{}` (its fields' defaults), as the handlers always did. */
const orEmpty = <S extends z.ZodType>(schema: S) => schema.prefault({} as z.input<S>);
/** The client's address, for the sign-in and registration limits. */
const withIp = { ip: z.string().min(1) };
/** The signed-in account a call acts for. */
const actor = z.object({ actorId: z.uuid() });
const userId = z.object({ id: z.uuid('user id must be a UUID') });
/** A post's id as the services take it (a number, or its digits). */
const postId = z.coerce
  .number({ error: 'id must be a number' })
  .int()
  .positive('id must be a positive number');
const idempotency = idempotencyRequestSchema.optional();
/** What a read of posts shows (PostReadOptions); none: what a visitor sees. */
const postReadOptions = z
  .object({
    includeAllMedia: z.boolean().optional(),
    includeUnpublished: z.boolean().optional(),
    includeHtml: z.boolean().optional(),
    includeSource: z.boolean().optional(),
  })
  .default({});
/** The post form as the gateway hands it over (PostWriteCommand): its fields, and its files already stored. */
const postWrite = z.object({
  fields: z.record(z.string(), z.string()),
  files: z
    .array(
      z.object({
        key: z.string().min(1),
        type: z.enum(['image', 'video']),
        mimeType: z.string(),
        name: z.string(),
        size: z.number().int().nonnegative(),
      }),
    )
    .default([]),
  idempotency,
});

/** The sender's address, for the per-address limits of the public forms. */
const senderIp = { ip: z.string().min(1).max(64) };

/**
 * Each typed pattern once, with its request schema and its answer: the gateway's ServiceClients
 * infers a call's answer from the pattern, the service's handler validates with the same
 * schema (parseRequest of server-kit). Every pattern of Patterns is here (rpc-contracts.spec.ts).
 */
export const RpcContracts = {
  [Patterns.auth.login]: rpc(loginSchema.extend(withIp)).answers<LoginResponse>(),
  [Patterns.auth.register]: rpc(registerSchema.extend(withIp)).answers<RegisterResponse>(),
  [Patterns.auth.listUsers]: rpc(none).answers<PublicUser[]>(),
  [Patterns.auth.setRole]: rpc(userId.extend(roleChangeSchema.shape)).answers<PublicUser>(),
  [Patterns.auth.deleteUser]: rpc(userId.extend(actor.shape)).answers<{ success: true }>(),
  [Patterns.auth.sessionState]: rpc(userId).answers<SessionState | null>(),
  [Patterns.auth.account]: rpc(actor).answers<AccountView>(),
  [Patterns.auth.changePassword]: rpc(passwordChangeSchema.extend(actor.shape)).answers<LoginResponse>(),
  [Patterns.auth.revokeSessions]: rpc(actor).answers<LoginResponse>(),
  [Patterns.auth.twoFactorSetup]: rpc(actor).answers<TwoFactorSetup>(),
  [Patterns.auth.twoFactorEnable]: rpc(
    twoFactorConfirmSchema.extend(actor.shape),
  ).answers<TwoFactorEnabled>(),
  [Patterns.auth.twoFactorDisable]: rpc(
    twoFactorConfirmSchema.extend(actor.shape),
  ).answers<TwoFactorDisabled>(),
  [Patterns.auth.twoFactorRecoveryCodes]: rpc(
    twoFactorConfirmSchema.extend(actor.shape),
  ).answers<TwoFactorEnabled>(),
  // posts.list, get and getBySlug: their handler checks each field with its schema here (so a
  // 400 names the field as it always did, not as `query.limit`).
  [Patterns.posts.list]: rpc(
    z.object({ query: postListQuerySchema, options: postReadOptions }),
  ).answers<PostListResult>(),
  [Patterns.posts.get]: rpc(z.object({ id: postId, options: postReadOptions })).answers<PostView>(),
  [Patterns.posts.getBySlug]: rpc(
    z.object({ slug: z.string().min(1).max(200), options: postReadOptions }),
  ).answers<PostView>(),
  [Patterns.posts.create]: rpc(postWrite).answers<IdempotentAnswer<PostView>>(),
  [Patterns.posts.update]: rpc(postWrite.extend({ id: postId })).answers<IdempotentAnswer<PostView>>(),
  /** A post form's stored answer for its Idempotency-Key (the key's fingerprint names the form's route). */
  [Patterns.posts.idempotentAnswer]: rpc(
    z.object({ key: idempotencyKeySchema }),
  ).answers<StoredIdempotentAnswer<PostView> | null>(),
  [Patterns.posts.referencedKeys]: rpc(z.object({ keys: z.array(z.string()).max(1000) })).answers<string[]>(),
  /** An import of an uploaded file (its options are checked by the import, after the file's format). */
  [Patterns.posts.importStart]: rpc(
    z.object({ fileKey: z.string().startsWith('private/imports/'), options: z.unknown().optional() }),
  ).answers<ImportReport>(),
  [Patterns.posts.importReport]: rpc(z.object({ id: z.string() })).answers<ImportReport>(),
  /** The current path of the post an old URL belonged to, or null. */
  [Patterns.posts.oldPath]: rpc(z.object({ path: z.string().max(1000) })).answers<string | null>(),
  [Patterns.posts.exportStart]: rpc(none).answers<ExportReport>(),
  [Patterns.posts.exportReport]: rpc(z.object({ id: z.string() })).answers<ExportReport>(),
  /** Uses up a download link's id: true the first time only, whichever gateway asks. */
  [Patterns.posts.claimExportLink]: rpc(
    z.object({ id: z.uuid(), expiresAt: z.coerce.date() }),
  ).answers<boolean>(),
  /** Starts a backup now, or answers the one running (one at a time, across replicas). */
  [Patterns.posts.backupStart]: rpc(none).answers<BackupRunView>(),
  [Patterns.posts.backupList]: rpc(none).answers<BackupList>(),
  /** A malformed id is a 400, an unknown one a 404. */
  [Patterns.posts.backupGet]: rpc(z.object({ id: backupIdSchema })).answers<BackupRunView>(),
  /** Page URLs and update times of all posts in chunks (no query: the first chunk). */
  [Patterns.posts.urls]: rpc(orEmpty(postUrlsQuerySchema)).answers<PostUrlsResult>(),
  [Patterns.posts.preview]: rpc(orEmpty(postPreviewSchema)).answers<PostPreview>(),
  [Patterns.posts.delete]: rpc(orEmpty(z.object({ id: postId, idempotency }))).answers<
    IdempotentAnswer<{ deleted: true }>
  >(),
  [Patterns.posts.retryMedia]: rpc(
    orEmpty(z.object({ id: postId, itemId: z.string().uuid('itemId must be a media item id'), idempotency })),
  ).answers<IdempotentAnswer<PostView>>(),
  [Patterns.posts.pendingMedia]: rpc(orEmpty(pendingMediaQuerySchema)).answers<PendingMediaItem[]>(),
  [Patterns.posts.mediaResult]: rpc(mediaResultSchema).answers<{ applied: boolean }>(),
  [Patterns.posts.mediaRunStarted]: rpc(mediaRunSchema).answers<MediaRunStarted>(),
  [Patterns.posts.mediaRunFailed]: rpc(mediaRunSchema).answers<{ recorded: true }>(),
  [Patterns.posts.recordViews]: rpc(viewBatchSchema).answers<{ recorded: number }>(),
  [Patterns.posts.viewSalt]: rpc(viewSaltRequestSchema).answers<string>(),
  [Patterns.posts.stats]: rpc(statsQuerySchema).answers<StatsReport>(),
  [Patterns.posts.recentViews]: rpc(recentViewsRequestSchema).answers<Record<number, number>>(),
  [Patterns.posts.site]: rpc(none).answers<SiteConfig>(),
  [Patterns.posts.siteVersion]: rpc(none).answers<number>(),
  [Patterns.posts.siteRedirects]: rpc(none).answers<Record<string, string>>(),
  /** The site as GET /api/site answers it (checked by the posts service), and the posts of removed nodes' `moves`. */
  [Patterns.posts.updateSite]: rpc(
    z.object({
      site: z.unknown().optional(),
      moves: z.unknown().optional(),
      idempotency: idempotencyRequestSchema.optional(),
    }),
  ).answers<IdempotentAnswer<SiteConfig>>(),
  /** Media items (by id) to process now. */
  [Patterns.media.enqueue]: rpc(z.object({ ids: z.array(z.uuid()).max(1000) })).answers<{ queued: number }>(),
  [Patterns.media.getSettings]: rpc(none).answers<ImageSettings>(),
  [Patterns.media.updateSettings]: rpc(
    settingsUpdateSchema.extend({ idempotency: idempotencyRequestSchema.optional() }),
  ).answers<IdempotentAnswer<ImageSettings>>(),
  [Patterns.media.renderBanner]: rpc(
    z.object({ originalKey: z.string().startsWith('private/originals/') }),
  ).answers<BannerRendering>(),
  /** `key`: the stored 96x96 WebP (shown as /uploads/{key}); a URL that cannot be used is a 400 or 422. */
  [Patterns.media.cacheAvatar]: rpc(
    z.object({ url: z.url({ protocol: /^https?$/, error: 'url must be an http(s) URL' }).max(2000) }),
  ).answers<{ key: string }>(),
  /** `key`: the stored WebP (at most 1280 px wide); its keys start with media/pictures/. */
  [Patterns.media.cachePicture]: rpc(
    z.object({ url: z.url({ protocol: /^https?$/, error: 'url must be an http(s) URL' }).max(2000) }),
  ).answers<{ key: string }>(),
  [Patterns.media.dropPictures]: rpc(
    z.object({ keys: z.array(z.string().regex(/^media\/pictures\/[0-9a-f]{64}\/\d{12}\.webp$/)).max(1000) }),
  ).answers<{ dropped: number }>(),
  [Patterns.mail.contact]: rpc(contactSchema.extend(senderIp)).answers<MailAck>(),
  [Patterns.mail.subscribe]: rpc(subscribeSchema.extend(senderIp)).answers<MailAck>(),
  /** A link's token (a malformed one is answered like an unknown one: 404, the link is invalid). */
  [Patterns.mail.confirm]: rpc(tokenCommandSchema).answers<SubscriptionLinkResult>(),
  [Patterns.mail.unsubscribeInfo]: rpc(tokenCommandSchema).answers<SubscriptionLinkResult>(),
  [Patterns.mail.unsubscribe]: rpc(tokenCommandSchema).answers<SubscriptionLinkResult>(),
  [Patterns.mail.runDigest]: rpc(none).answers<DigestRunResult>(),
  /** No query at all is the first page. */
  [Patterns.mail.listMessages]: rpc(orEmpty(messageListQuerySchema)).answers<
    MailListResult<ContactMessageView>
  >(),
  [Patterns.mail.listSubscribers]: rpc(orEmpty(subscriberListQuerySchema)).answers<
    MailListResult<SubscriberView>
  >(),
  /** Subscribers from a blog archive; `madeHere`: the archive is this blog's own (else confirmations are not carried over). */
  [Patterns.mail.restoreSubscribers]: rpc(
    z.object({
      subscribers: z
        .array(
          z.object({
            email: z.string().trim().toLowerCase().max(254).pipe(z.email()),
            status: z.enum(['pending', 'confirmed', 'unsubscribed']),
            createdAt: z.iso.datetime(),
            confirmedAt: z.iso.datetime().nullable(),
            unsubscribedAt: z.iso.datetime().nullable(),
          }),
        )
        .max(1000),
      madeHere: z.boolean().default(false),
    }),
  ).answers<{ restored: number; unconfirmed: number }>(),
  [Patterns.social.keys]: rpc(none).answers<ActorKeyPairs>(),
  [Patterns.social.follow]: rpc(followCommandSchema).answers<FollowResult>(),
  [Patterns.social.unfollow]: rpc(unfollowCommandSchema).answers<{ removed: boolean }>(),
  [Patterns.social.followersPage]: rpc(orEmpty(followersPageQuerySchema)).answers<FollowersPage>(),
  [Patterns.social.listFollowers]: rpc(orEmpty(followerListQuerySchema)).answers<FollowerListResult>(),
  [Patterns.social.removeFollower]: rpc(socialIdSchema).answers<{ removed: true }>(),
  /** The follower now accepted, with what the federation needs to send its Accept. */
  [Patterns.social.approveFollower]: rpc(socialIdSchema).answers<
    FollowerView & { actorUri: string; followActivityId: string }
  >(),
  [Patterns.social.addFollowing]: rpc(followingCommandSchema).answers<{ created: boolean }>(),
  [Patterns.social.acceptFollowing]: rpc(z.object({ followActivityId: remoteUri })).answers<{
    accepted: boolean;
  }>(),
  [Patterns.social.removeFollowing]: rpc(z.object({ targetUri: remoteUri })).answers<{ removed: boolean }>(),
  [Patterns.social.followingPage]: rpc(orEmpty(followingPageQuerySchema)).answers<FollowingPage>(),
  [Patterns.social.blocked]: rpc(blockedQuerySchema).answers<boolean>(),
  [Patterns.social.addBlock]: rpc(blockInputSchema).answers<BlockResult>(),
  [Patterns.social.listBlocks]: rpc(none).answers<BlockListResult>(),
  [Patterns.social.removeBlock]: rpc(socialIdSchema).answers<{ removed: true }>(),
  [Patterns.social.reaction]: rpc(reactionCommandSchema).answers<{ recorded: boolean }>(),
  [Patterns.social.undoReaction]: rpc(undoReactionCommandSchema).answers<{ removed: boolean }>(),
  [Patterns.social.reactionCounts]: rpc(reactionCountsQuerySchema).answers<ReactionCounts>(),
  [Patterns.social.noteReactionCounts]: rpc(noteReactionCountsQuerySchema).answers<ReactionCounts>(),
  [Patterns.social.ownerFollow]: rpc(followAccountSchema).answers<FollowingView>(),
  [Patterns.social.ownerFollowing]: rpc(none).answers<FollowingListResult>(),
  [Patterns.social.ownerUnfollow]: rpc(socialIdSchema).answers<{ removed: true }>(),
  [Patterns.social.moveFollowers]: rpc(moveFollowersSchema).answers<MoveFollowersResult>(),
  [Patterns.social.readerPage]: rpc(orEmpty(readerQuerySchema)).answers<ReaderPage>(),
  [Patterns.social.ownReaction]: rpc(
    objectActionSchema.extend({ kind: z.enum(OWN_REACTION_KINDS), active: z.boolean() }),
  ).answers<OwnReactionResult>(),
  [Patterns.social.notifications]: rpc(orEmpty(notificationsQuerySchema)).answers<NotificationsPage>(),
  [Patterns.social.notificationsUnread]: rpc(none).answers<{ unread: number }>(),
  [Patterns.social.notificationsRead]: rpc(orEmpty(notificationsReadSchema)).answers<{ marked: number }>(),
  [Patterns.posts.comments]: rpc(z.object({ postId })).answers<PostCommentsResult>(),
  /** The reader is the gateway's verified account; `ip` for the per-address limit. */
  [Patterns.posts.commentCreate]: rpc(
    commentCreateSchema.extend({
      postId,
      userId: z.uuid(),
      userName: z.string().min(1).max(200),
      ip: z.string().min(1).max(64),
      idempotency,
    }),
  ).answers<IdempotentAnswer<CommentView>>(),
  [Patterns.posts.commentsAdmin]: rpc(orEmpty(adminCommentsQuerySchema)).answers<AdminCommentsResult>(),
  [Patterns.posts.commentModerate]: rpc(
    z.object({ id: commentIdSchema, status: z.enum(['approved', 'spam']) }),
  ).answers<CommentView>(),
  [Patterns.posts.commentDelete]: rpc(z.object({ id: commentIdSchema })).answers<{ deleted: true }>(),
  [Patterns.posts.commentSettings]: rpc(none).answers<CommentSettings>(),
  [Patterns.posts.commentSettingsUpdate]: rpc(commentSettingsSchema).answers<CommentSettings>(),
  [Patterns.posts.commentPostSettings]: rpc(
    commentSettingsSchema.extend({ postId }),
  ).answers<PostCommentSettings>(),
  [Patterns.posts.commentCreateRemote]: rpc(remoteCommentCreateSchema).answers<RemoteCommentResult>(),
  [Patterns.posts.commentUpdateRemote]: rpc(remoteCommentUpdateSchema).answers<RemoteCommentResult>(),
  [Patterns.posts.commentDeleteRemote]: rpc(remoteCommentDeleteSchema).answers<{ deleted: boolean }>(),
  [Patterns.posts.commentPurge]: rpc(commentPurgeSchema).answers<{ deleted: number }>(),
  [Patterns.posts.commentPostSettingsGet]: rpc(z.object({ postId })).answers<PostCommentSettings>(),
  [Patterns.posts.article]: rpc(articleQuerySchema).answers<ArticleAnswer>(),
  [Patterns.posts.articleOutbox]: rpc(orEmpty(articleOutboxQuerySchema)).answers<ArticleOutboxPage>(),
  [Patterns.posts.federationPending]: rpc(orEmpty(federationPendingQuerySchema)).answers<FederationEvent[]>(),
  [Patterns.posts.federationDone]: rpc(federationEventDoneSchema).answers<{ done: boolean }>(),
  /** `pictures`: image files the gateway already stored, in order. */
  [Patterns.posts.noteCreate]: rpc(
    noteWriteSchema.extend({
      mention: noteMentionSchema.nullable().default(null),
      pictures: z.array(notePictureUploadSchema).default([]),
    }),
  ).answers<NoteView>(),
  /** `keep`: the pictures that stay (absent: all); `pictures`: new ones after them. */
  [Patterns.posts.noteUpdate]: rpc(
    noteEditSchema.extend({
      id: noteIdSchema,
      keep: noteKeepSchema.optional(),
      pictures: z.array(notePictureUploadSchema).default([]),
    }),
  ).answers<NoteView>(),
  [Patterns.posts.noteDelete]: rpc(z.object({ id: noteIdSchema })).answers<{ deleted: true }>(),
  /** Any caller: a deleted note answers `gone` (its page is a 410). */
  [Patterns.posts.noteGet]: rpc(z.object({ id: noteIdSchema })).answers<NoteAnswer>(),
  [Patterns.posts.notesPage]: rpc(orEmpty(notesQuerySchema)).answers<NotesPage>(),
  [Patterns.posts.federatedNote]: rpc(federatedNoteQuerySchema).answers<FederatedNoteAnswer>(),
  /** The reply (an approved comment of the blog's owner) under the comment's post. */
  [Patterns.posts.commentOwnerReply]: rpc(
    commentReplySchema.extend({ commentId: commentIdSchema }),
  ).answers<CommentReplyResult>(),
  [Patterns.social.http]: rpc(federationHttpRequestSchema).answers<FederationHttpAnswer>(),
  [Patterns.social.replyTarget]: rpc(z.object({ objectUri: z.url().max(2048) })).answers<NoteMention>(),
  [Patterns.social.deliveryFailures]: rpc(none).answers<DeliveryFailureListResult>(),
  [Patterns.social.dismissDeliveryFailure]: rpc(deliveryFailureHostSchema).answers<{ removed: boolean }>(),
  [Patterns.mail.commentPending]: rpc(
    z.object({
      postTitle: z.string().max(500),
      postUrl: z.string().max(2000),
      authorName: z.string().max(300),
      excerpt: z.string().max(1000),
      pending: z.number().int().nonnegative(),
    }),
  ).answers<{ sent: boolean }>(),
  [Patterns.mail.backupWarning]: rpc(
    z.object({ warning: z.string().min(1).max(1000), target: z.string().max(2000) }),
  ).answers<{ sent: boolean }>(),
  [Patterns.posts.newsletterPending]: rpc(orEmpty(newsletterPendingQuerySchema)).answers<NewsletterEvent[]>(),
  [Patterns.posts.newsletterDone]: rpc(newsletterEventDoneSchema).answers<{ done: boolean }>(),
  [Patterns.posts.newsletterPost]: rpc(newsletterPostRequestSchema).answers<NewsletterPostAnswer>(),
  [Patterns.mail.newsletterStatus]: rpc(newsletterPostQuerySchema).answers<NewsletterStatus>(),
  [Patterns.mail.newsletterTest]: rpc(newsletterPostQuerySchema).answers<NewsletterTestResult>(),
  /** How many confirmed each-post subscribers a post's e-mail would reach now. */
  [Patterns.mail.newsletterAudience]: rpc(none).answers<{ eachPost: number }>(),
  /** A malformed or unknown token is a 404 (the link is invalid), as for the other links. */
  [Patterns.mail.preferences]: rpc(preferencesQuerySchema).answers<PreferencesView>(),
  [Patterns.mail.preferencesUpdate]: rpc(preferencesUpdateSchema).answers<PreferencesView>(),
  [Patterns.mail.subscriberCounts]: rpc(none).answers<SubscriberCounts>(),
  /** Subscribers by id after `afterId`, at most `limit`: the gateway streams them out as CSV. */
  [Patterns.mail.subscriberExportPage]: rpc(
    z.object({
      afterId: z.number().int().nonnegative().default(0),
      limit: z.number().int().min(1).max(1000).default(1000),
    }),
  ).answers<{ items: SubscriberView[]; nextAfterId: number | null }>(),
  [Patterns.mail.subscriberResetBounce]: rpc(
    z.object({ id: z.number().int().positive() }),
  ).answers<SubscriberView>(),
  /** `id`: the client's own (X-Import-Id), so it can follow the import while it uploads; a taken one is 409. */
  [Patterns.mail.subscriberImportStart]: rpc(
    z.object({ id: z.uuid().optional(), consented: z.boolean(), frequency: frequencySchema }),
  ).answers<SubscriberImportReport>(),
  /** At most 500 rows a call, each with its line number; an address is checked by the mail service. */
  [Patterns.mail.subscriberImportRows]: rpc(
    z.object({
      id: z.uuid(),
      rows: z.array(z.object({ line: z.number().int().positive(), email: z.string().max(2000) })).max(500),
    }),
  ).answers<SubscriberImportReport>(),
  /** `error`: the file could not be read to its end (the rows so far stay). */
  [Patterns.mail.subscriberImportFinish]: rpc(
    z.object({ id: z.uuid(), error: z.string().max(500).optional() }),
  ).answers<SubscriberImportReport>(),
  [Patterns.mail.subscriberImportStatus]: rpc(z.object({ id: z.uuid() })).answers<SubscriberImportReport>(),
} as const;

export type TypedPattern = keyof typeof RpcContracts;
/** What a caller sends with `P` (before the handler's schema applies its defaults). */
export type RpcRequest<P extends TypedPattern> = z.input<(typeof RpcContracts)[P]['request']>;
/** What the handler of `P` gets once its schema has checked the request. */
export type RpcParsedRequest<P extends TypedPattern> = z.output<(typeof RpcContracts)[P]['request']>;
/** What `P` answers. */
export type RpcAnswer<P extends TypedPattern> =
  (typeof RpcContracts)[P] extends RpcContract<z.ZodType, infer Answer> ? Answer : never;
