import { Inject, Injectable } from '@nestjs/common';
import {
  NOTES_PAGE,
  NoteErrors,
  type FederatedNoteAnswer,
  type NoteAnswer,
  type NoteMention,
  type NotesPage,
  type NotesQuery,
  type NoteView,
} from '@blog/contracts';
import { RpcError } from '@blog/server-kit';
import type { PostsConfig } from '../config.js';
import { renderMarkdown } from '../content/markdown.js';
import { absoluteHtml } from '../federation/article-html.js';
import { FederationEventsRepository } from '../federation/federation-events.repository.js';
import { POSTS_CONFIG } from '../tokens.js';
import { NotesRepository, type NoteRow } from './notes.repository.js';

/** The blog's address when SITE_URL is unset: the social service's own default, so the ids agree. */
const DEFAULT_SITE_URL = 'http://localhost:3000';

export const notePath = (id: number) => `/notes/${id}`;

/** A stored note as the dashboard and its page show it. */
export function noteView(row: NoteRow): NoteView {
  return {
    id: row.id,
    content: row.content,
    html: row.contentHtml,
    url: notePath(row.id),
    inReplyTo: row.inReplyTo,
    mention:
      row.mentionActorUri && row.mentionHandle
        ? { actorUri: row.mentionActorUri, handle: row.mentionHandle }
        : null,
    published: new Date(row.createdAt).toISOString(),
    updated: row.updatedAt ? new Date(row.updatedAt).toISOString() : null,
  };
}

/**
 * Notes: Markdown rendered and sanitised once per save by the posts' renderer, each write and the
 * activity it owes the followers (Create, Update, Delete) in one transaction, on the same outbox
 * as posts. No category, digest or e-mail ever reads them.
 */
@Injectable()
export class NotesService {
  private readonly origin: string;

  constructor(
    private readonly stored: NotesRepository,
    private readonly events: FederationEventsRepository,
    @Inject(POSTS_CONFIG) config: Pick<PostsConfig, 'SITE_URL'>,
  ) {
    this.origin = config.SITE_URL ?? DEFAULT_SITE_URL;
  }

  create(command: { content: string; inReplyTo?: string; mention: NoteMention | null }): Promise<NoteView> {
    const html = renderMarkdown(command.content).html;
    return this.stored.transaction(async (manager) => {
      const row = await this.stored.insert(manager, {
        content: command.content,
        contentHtml: html,
        inReplyTo: command.inReplyTo ?? null,
        // A mention goes with what it answers only.
        mention: command.inReplyTo ? command.mention : null,
      });
      await this.events.addForNote(manager, { noteId: row.id }, 'create');
      return noteView(row);
    });
  }

  update(id: number, content: string): Promise<NoteView> {
    const html = renderMarkdown(content).html;
    return this.stored.transaction(async (manager) => {
      const before = await this.stored.byId(id);
      const row = await this.stored.update(manager, id, { content, contentHtml: html });
      if (!row) throw RpcError.notFound(NoteErrors.notFound);
      // A save that changes nothing readers see owes no Update.
      if (before?.contentHtml !== row.contentHtml)
        await this.events.addForNote(manager, { noteId: id }, 'update');
      return noteView(row);
    });
  }

  delete(id: number): Promise<{ deleted: true }> {
    return this.stored.transaction(async (manager) => {
      if (!(await this.stored.markDeleted(manager, id))) throw RpcError.notFound(NoteErrors.notFound);
      await this.events.addForNote(manager, { noteId: id }, 'delete');
      return { deleted: true as const };
    });
  }

  async get(id: number): Promise<NoteAnswer> {
    const row = await this.stored.byId(id);
    if (!row) return null;
    return row.deletedAt ? { gone: true } : noteView(row);
  }

  async page(query: NotesQuery): Promise<NotesPage> {
    const rows = await this.stored.page(query.cursor ? Number(query.cursor) : null, NOTES_PAGE + 1);
    const items = rows.slice(0, NOTES_PAGE).map(noteView);
    return { items, next: rows.length > NOTES_PAGE ? String(items[items.length - 1]!.id) : null };
  }

  /** The Note of note `id` as followers get it: links absolute on SITE_URL. */
  async federated(id: number): Promise<FederatedNoteAnswer> {
    const row = await this.stored.byId(id);
    if (!row) return null;
    const view = noteView(row);
    const uri = `${this.origin}${view.url}`;
    // A deleted note keeps whom it mentioned: its Delete reaches them as its Create did.
    if (row.deletedAt) return { gone: true, uri, mention: view.mention };
    return {
      uri,
      url: uri,
      html: absoluteHtml(view.html, uri),
      published: view.published,
      updated: view.updated,
      inReplyTo: view.inReplyTo,
      mention: view.mention,
    };
  }
}
