import { Inject, Injectable } from '@nestjs/common';
import {
  NoteErrors,
  type CommentReplyResult,
  type FederatedNoteAnswer,
  type NoteMention,
} from '@blog/contracts';
import { RpcError } from '@blog/server-kit';
import type { EntityManager } from 'typeorm';
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

  /**
   * Deletes the comments `find` names (locked) through `remove`, in one transaction, and owes a
   * Delete for each owner's reply that goes with them (one of them, or a reply under one) and was
   * sent to the fediverse: its Note id and mention are kept on the event, as its row is gone. The
   * dashboard's delete, the author's own `Delete` and a block's purge all come this way.
   */
  deleting(
    find: (manager: EntityManager) => Promise<number[]>,
    remove: (manager: EntityManager, ids: number[]) => Promise<number>,
  ): Promise<number> {
    return this.stored.transaction(async (manager) => {
      const ids = await find(manager);
      if (!ids.length) return 0;
      const going = await this.stored.federatedRepliesGoingWith(manager, ids);
      const removed = await remove(manager, ids);
      if (!removed) return 0;
      for (const reply of going)
        await this.events.addForNote(manager, { commentId: reply.id }, 'delete', this.tombstone(reply));
      return removed;
    });
  }

  private tombstone(reply: {
    id: number;
    postId: number;
    answeredActorUri: string | null;
    answeredHandle: string | null;
  }): { uri: string; mention: NoteMention | null } {
    return {
      uri: this.uriOf(reply),
      mention: mentionOf(reply.answeredActorUri, reply.answeredHandle),
    };
  }

  private uriOf(reply: { id: number; postId: number }): string {
    return `${this.origin}/post/${reply.postId}#comment-${reply.id}`;
  }

  /** The Note of the owner's reply `id` (null: none, or not an owner's reply to the fediverse). */
  async federated(id: number): Promise<FederatedNoteAnswer> {
    const reply = await this.stored.find(id);
    // Deleted since (by moderation): its Delete is all that is owed, as it was kept then.
    if (!reply) return { gone: true, ...((await this.events.tombstoneOf(id)) ?? {}) };
    const answered =
      reply.byOwner && reply.answersId !== null ? await this.stored.find(reply.answersId) : null;
    if (!answered?.remoteObjectId) return null;
    const uri = this.uriOf(reply);
    return {
      uri,
      url: uri,
      html: absoluteHtml(reply.contentHtml, uri),
      published: new Date(reply.createdAt).toISOString(),
      updated: null,
      inReplyTo: answered.remoteObjectId,
      mention: mentionOf(answered.remoteActorUri, answered.authorHandle),
      images: [],
    };
  }
}

/** The answered comment's author as the Note mentions them (`user@host`, no leading @). */
function mentionOf(actorUri: string | null, handle: string | null): NoteMention | null {
  return actorUri && handle ? { actorUri, handle: handle.replace(/^@/, '') } : null;
}
