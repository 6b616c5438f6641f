import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  NOTE_PICTURES_MAX,
  NOTES_PAGE,
  NoteErrors,
  pictureSources,
  uploadsPath,
  type ArticleImageView,
  type FederatedNoteAnswer,
  type NoteAnswer,
  type NoteMention,
  type NotePictureUpload,
  type NotePictureView,
  type NotesPage,
  type NotesQuery,
  type NoteView,
} from '@blog/contracts';
import { RpcError, type ObjectStorage } from '@blog/server-kit';
import type { PostsConfig } from '../config.js';
import { renderMarkdown } from '../content/markdown.js';
import { absoluteHtml } from '../federation/article-html.js';
import { FederationEventsRepository } from '../federation/federation-events.repository.js';
import { deleteFiles } from '../media-items/media-keys.js';
import { POSTS_CONFIG, STORAGE } from '../tokens.js';
import { NotesRepository, type NotePictureRow, type NoteRow, type RestoredNote } from './notes.repository.js';

/** The blog's address when SITE_URL is unset: the social service's own default, so the ids agree. */
const DEFAULT_SITE_URL = 'http://localhost:3000';

export const notePath = (id: number) => `/notes/${id}`;

/** The served file's type from its format as the media worker names it (sharp's: jpeg, png, webp, gif, avif). */
function mediaTypeOf(format: string | undefined, stored: string | null): string {
  if (format && /^[a-z0-9.+-]+$/.test(format)) return `image/${format}`;
  return stored ?? 'image/jpeg';
}

/** A picture as a page draws it: the fallback file and its widths, the way a post's picture is drawn. */
export function notePictureView(row: NotePictureRow): NotePictureView {
  const variants = (row.variants ?? []).filter((v) => v.format !== 'poster' && v.format !== 'video');
  const base = { id: row.id, status: row.status, alt: row.alt ?? '' };
  if (row.status !== 'ready' || !row.storageKey)
    return {
      ...base,
      src: null,
      srcset: '',
      width: null,
      height: null,
      mediaType: row.mimeType ?? 'image/jpeg',
    };
  const sources = pictureSources({
    path: uploadsPath(row.storageKey),
    variants: variants.map((v) => ({
      path: uploadsPath(v.key),
      format: v.format,
      width: v.width,
      height: v.height,
    })),
    width: row.width,
    height: row.height,
  });
  const shown = variants.find((v) => uploadsPath(v.key) === sources.fallbackSrc);
  return {
    ...base,
    src: sources.fallbackSrc,
    srcset: sources.fallback,
    width: sources.width,
    height: sources.height,
    mediaType: mediaTypeOf(shown?.format, row.mimeType),
  };
}

/** Every stored file of a picture: its original and what processing made of it. */
function pictureKeys(row: NotePictureRow): string[] {
  return [
    row.originalKey,
    row.storageKey,
    row.thumbnailKey,
    row.croppedPreviewKey,
    ...(row.variants ?? []).map((v) => v.key),
  ].filter((k): k is string => !!k);
}

/** Whom a stored note mentions (the author of what it answers), if anyone. */
export function mentionOf(row: Pick<NoteRow, 'mentionActorUri' | 'mentionHandle'>): NoteMention | null {
  return row.mentionActorUri && row.mentionHandle
    ? { actorUri: row.mentionActorUri, handle: row.mentionHandle }
    : null;
}

/** A stored note as the dashboard and its page show it. */
export function noteView(row: NoteRow): NoteView {
  return {
    id: row.id,
    content: row.content,
    html: row.contentHtml,
    url: notePath(row.id),
    inReplyTo: row.inReplyTo,
    mention: mentionOf(row),
    published: new Date(row.createdAt).toISOString(),
    updated: row.updatedAt ? new Date(row.updatedAt).toISOString() : null,
    pictures: (row.pictures ?? []).map(notePictureView),
  };
}

/**
 * Notes: Markdown rendered and sanitised once per save by the posts' renderer, each write and the
 * activity it owes the followers (Create, Update, Delete) in one transaction, on the same outbox
 * as posts. No category, digest or e-mail ever reads them. Pictures are media items of the note,
 * processed by the media worker like a post's; a Create or Update waits for them (the outbox).
 */
@Injectable()
export class NotesService {
  private readonly logger = new Logger(NotesService.name);
  private readonly origin: string;

  constructor(
    private readonly stored: NotesRepository,
    private readonly events: FederationEventsRepository,
    @Inject(POSTS_CONFIG) config: Pick<PostsConfig, 'SITE_URL'>,
    @Inject(STORAGE) private readonly storage: ObjectStorage,
  ) {
    this.origin = config.SITE_URL ?? DEFAULT_SITE_URL;
  }

  create(command: {
    content: string;
    inReplyTo?: string;
    mention: NoteMention | null;
    pictures: NotePictureUpload[];
  }): Promise<NoteView> {
    if (command.pictures.length > NOTE_PICTURES_MAX) throw RpcError.badRequest(NoteErrors.tooManyPictures);
    const html = renderMarkdown(command.content).html;
    return this.stored.transaction(async (manager) => {
      const row = await this.stored.insert(manager, {
        content: command.content,
        contentHtml: html,
        inReplyTo: command.inReplyTo ?? null,
        // A mention goes with what it answers only.
        mention: command.inReplyTo ? command.mention : null,
      });
      await this.stored.addPictures(manager, row.id, 0, command.pictures);
      await this.events.addForNote(manager, { noteId: row.id }, 'create');
      return noteView((await this.stored.byIdIn(manager, row.id))!);
    });
  }

  /** Whether the note of an archive's `sourceId` was restored before. */
  hasSource(sourceId: string): Promise<boolean> {
    return this.stored.hasSource(sourceId);
  }

  /**
   * A note of the blog's archive, as it was (text, dates, what it answers), with its stored
   * pictures waiting for the media worker; null when the same archive brought it before. It owes
   * the followers nothing: they had it when it was written, as an import's posts are not sent.
   */
  restore(note: Omit<RestoredNote, 'contentHtml'>, pictures: NotePictureUpload[]): Promise<NoteView | null> {
    if (pictures.length > NOTE_PICTURES_MAX) throw RpcError.badRequest(NoteErrors.tooManyPictures);
    const contentHtml = renderMarkdown(note.content).html;
    return this.stored.transaction(async (manager) => {
      const id = await this.stored.insertRestored(manager, { ...note, contentHtml });
      if (id === null) return null;
      await this.stored.addPictures(manager, id, 0, pictures);
      return noteView((await this.stored.byIdIn(manager, id))!);
    });
  }

  /**
   * New text; `keep` the pictures that stay (absent: all of them), `pictures` new ones after
   * them. The files of pictures that go are deleted once the change is stored.
   */
  async update(
    id: number,
    content: string,
    { keep, pictures = [] }: { keep?: string[]; pictures?: NotePictureUpload[] } = {},
  ): Promise<NoteView> {
    const html = renderMarkdown(content).html;
    const { view, dropped } = await this.stored.transaction(async (manager) => {
      const before = await this.stored.byIdIn(manager, id);
      const row = await this.stored.update(manager, id, { content, contentHtml: html });
      if (!before || !row) throw RpcError.notFound(NoteErrors.notFound);
      const had = new Set(before.pictures.map((p) => p.id));
      if (keep?.some((p) => !had.has(p))) throw RpcError.badRequest(NoteErrors.keepPictures);
      const dropped = keep ? await this.stored.dropPictures(manager, id, keep) : [];
      const left = dropped.length ? await this.stored.renumberPictures(manager, id) : before.pictures.length;
      if (left + pictures.length > NOTE_PICTURES_MAX) throw RpcError.badRequest(NoteErrors.tooManyPictures);
      await this.stored.addPictures(manager, id, left, pictures);
      // A save that changes nothing readers see owes no Update.
      if (before.contentHtml !== row.contentHtml || dropped.length || pictures.length)
        await this.events.addForNote(manager, { noteId: id }, 'update');
      return { view: noteView((await this.stored.byIdIn(manager, id))!), dropped };
    });
    await deleteFiles(this.storage, dropped.flatMap(pictureKeys), this.logger);
    return view;
  }

  async delete(id: number): Promise<{ deleted: true }> {
    const dropped = await this.stored.transaction(async (manager) => {
      if (!(await this.stored.markDeleted(manager, id))) throw RpcError.notFound(NoteErrors.notFound);
      await this.events.addForNote(manager, { noteId: id }, 'delete');
      // Its page answers 410 from now on: its pictures are served no more.
      return this.stored.dropPictures(manager, id, null);
    });
    await deleteFiles(this.storage, dropped.flatMap(pictureKeys), this.logger);
    return { deleted: true as const };
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
      images: view.pictures.flatMap((p) => this.image(p)),
    };
  }

  /** A ready picture as the Note's attachment: absolute on SITE_URL. */
  private image(picture: NotePictureView): ArticleImageView[] {
    if (picture.status !== 'ready' || !picture.src) return [];
    return [
      { url: new URL(picture.src, `${this.origin}/`).href, mediaType: picture.mediaType, alt: picture.alt },
    ];
  }
}
