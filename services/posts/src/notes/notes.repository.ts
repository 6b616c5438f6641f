import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { MediaStatus, MediaVariant, NoteMention, NotePictureUpload } from '@blog/contracts';
import { randomUUID } from 'node:crypto';
import { DataSource, type EntityManager } from 'typeorm';

/** A note as stored. */
export interface NoteRow {
  id: number;
  content: string;
  contentHtml: string;
  inReplyTo: string | null;
  mentionActorUri: string | null;
  mentionHandle: string | null;
  createdAt: Date;
  updatedAt: Date | null;
  deletedAt: Date | null;
  /** Its pictures (media items with its note_id), in order. */
  pictures: NotePictureRow[];
}

/** A note's picture as stored (a media item the media worker processes). */
export interface NotePictureRow {
  id: string;
  status: MediaStatus;
  storageKey: string | null;
  originalKey: string | null;
  thumbnailKey: string | null;
  croppedPreviewKey: string | null;
  mimeType: string | null;
  variants: MediaVariant[];
  width: number | null;
  height: number | null;
  alt: string | null;
}

/** A note as the blog's archive holds it: its text and dates, its pictures' originals in order. */
export type ExportNoteRow = Omit<NoteRow, 'contentHtml' | 'pictures'> & {
  pictures: {
    position: number;
    originalKey: string | null;
    name: string | null;
    mimeType: string | null;
    alt: string | null;
  }[];
};

/** A note brought back from the blog's archive (ArchiveRestore). */
export interface RestoredNote {
  /** `blog:<blog id>:note:<id>`: the same archive imported again finds it. */
  sourceId: string;
  /** The id it had, kept when it is free here (its address, which other servers hold, stays). */
  id: number | null;
  content: string;
  contentHtml: string;
  inReplyTo: string | null;
  mention: NoteMention | null;
  createdAt: Date;
  updatedAt: Date | null;
  /** Set for a deleted note: its page answers 410. */
  deletedAt: Date | null;
}

const COLUMNS = `id, content, content_html AS "contentHtml", in_reply_to AS "inReplyTo",
  mention_actor_uri AS "mentionActorUri", mention_handle AS "mentionHandle", created_at AS "createdAt",
  updated_at AS "updatedAt", deleted_at AS "deletedAt"`;

const PICTURE_FIELDS = `'id', m.id, 'status', m.status, 'storageKey', m.storage_key, 'originalKey', m.original_key,
  'thumbnailKey', m.thumbnail_key, 'croppedPreviewKey', m.cropped_preview_key, 'mimeType', m.mime_type,
  'variants', m.variants, 'width', m.width, 'height', m.height, 'alt', m.alt`;

/** A note with its pictures, in one statement. */
const SELECT = `SELECT ${COLUMNS},
  (SELECT coalesce(json_agg(json_build_object(${PICTURE_FIELDS}) ORDER BY m.position), '[]'::json)
     FROM posts.media_items m WHERE m.note_id = n.id) AS pictures
  FROM posts.notes n`;

/** posts.notes: all of its SQL. Writes take the caller's transaction (the outbox row goes with them). */
@Injectable()
export class NotesRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.db.transaction(work);
  }

  async insert(
    manager: EntityManager,
    note: { content: string; contentHtml: string; inReplyTo: string | null; mention: NoteMention | null },
  ): Promise<NoteRow> {
    const [row] = (await manager.query(
      `INSERT INTO posts.notes (content, content_html, in_reply_to, mention_actor_uri, mention_handle)
       VALUES ($1, $2, $3, $4, $5) RETURNING ${COLUMNS}`,
      [
        note.content,
        note.contentHtml,
        note.inReplyTo,
        note.mention?.actorUri ?? null,
        note.mention?.handle ?? null,
      ],
    )) as NoteRow[];
    return row!;
  }

  /**
   * New pictures of note `noteId` from `position` on: pending items with their stored originals,
   * which the media worker processes by id as it does a post's.
   */
  async addPictures(
    manager: EntityManager,
    noteId: number,
    position: number,
    pictures: NotePictureUpload[],
  ): Promise<void> {
    for (const [i, { file, alt }] of pictures.entries())
      await manager.query(
        `INSERT INTO posts.media_items (id, note_id, position, type, status, original_key, name, mime_type,
           size_bytes, alt, variants, status_changed_at)
         VALUES ($1, $2, $3, 'image', 'pending', $4, $5, $6, $7, $8, '[]'::jsonb, now())`,
        [randomUUID(), noteId, position + i, file.key, file.name, file.mimeType, file.size, alt || null],
      );
  }

  /** Deletes note `noteId`'s pictures not in `keep` (all when `keep` is null); answers them, for their files. */
  async dropPictures(
    manager: EntityManager,
    noteId: number,
    keep: string[] | null,
  ): Promise<NotePictureRow[]> {
    const [rows] = (await manager.query(
      `DELETE FROM posts.media_items m WHERE m.note_id = $1 AND ($2::uuid[] IS NULL OR m.id <> ALL($2::uuid[]))
       RETURNING json_build_object(${PICTURE_FIELDS}) AS picture`,
      [noteId, keep],
    )) as [{ picture: NotePictureRow }[], number];
    return rows.map((r) => r.picture);
  }

  /** Numbers the pictures left 0, 1, … in their order (after some were dropped). */
  async renumberPictures(manager: EntityManager, noteId: number): Promise<number> {
    const [rows] = (await manager.query(
      `UPDATE posts.media_items m SET position = o.rank - 1
         FROM (SELECT id, row_number() OVER (ORDER BY position) AS rank FROM posts.media_items WHERE note_id = $1) o
        WHERE m.id = o.id RETURNING m.id`,
      [noteId],
    )) as [unknown[], number];
    return rows.length;
  }

  /** The note on the write's `manager` (it sees what the write did), with its pictures. */
  async byIdIn(manager: EntityManager, id: number): Promise<NoteRow | null> {
    const [row] = (await manager.query(`${SELECT} WHERE n.id = $1`, [id])) as NoteRow[];
    return row ?? null;
  }

  /** The new text of a note not deleted; null when there is none. */
  async update(
    manager: EntityManager,
    id: number,
    text: { content: string; contentHtml: string },
  ): Promise<NoteRow | null> {
    const [rows] = (await manager.query(
      `UPDATE posts.notes SET content = $2, content_html = $3, updated_at = now()
        WHERE id = $1 AND deleted_at IS NULL RETURNING ${COLUMNS}`,
      [id, text.content, text.contentHtml],
    )) as [NoteRow[], number];
    return rows[0] ?? null;
  }

  /** Marks it deleted (its page answers 410 from now on); false when there was none to delete. */
  async markDeleted(manager: EntityManager, id: number): Promise<boolean> {
    const [, affected] = (await manager.query(
      `UPDATE posts.notes SET deleted_at = now(), content = '', content_html = '' WHERE id = $1 AND deleted_at IS NULL`,
      [id],
    )) as [unknown, number];
    return affected > 0;
  }

  /** Whether a note restored from `sourceId` is here already. */
  async hasSource(sourceId: string): Promise<boolean> {
    const rows = (await this.db.query(`SELECT 1 FROM posts.notes WHERE source_id = $1`, [
      sourceId,
    ])) as unknown[];
    return rows.length > 0;
  }

  /**
   * A restored note, with its id when that is free; null when its source is here already. The id
   * sequence then starts past every id, so the next note written cannot take a kept one.
   */
  async insertRestored(manager: EntityManager, note: RestoredNote): Promise<number | null> {
    const [row] = (await manager.query(
      `INSERT INTO posts.notes (id, content, content_html, in_reply_to, mention_actor_uri, mention_handle,
         created_at, updated_at, deleted_at, source_id)
       SELECT CASE WHEN $1::int IS NOT NULL AND NOT EXISTS (SELECT 1 FROM posts.notes WHERE id = $1::int)
                THEN $1::int ELSE nextval(pg_get_serial_sequence('posts.notes', 'id')) END,
              $2, $3, $4, $5, $6, $7, $8, $9, $10
        WHERE NOT EXISTS (SELECT 1 FROM posts.notes WHERE source_id = $10)
       RETURNING id`,
      [
        note.id,
        note.content,
        note.contentHtml,
        note.inReplyTo,
        note.mention?.actorUri ?? null,
        note.mention?.handle ?? null,
        note.createdAt,
        note.updatedAt,
        note.deletedAt,
        note.sourceId,
      ],
    )) as { id: number }[];
    if (!row) return null;
    await manager.query(
      `SELECT setval(pg_get_serial_sequence('posts.notes', 'id'), (SELECT max(id) FROM posts.notes))`,
    );
    return row.id;
  }

  /** Every note, deleted ones too, oldest first, after the id `afterId` (the archive's walk). */
  async exportPage(afterId: number, limit: number): Promise<ExportNoteRow[]> {
    return (await this.db.query(
      `SELECT n.id, n.content, n.in_reply_to AS "inReplyTo", n.mention_actor_uri AS "mentionActorUri",
         n.mention_handle AS "mentionHandle", n.created_at AS "createdAt", n.updated_at AS "updatedAt",
         n.deleted_at AS "deletedAt", (SELECT coalesce(json_agg(json_build_object('position', m.position, 'originalKey', m.original_key,
            'name', m.name, 'mimeType', m.mime_type, 'alt', m.alt) ORDER BY m.position), '[]'::json)
            FROM posts.media_items m WHERE m.note_id = n.id) AS pictures
         FROM posts.notes n WHERE n.id > $1 ORDER BY n.id LIMIT $2`,
      [afterId, limit],
    )) as ExportNoteRow[];
  }

  /** The note, deleted or not; null when there never was one. */
  async byId(id: number): Promise<NoteRow | null> {
    const [row] = (await this.db.query(`${SELECT} WHERE n.id = $1`, [id])) as NoteRow[];
    return row ?? null;
  }

  /** Notes not deleted, newest first, after the id `before` (keyset). */
  async page(before: number | null, limit: number): Promise<NoteRow[]> {
    return (await this.db.query(
      `${SELECT} WHERE n.deleted_at IS NULL AND ($1::int IS NULL OR n.id < $1)
        ORDER BY n.id DESC LIMIT $2`,
      [before, limit],
    )) as NoteRow[];
  }
}
