import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { NoteMention } from '@blog/contracts';
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
}

const COLUMNS = `id, content, content_html AS "contentHtml", in_reply_to AS "inReplyTo",
  mention_actor_uri AS "mentionActorUri", mention_handle AS "mentionHandle", created_at AS "createdAt",
  updated_at AS "updatedAt", deleted_at AS "deletedAt"`;

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

  /** The note, deleted or not; null when there never was one. */
  async byId(id: number): Promise<NoteRow | null> {
    const [row] = (await this.db.query(`SELECT ${COLUMNS} FROM posts.notes WHERE id = $1`, [
      id,
    ])) as NoteRow[];
    return row ?? null;
  }

  /** Notes not deleted, newest first, after the id `before` (keyset). */
  async page(before: number | null, limit: number): Promise<NoteRow[]> {
    return (await this.db.query(
      `SELECT ${COLUMNS} FROM posts.notes WHERE deleted_at IS NULL AND ($1::int IS NULL OR id < $1)
        ORDER BY id DESC LIMIT $2`,
      [before, limit],
    )) as NoteRow[];
  }
}
