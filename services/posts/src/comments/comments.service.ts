import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  buildPostPath,
  COMMENT_MAIL_EVERY_MINUTES,
  CommentErrors,
  COMMENTS_PER_ADDRESS_HOUR,
  HTTP_URL_REQUIRED,
  httpUrlOrNull,
  COMMENTS_PER_READER_HOUR,
  Patterns,
  type AdminCommentsQuery,
  type AdminCommentsResult,
  type ArchiveComment,
  type CommentSettings,
  type CommentStatus,
  type CommentThread,
  type CommentView,
  type IdempotentAnswer,
  type PostCommentSettings,
  type PostCommentsResult,
  type RemoteCommentResult,
  type RpcParsedRequest,
  type RpcRequest,
} from '@blog/contracts';
import type { AdminCommentItem } from '@blog/contracts/comment-edits';
import { IdempotencyLedger, RateWindow, RpcError } from '@blog/server-kit';
import { DataSource, type EntityManager } from 'typeorm';
import { OwnerReplies } from '../notes/owner-replies.js';
import { SiteSettings } from '../site/site-settings.js';
import { editOf } from './comment-edits.js';
import { plainTextToHtml, sanitiseRemoteHtml } from './comment-html.js';
import { importedRows, type ImportedComment } from './imported-comment.js';
import { archiveView, publicView, toView } from './comment-view.js';
import { CommentsRepository, type CommentAuthorKey, type CommentPost } from './comments.repository.js';

type ReaderComment = RpcParsedRequest<typeof Patterns.posts.commentCreate>;
type RemoteCreate = RpcParsedRequest<typeof Patterns.posts.commentCreateRemote>;

/** The owner's "comments to approve" notice; MailClient is the real one. */
export abstract class CommentNotifier {
  abstract commentPending(notice: RpcRequest<typeof Patterns.mail.commentPending>): Promise<unknown>;
}

export const COMMENTS_CLOCK = Symbol('COMMENTS_CLOCK');
const HOUR = 3600;

/**
 * Comments' rules: which posts take them, one level of threads, sanitised text,
 * moderation and auto-approval, the per-account and per-address limits, and the owner's mail.
 */
@Injectable()
export class CommentsService {
  private readonly logger = new Logger(CommentsService.name);
  private readonly windows: RateWindow;
  /** The latest owner notice in flight (awaited by tests; a failure is only logged). */
  notice: Promise<void> = Promise.resolve();
  private lastPurge = 0;

  constructor(
    private readonly store: CommentsRepository,
    private readonly site: SiteSettings,
    private readonly ledger: IdempotencyLedger,
    private readonly notifier: CommentNotifier,
    @InjectDataSource() db: DataSource,
    @Optional() @Inject(COMMENTS_CLOCK) private readonly now: () => number = Date.now,
    /** The owner's replies sent to the fediverse, whose Delete goes out when they are deleted. */
    @Optional() private readonly ownerReplies?: OwnerReplies,
  ) {
    this.windows = new RateWindow(db, () => this.now());
  }

  /** A visible post's approved comments, replies under their top comment. */
  async forPost(postId: number): Promise<PostCommentsResult> {
    await this.visiblePost(postId);
    const rows = await this.store.approved(postId);
    const threads = new Map<number, CommentThread>();
    for (const row of rows)
      if (row.parentId === null) threads.set(row.id, { ...publicView(row), replies: [] });
    for (const row of rows)
      if (row.parentId !== null) threads.get(row.parentId)?.replies.push(publicView(row));
    const count = [...threads.values()].reduce((sum, thread) => sum + 1 + thread.replies.length, 0);
    return { postId, count, comments: [...threads.values()] };
  }

  /** A signed-in reader's comment: checked, limited, stored (pending unless auto-approved). */
  async create(command: ReaderComment): Promise<IdempotentAnswer<CommentView>> {
    if (command.idempotency) {
      const stored = await this.ledger.answerOf<CommentView>(command.idempotency.key);
      if (stored) return this.ledger.write(command.idempotency, () => Promise.resolve(stored.answer));
    }
    const post = await this.visiblePost(command.postId);
    const parentId = await this.parentFor(post.id, command.parentId ?? null, true);
    const contentHtml = plainTextToHtml(command.content);
    if (!contentHtml) throw RpcError.badRequest(CommentErrors.contentRequired);
    this.purgeWindowsNowAndThen();
    await this.windows.admit(
      `comment-address\n${command.ip}`,
      { max: COMMENTS_PER_ADDRESS_HOUR, windowSeconds: HOUR },
      CommentErrors.tooMany,
    );
    await this.windows.admit(
      `comment-account\n${command.userId}`,
      { max: COMMENTS_PER_READER_HOUR, windowSeconds: HOUR },
      CommentErrors.tooMany,
    );
    const status = await this.statusFor(post.id, { userId: command.userId });
    const result = await this.ledger.write(command.idempotency, async (manager) =>
      toView(
        await this.store.insert(
          {
            postId: post.id,
            parentId,
            status,
            contentHtml,
            authorName: command.userName,
            authorHandle: command.userName,
            authorUrl: null,
            authorAvatarKey: null,
            local: true,
            userId: command.userId,
            remoteObjectId: null,
            remoteActorUri: null,
            via: null,
          },
          manager,
        ),
      ),
    );
    if (!result.replayed && status === 'pending') this.tellOwner(post, command.userName, command.content);
    return result;
  }

  /**
   * A fediverse reply (`Create{Note}`): under `postId`, or under the post or comment that
   * `inReplyTo` names. A Note already stored answers its comment unchanged. Its ids must be
   * http(s) links; the author's page is kept only when it is one.
   */
  async createFromRemote(command: RemoteCreate): Promise<RemoteCommentResult> {
    const remoteObjectId = requiredHttpUrl(command.remoteObjectId, 'remoteObjectId');
    const actorUri = requiredHttpUrl(command.actor.uri, 'actor.uri');
    const inReplyTo =
      command.inReplyTo === undefined ? undefined : requiredHttpUrl(command.inReplyTo, 'inReplyTo');
    const known = await this.store.findRemote(remoteObjectId);
    if (known) return { comment: toView(known) };
    const { post, parentId } = await this.targetOf(command.postId, inReplyTo);
    const contentHtml = sanitiseRemoteHtml(command.html);
    if (!contentHtml) throw RpcError.badRequest(CommentErrors.contentRequired);
    const status = await this.statusFor(post.id, { actorUri });
    const row = await this.store.insert({
      postId: post.id,
      parentId,
      status,
      contentHtml,
      authorName: command.actor.name || command.actor.handle || new URL(actorUri).host,
      authorHandle: command.actor.handle,
      authorUrl: httpUrlOrNull(command.actor.url),
      authorAvatarKey: command.actor.avatarKey,
      local: false,
      userId: null,
      remoteObjectId,
      remoteActorUri: actorUri,
      via: command.via,
      createdAt: command.published ? new Date(command.published) : undefined,
    });
    if (status === 'pending') this.tellOwner(post, row.authorName, command.html.replace(/<[^>]*>/g, ' '));
    return { comment: toView(row) };
  }

  /**
   * `Update{Note}`, only from the comment's own author (else nothing changes): a new text of an
   * approved comment waits for the owner (editOf). Tried again when another write changed the
   * comment between reading and writing it.
   */
  async updateFromRemote(
    remoteObjectId: string,
    actorUri: string,
    html: string,
  ): Promise<RemoteCommentResult> {
    const contentHtml = sanitiseRemoteHtml(html);
    if (!contentHtml) throw RpcError.badRequest(CommentErrors.contentRequired);
    for (let attempt = 0; attempt < 5; attempt++) {
      const row = await this.store.findRemoteBy(remoteObjectId, actorUri);
      if (!row) return { comment: null };
      const seen = row.status === 'approved' || row.pendingHtml !== null;
      const autoApproved = seen && (await this.statusFor(row.postId, { actorUri })) === 'approved';
      const edit = editOf(row, contentHtml, autoApproved);
      if (!edit) return { comment: null };
      const changed = await this.store.changeText(row.id, row, edit);
      if (!changed) continue;
      if (changed.pendingHtml !== null) {
        const post = await this.store.post(row.postId);
        if (post) this.tellOwner(post, row.authorName, html.replace(/<[^>]*>/g, ' '));
      }
      return { comment: toView(changed) };
    }
    throw new RpcError({ status: 503, error: 'The comment kept changing; try the update again' });
  }

  /** `Delete{Note}`: only from the comment's own author. */
  async deleteFromRemote(remoteObjectId: string, actorUri: string): Promise<{ deleted: boolean }> {
    return { deleted: (await this.deleteRemote({ objectUri: remoteObjectId, actorUri })) > 0 };
  }

  /** A block: every comment of the actor, or of the server. */
  async purge(by: { actorUri?: string; domain?: string }): Promise<{ deleted: number }> {
    return {
      deleted: await this.deleteRemote(by.actorUri ? { actorUri: by.actorUri } : { domain: by.domain! }),
    };
  }

  /** Fediverse comments deleted, with the Delete owed for each owner's reply that goes with them. */
  private deleteRemote(by: Parameters<CommentsRepository['remoteIds']>[0]): Promise<number> {
    const find = (manager: EntityManager) => this.store.remoteIds(by, manager);
    const remove = (manager: EntityManager, ids: number[]) => this.store.deleteIds(ids, manager);
    if (this.ownerReplies) return this.ownerReplies.deleting(find, remove);
    return this.store.transaction(async (manager) => {
      const ids = await find(manager);
      return ids.length ? remove(manager, ids) : 0;
    });
  }

  /**
   * An imported post's comments (`postId` is its id here), as importedRows keeps them. Answers
   * how many were added (none for those an earlier run brought).
   */
  importFor(postId: number, comments: ImportedComment[]): Promise<number> {
    return this.store.insertImported(importedRows(postId, comments));
  }

  /** The comments of these posts as the archive carries them, by post id. */
  async archiveOf(postIds: number[]): Promise<Map<number, ArchiveComment[]>> {
    const byPost = new Map<number, ArchiveComment[]>();
    if (postIds.length === 0) return byPost;
    for (const row of await this.store.forPosts(postIds)) {
      const list = byPost.get(row.postId) ?? [];
      list.push(archiveView(row));
      byPost.set(row.postId, list);
    }
    return byPost;
  }

  async adminList(query: AdminCommentsQuery): Promise<AdminCommentsResult> {
    const [rows, counts] = await Promise.all([
      this.store.page(query.status, (query.page - 1) * query.pageSize, query.pageSize),
      this.store.counts(),
    ]);
    const site = this.site.current();
    return {
      status: query.status,
      total: counts[query.status],
      page: query.page,
      pageSize: query.pageSize,
      counts,
      items: rows.map((row): AdminCommentItem => ({
        ...toView(row),
        proposedContent: row.pendingHtml,
        post: {
          id: row.post.id,
          title: row.post.title,
          url: buildPostPath(site, row.post) ?? `/post/${row.post.id}`,
        },
      })),
    };
  }

  async moderate(id: number, status: Exclude<CommentStatus, 'pending'>): Promise<CommentView> {
    const row = await this.store.setStatus(id, status);
    if (!row) throw RpcError.notFound(CommentErrors.notFound);
    return toView(row);
  }

  /** Deletes the comment; on one whose change waits, only the change (its approved text stays). */
  async delete(id: number): Promise<{ deleted: true }> {
    if (await this.store.refuseChange(id)) return { deleted: true };
    const deleted = this.ownerReplies
      ? (await this.ownerReplies.deleting(
          async () => [id],
          async (manager) => ((await this.store.delete(id, manager)) ? 1 : 0),
        )) > 0
      : await this.store.delete(id);
    if (!deleted) throw RpcError.notFound(CommentErrors.notFound);
    return { deleted: true };
  }

  settings(): Promise<CommentSettings> {
    return this.store.settings();
  }

  async updateSettings(settings: CommentSettings): Promise<CommentSettings> {
    await this.store.setSettings(settings);
    return this.store.settings();
  }

  async postSettings(postId: number): Promise<PostCommentSettings> {
    if (!(await this.store.post(postId))) throw RpcError.notFound(CommentErrors.postNotFound);
    return { postId, autoApproveKnown: await this.store.postAutoApprove(postId) };
  }

  async updatePostSettings(postId: number, settings: CommentSettings): Promise<PostCommentSettings> {
    if (!(await this.store.post(postId))) throw RpcError.notFound(CommentErrors.postNotFound);
    await this.store.setPostAutoApprove(postId, settings.autoApproveKnown);
    return { postId, autoApproveKnown: await this.store.postAutoApprove(postId) };
  }

  /** At most once an hour per process, in the background: windows past their hour count for nothing. */
  private purgeWindowsNowAndThen(): void {
    if (this.now() - this.lastPurge < HOUR * 1000) return;
    this.lastPurge = this.now();
    this.windows.purgeOlderThan(HOUR).catch((error: unknown) => {
      this.lastPurge = 0;
      this.logger.warn(`comment limits not purged: ${(error as Error).message}`);
    });
  }

  /** A post visitors see (published, dated by now), else 404: drafts and scheduled posts take no comments. */
  private async visiblePost(postId: number): Promise<CommentPost> {
    const post = await this.store.post(postId);
    if (!post || !post.visible) throw RpcError.notFound(CommentErrors.postNotFound);
    return post;
  }

  /**
   * One level of threads: the parent is a comment of the same post; a reply to a reply hangs
   * under that reply's own parent. A reader answers only what readers see (approved).
   */
  private async parentFor(
    postId: number,
    parentId: number | null,
    approvedOnly: boolean,
  ): Promise<number | null> {
    if (parentId === null) return null;
    const parent = await this.store.find(parentId);
    const seen = parent && (parent.status === 'approved' || parent.pendingHtml !== null);
    if (!parent || parent.postId !== postId || (approvedOnly && !seen))
      throw RpcError.badRequest(CommentErrors.parentNotFound);
    return parent.parentId ?? parent.id;
  }

  /** The post (and parent) a remote reply answers: a stored comment's Note id, or a post's URL. */
  private async targetOf(
    postId: number | undefined,
    target: string | undefined,
  ): Promise<{ post: CommentPost; parentId: number | null }> {
    // The contract asks for one of the two.
    if (postId !== undefined || target === undefined)
      return { post: await this.visiblePost(postId!), parentId: null };
    const parent = await this.store.findRemote(target);
    if (parent && parent.status !== 'spam')
      return { post: await this.visiblePost(parent.postId), parentId: parent.parentId ?? parent.id };
    const post = await this.postAt(target);
    if (!post || !post.visible) throw RpcError.notFound(CommentErrors.postNotFound);
    return { post, parentId: null };
  }

  /** The post whose page URL (…/{slug}, or /post/{id}) this is; a comment's anchor (#comment-{id}) names it. */
  private async postAt(url: string): Promise<CommentPost | null> {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return null;
    }
    const segments = parsed.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    const last = segments.at(-1);
    if (!last) return null;
    if (segments.length === 2 && segments[0] === 'post' && /^\d{1,9}$/.test(last))
      return this.store.post(Number(last));
    const post = await this.store.postBySlug(last);
    // The path must be the post's own page, not any URL that happens to end in its slug.
    if (!post || buildPostPath(this.site.current(), post) !== `/${segments.join('/')}`) return null;
    return post;
  }

  /** Pending, unless auto-approval is on (site-wide or for the post) and the author has an approved comment. */
  private async statusFor(postId: number, author: CommentAuthorKey): Promise<CommentStatus> {
    const [site, post] = await Promise.all([this.store.settings(), this.store.postAutoApprove(postId)]);
    if (!site.autoApproveKnown && !post) return 'pending';
    return (await this.store.hasApproved(author)) ? 'approved' : 'pending';
  }

  /**
   * Mails the owner that comments wait, at most once per COMMENT_MAIL_EVERY_MINUTES across
   * replicas. The slot is taken before sending: a failed send loses that hour's mail rather
   * than risk two.
   */
  private tellOwner(post: CommentPost, authorName: string, text: string): void {
    const at = new Date(this.now());
    this.notice = (async () => {
      if (!(await this.store.claimOwnerMail(at, COMMENT_MAIL_EVERY_MINUTES))) return;
      const pending = (await this.store.counts()).pending;
      await this.notifier.commentPending({
        postTitle: post.title.slice(0, 500),
        postUrl: buildPostPath(this.site.current(), post) ?? `/post/${post.id}`,
        authorName: authorName.slice(0, 300),
        excerpt: text.replace(/\s+/g, ' ').trim().slice(0, 1000),
        pending,
      });
    })().catch((error: unknown) => {
      this.logger.warn(`owner not told of a pending comment: ${(error as Error).message}`);
    });
  }
}

/** A link the comment cannot do without: an http(s) URL, else a 400 naming the field. */
function requiredHttpUrl(value: string, field: string): string {
  const url = httpUrlOrNull(value);
  if (url === null) throw RpcError.badRequest(`${field}: ${HTTP_URL_REQUIRED}`, field);
  return url;
}
