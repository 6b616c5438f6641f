import { Inject, Injectable } from '@nestjs/common';
import { NoteErrors, type CommentReplyResult, type FederatedNoteAnswer } from '@blog/contracts';
import { RpcError } from '@blog/server-kit';
import type { PostsConfig } from '../config.js';
import { renderMarkdown } from '../content/markdown.js';
import { absoluteHtml } from '../federation/article-html.js';
import { FederationEventsRepository } from '../federation/federation-events.repository.js';
import { SiteSettings } from '../site/site-settings.js';
import { POSTS_CONFIG } from '../tokens.js';
import { OwnerRepliesRepository } from './owner-replies.repository.js';

const DEFAULT_SITE_URL = 'http://localhost:3000';

/**
 * The owner's answer to a comment under a post: an approved comment of the blog's own (readers
 * see it marked as the author's), one level deep like every reply. When the answered comment
 * came from the fediverse, the reply is owed to it too: a Note whose id is the reply's URL here
 * (as the Article's `replies` names local comments), answering the comment's Note and mentioning
 * its author, on the same outbox as posts and notes.
 */
@Injectable()
export class OwnerReplies {
  private readonly origin: string;

  constructor(
    private readonly stored: OwnerRepliesRepository,
    private readonly events: FederationEventsRepository,
    private readonly settings: SiteSettings,
    @Inject(POSTS_CONFIG) config: Pick<PostsConfig, 'SITE_URL'>,
  ) {
    this.origin = config.SITE_URL ?? DEFAULT_SITE_URL;
  }

  async reply(commentId: number, content: string): Promise<CommentReplyResult> {
    const parent = await this.stored.find(commentId);
    if (!parent) throw RpcError.notFound(NoteErrors.commentNotFound);
    if (parent.status !== 'approved' || !parent.postVisible)
      throw RpcError.unprocessable(NoteErrors.commentNotReplyable);
    const html = renderMarkdown(content).html;
    const federated = parent.remoteObjectId !== null;
    return this.stored.transaction(async (manager) => {
      const id = await this.stored.insert(manager, {
        postId: parent.postId,
        parentId: parent.parentId ?? parent.id,
        answersId: parent.id,
        html,
        authorName: this.settings.current().title,
      });
      if (federated) await this.events.addForNote(manager, { commentId: id }, 'create');
      return { id, postId: parent.postId, federated };
    });
  }

  /** The Note of the owner's reply `id` (null: none, or not an owner's reply to the fediverse). */
  async federated(id: number): Promise<FederatedNoteAnswer> {
    const reply = await this.stored.find(id);
    // Deleted since (by moderation): its Delete is all that is owed.
    if (!reply) return { gone: true };
    const answered =
      reply.byOwner && reply.answersId !== null ? await this.stored.find(reply.answersId) : null;
    if (!answered?.remoteObjectId) return null;
    const uri = `${this.origin}/post/${reply.postId}#comment-${reply.id}`;
    return {
      uri,
      url: uri,
      html: absoluteHtml(reply.contentHtml, uri),
      published: new Date(reply.createdAt).toISOString(),
      updated: null,
      inReplyTo: answered.remoteObjectId,
      mention:
        answered.remoteActorUri && answered.authorHandle
          ? { actorUri: answered.remoteActorUri, handle: answered.authorHandle.replace(/^@/, '') }
          : null,
    };
  }
}
