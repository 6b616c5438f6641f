/** Message patterns between the gateway and the services: one name per call. */
export const Patterns = {
  auth: {
    login: 'auth.login',
    register: 'auth.register',
    listUsers: 'auth.users.list',
    setRole: 'auth.users.setRole',
    deleteUser: 'auth.users.delete',
    account: 'auth.account',
    changePassword: 'auth.password.change',
    revokeSessions: 'auth.sessions.revoke',
    /** An account's current role and session version (the gateway's token check). */
    sessionState: 'auth.sessions.state',
    twoFactorSetup: 'auth.2fa.setup',
    twoFactorEnable: 'auth.2fa.enable',
    twoFactorDisable: 'auth.2fa.disable',
    twoFactorRecoveryCodes: 'auth.2fa.recoveryCodes',
  },
  posts: {
    list: 'posts.list',
    get: 'posts.get',
    getBySlug: 'posts.getBySlug',
    /** Page URLs and update times of all posts, in id order and chunks (the sitemap). */
    urls: 'posts.urls',
    create: 'posts.create',
    update: 'posts.update',
    delete: 'posts.delete',
    /** The renderer on unsaved text (the admin's Preview): the HTML visitors would get. */
    preview: 'posts.preview',
    /** Which of these storage keys a post references (cleanup after an unclear failure). */
    referencedKeys: 'posts.referencedKeys',
    /** A keyed write's stored answer, if any (the gateway asks before it stores files again). */
    idempotentAnswer: 'posts.idempotency.answer',
    /** Starts an import of a stored file (answers its report); the job queue does the work. */
    importStart: 'posts.import.start',
    /** Where an import stands. */
    importReport: 'posts.import.report',
    /** The post an old URL of an imported post leads to (its current path), or null. */
    oldPath: 'posts.oldPath',
    /** Starts an export of the whole blog (answers its ExportReport); the job queue writes the archive. */
    exportStart: 'posts.export.start',
    /** Where an export stands (ExportReport). */
    exportReport: 'posts.export.report',
    /** Uses up an export download link's id ({ id, expiresAt } → true the first time only, whichever gateway asks). */
    claimExportLink: 'posts.export.claimLink',
    /** The blog's own backups: start one now (or answer the running one), list them, one by id. */
    backupStart: 'posts.backup.start',
    backupList: 'posts.backup.list',
    backupGet: 'posts.backup.get',
    /** A batch of counted page views (ViewBatch), stored once per batch id. */
    recordViews: 'posts.views.record',
    /** The day's random salt for visitor keys (made on first use, deleted after its day). */
    viewSalt: 'posts.views.salt',
    /** The Stats tab's figures (StatsQuery → StatsReport). */
    stats: 'posts.stats',
    /** Views of each post in the last 30 days, by id (the admin's post list). */
    recentViews: 'posts.views.recent',
    site: 'posts.site',
    /** The stored site configuration's version (gateways drop their copies when it moves). */
    siteVersion: 'posts.site.version',
    /** A new site configuration from the dashboard (keyed like the other writes). */
    updateSite: 'posts.site.update',
    /** Old listing paths → current ones, after segment changes (the gateway answers them with 301). */
    siteRedirects: 'posts.site.redirects',
    /** Media items still pending (by id, or pending for longer than N seconds): the media worker's input. */
    pendingMedia: 'posts.media.pending',
    /** The worker's outcome for one item (ready with its files, or failed with the reason). */
    mediaResult: 'posts.media.result',
    /** A failed media item back to pending, so the worker tries it again (admin Retry). */
    retryMedia: 'posts.media.retry',
    /** A processing run of one item begins (counted) or failed for a reason a retry may fix. */
    mediaRunStarted: 'posts.media.run.started',
    mediaRunFailed: 'posts.media.run.failed',
    /** A post's approved comments, threaded ({ postId } → PostCommentsResult): public. */
    comments: 'posts.comments.list',
    /** A signed-in reader's comment (pending unless auto-approved). */
    commentCreate: 'posts.comments.create',
    /** The dashboard's list by status (AdminCommentsResult). */
    commentsAdmin: 'posts.comments.admin',
    /** Approve or mark as spam ({ id, status }). */
    commentModerate: 'posts.comments.moderate',
    commentDelete: 'posts.comments.delete',
    /** The site-wide "approve automatically from known commenters" (read, and change). */
    commentSettings: 'posts.comments.settings',
    commentSettingsUpdate: 'posts.comments.settings.update',
    /** One post's own "approve automatically from known commenters". */
    commentPostSettings: 'posts.comments.postSettings',
    /** The federation's calls: a reply's Create, Update and Delete, and a block's purge. */
    commentCreateRemote: 'posts.comments.remote.create',
    commentUpdateRemote: 'posts.comments.remote.update',
    commentDeleteRemote: 'posts.comments.remote.delete',
    commentPurge: 'posts.comments.purge',
    /** One post's own switch, read ({ postId } → PostCommentSettings). */
    commentPostSettingsGet: 'posts.comments.postSettings.get',
    /** A visible post as an Article (ArticleAnswer: the view, { gone: true } for 410, or null). */
    article: 'posts.articles.get',
    /** The actor's outbox: visible posts as Articles, newest first (ArticleOutboxPage). */
    articleOutbox: 'posts.articles.outbox',
    /** Federation events due now, oldest first: social's delivery input. */
    federationPending: 'posts.federation.pending',
    /** Social handed this event's activity to its delivery queue. */
    federationDone: 'posts.federation.done',
    /** Posts owed to the each-post subscribers and due now, oldest first: mail's newsletter input. */
    newsletterPending: 'posts.newsletter.pending',
    /** Mail took this event over (its per-subscriber claims exist). */
    newsletterDone: 'posts.newsletter.done',
    /** A visible post as its e-mail carries it (NewsletterPostAnswer). */
    newsletterPost: 'posts.newsletter.post',
    /** The owner's notes (short posts with their own pages), and a note or owner's reply as a Note. */
    noteCreate: 'posts.notes.create',
    noteUpdate: 'posts.notes.update',
    noteDelete: 'posts.notes.delete',
    noteGet: 'posts.notes.get',
    notesPage: 'posts.notes.page',
    federatedNote: 'posts.notes.federated',
    /** The owner answers a comment under a post (an approved comment of the blog's own). */
    commentOwnerReply: 'posts.comments.ownerReply',
  },
  media: {
    getSettings: 'media.settings.get',
    updateSettings: 'media.settings.update',
    /** Queue these media items now (the periodic re-enqueue covers a lost call). */
    enqueue: 'media.enqueue',
    /** The site banner from an uploaded original: its variants, and the path the site shows. */
    renderBanner: 'media.banner.render',
    /** A remote author's avatar fetched, re-encoded and stored here (its storage key; never hot-linked). */
    cacheAvatar: 'media.avatar.cache',
    /** A picture of a post in the owner's Reader, re-encoded and stored (never hot-linked), and its removal. */
    cachePicture: 'media.picture.cache',
    dropPictures: 'media.picture.drop',
  },
  mail: {
    contact: 'mail.contact',
    subscribe: 'mail.subscribe',
    confirm: 'mail.subscribe.confirm',
    /** What an unsubscribe link is about, without acting on it (the GET page). */
    unsubscribeInfo: 'mail.unsubscribe.info',
    unsubscribe: 'mail.unsubscribe',
    /** Runs the weekly digest now for the current week (admin). */
    runDigest: 'mail.digest.run',
    listMessages: 'mail.messages.list',
    listSubscribers: 'mail.subscribers.list',
    /** Subscribers from an export, with their status and dates, no e-mail sent; an address already here is left as it is. */
    restoreSubscribers: 'mail.subscribers.restore',
    /** Tells the owner comments wait for approval (the posts service sends at most one an hour). */
    commentPending: 'mail.comment.pending',
    /** Tells the owner the backups need a look (the posts service sends it at most once a day). */
    backupWarning: 'mail.backup.warning',
    /** A post's e-mail: how its send stands, a test to the owner, and how many would get it. */
    newsletterStatus: 'mail.newsletter.status',
    newsletterTest: 'mail.newsletter.test',
    newsletterAudience: 'mail.newsletter.audience',
    /** The preferences page behind a newsletter's or digest's link (read, and change). */
    preferences: 'mail.preferences.get',
    preferencesUpdate: 'mail.preferences.update',
    /** The owner's list: counts by status and frequency, a page of the export, a bounce reset. */
    subscriberCounts: 'mail.subscribers.counts',
    subscriberExportPage: 'mail.subscribers.export',
    subscriberResetBounce: 'mail.subscribers.resetBounce',
    /** A CSV import: started, fed rows in batches, finished, and its report. */
    subscriberImportStart: 'mail.subscribers.import.start',
    subscriberImportRows: 'mail.subscribers.import.rows',
    subscriberImportFinish: 'mail.subscribers.import.finish',
    subscriberImportStatus: 'mail.subscribers.import.status',
  },
  social: {
    /** The blog actor's RSA and Ed25519 key pairs (made on first use): the federation signs with them. */
    keys: 'social.keys',
    /** A Follow received (accepted, or pending when the owner approves followers). */
    follow: 'social.followers.follow',
    /** Undo{Follow}. */
    unfollow: 'social.followers.unfollow',
    /** The followers collection (accepted, with inboxes), by cursor. */
    followersPage: 'social.followers.page',
    /** The admin's follower list, paged, with counts. */
    listFollowers: 'social.followers.list',
    removeFollower: 'social.followers.remove',
    approveFollower: 'social.followers.approve',
    /** A Follow this blog sent, its Accept, its Undo; and the following collection. */
    addFollowing: 'social.following.add',
    acceptFollowing: 'social.following.accept',
    removeFollowing: 'social.following.remove',
    followingPage: 'social.following.page',
    /** Whether an actor (or its server) is blocked. */
    blocked: 'social.blocks.check',
    addBlock: 'social.blocks.add',
    listBlocks: 'social.blocks.list',
    removeBlock: 'social.blocks.remove',
    /** A Like or Announce of a post, and its Undo. */
    reaction: 'social.reactions.add',
    undoReaction: 'social.reactions.undo',
    /** Likes and announces of these posts (the dashboard's post list). */
    reactionCounts: 'social.reactions.counts',
    noteReactionCounts: 'social.reactions.noteCounts',
    /** An HTTP request for the federation (FederationHttpRequest → FederationHttpAnswer). */
    http: 'social.federation.http',
    /** Who wrote a remote post or note (fetched through the outbound policy): the author a reply mentions. */
    replyTarget: 'social.federation.replyTarget',
    /** Servers deliveries were given up for (newest first, at most 100), and the owner's dismissal of one. */
    deliveryFailures: 'social.deliveries.failures',
    dismissDeliveryFailure: 'social.deliveries.dismiss',
    /** The owner follows an account (a handle or URL, looked up and sent a Follow), lists them, stops. */
    ownerFollow: 'social.owner.follow',
    ownerFollowing: 'social.owner.following',
    ownerUnfollow: 'social.owner.unfollow',
    /** The owner moves the blog's followers to another account (FEP-7628): checked, then Move sent. */
    moveFollowers: 'social.owner.move',
    /** The Reader: what the followed accounts post and boost, newest first. */
    readerPage: 'social.reader.page',
    /** The owner's like or boost of an object (or its Undo). */
    ownReaction: 'social.owner.react',
    notifications: 'social.notifications.page',
    notificationsUnread: 'social.notifications.unread',
    notificationsRead: 'social.notifications.read',
  },
} as const;

export const SERVICE_NAMES = ['auth', 'posts', 'media', 'mail', 'social'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

/** Each service's own health subject: under NATS every service shares one subject space. */
export function healthPattern(service: ServiceName): string {
  return `${service}.health`;
}

/** Every RPC request carries the request id so logs can be followed across processes. */
export interface RpcEnvelope<T> {
  requestId: string;
  data: T;
}

/** The one error shape services answer with; the gateway turns `status` into the HTTP status. */
export interface RpcErrorBody {
  status: number;
  error: string;
  field?: string;
  /** Seconds, for 429 answers. */
  retryAfter?: number;
  /** A sign-in that needs its second step (401). */
  twoFactorRequired?: true;
}

export function isRpcErrorBody(value: unknown): value is RpcErrorBody {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as RpcErrorBody).status === 'number' &&
    typeof (value as RpcErrorBody).error === 'string'
  );
}

export interface HealthReport {
  service: string;
  status: 'up';
  database: 'up' | 'down';
  transport: 'tcp' | 'nats';
}
