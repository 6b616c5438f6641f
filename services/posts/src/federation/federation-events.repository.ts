import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { FederationEvent, FederationEventKind, NoteMention, PostStatus } from '@blog/contracts';
import { DataSource, type EntityManager } from 'typeorm';

/** A post as its followers know it: whether it is published, when, and a digest of what an Article shows. */
export interface FederatedSnapshot {
  status: PostStatus;
  publishAt: Date;
  /**
   * What the Article carries (title, HTML, excerpt, tags, slug and place, which make its URL, and
   * its media): an edit that leaves it the same (the date, a re-save) owes no Update.
   */
  fingerprint: string;
}

/** Where the post stands in the log: its Create waiting, or delivered and not deleted since. */
export interface FederationState {
  pendingCreate: { id: string; dueAt: Date } | null;
  delivered: boolean;
}

/** How long a due Create or Update (or a post's e-mail) waits for its post's media to finish processing. */
export const MEDIA_WAIT = '30 minutes';

/**
 * SQL: event `e` (a row with post_id, due_at, created_at) may go: no picture or video of its
 * post is still processing, or it has waited MEDIA_WAIT past due (or past its write, for a post
 * dated back), so a stuck item never holds it. With `notes` (a row with note_id too), a note's
 * pictures hold its event the same way.
 */
export const mediaSettledSql = (e: string, { notes = false } = {}) =>
  `(greatest(${e}.due_at, ${e}.created_at) <= now() - interval '${MEDIA_WAIT}'
    OR (NOT EXISTS (SELECT 1 FROM posts.media_items m WHERE m.post_id = ${e}.post_id AND m.status = 'pending')${
      notes
        ? `
        AND NOT EXISTS (SELECT 1 FROM posts.media_items m WHERE m.note_id = ${e}.note_id AND m.status = 'pending')`
        : ''
    }))`;

interface EventRow {
  id: string;
  postId: number | null;
  noteId: number | null;
  commentId: number | null;
  kind: FederationEventKind;
  dueAt: Date;
}

/** posts.federation_events (the transactional outbox of what followers are owed): all of its SQL. */
@Injectable()
export class FederationEventsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * Post `postId` as its followers would see it, on the write's `manager`, row-locked (so a
   * delete reads what it deletes); null when there is none.
   */
  async snapshot(manager: EntityManager, postId: number): Promise<FederatedSnapshot | null> {
    const [row] = (await manager.query(
      `SELECT p.status, p.created_at AS "publishAt",
              md5(concat_ws(E'\\x1f', p.title, p.content_html, p.excerpt, array_to_string(p.tags, E'\\x1e'),
                  p.slug, p.category, p.submenu1, coalesce(p.submenu2, ''),
                  (SELECT string_agg(concat_ws(':', m.id, m.position, m.type, m.status, m.storage_key, m.alt),
                                     ',' ORDER BY m.position)
                     FROM posts.media_items m WHERE m.post_id = p.id))) AS fingerprint
         FROM posts.posts p WHERE p.id = $1 FOR UPDATE OF p`,
      [postId],
    )) as FederatedSnapshot[];
    return row ?? null;
  }

  /** The latest Create or Delete of the post decides: a Create not done is pending; one done is delivered. */
  async state(manager: EntityManager, postId: number): Promise<FederationState> {
    const [last] = (await manager.query(
      `SELECT id, kind, due_at AS "dueAt", done_at AS "doneAt" FROM posts.federation_events
        WHERE post_id = $1 AND kind IN ('create', 'delete') ORDER BY created_at DESC LIMIT 1`,
      [postId],
    )) as { id: string; kind: FederationEventKind; dueAt: Date; doneAt: Date | null }[];
    if (last?.kind !== 'create') return { pendingCreate: null, delivered: false };
    return last.doneAt
      ? { pendingCreate: null, delivered: true }
      : { pendingCreate: { id: last.id, dueAt: last.dueAt }, delivered: false };
  }

  /** A new event, due at `dueAt` (the transaction's now when null). */
  async add(manager: EntityManager, postId: number, kind: FederationEventKind, dueAt: Date | null) {
    await manager.query(
      `INSERT INTO posts.federation_events (post_id, kind, due_at) VALUES ($1, $2, coalesce($3, now()))`,
      [postId, kind, dueAt],
    );
  }

  async moveDue(manager: EntityManager, id: string, dueAt: Date): Promise<void> {
    await manager.query(`UPDATE posts.federation_events SET due_at = $2 WHERE id = $1 AND done_at IS NULL`, [
      id,
      dueAt,
    ]);
  }

  /** Drops the post's Create and Update not handed over yet (what followers never heard of is not taken back). */
  async dropPending(manager: EntityManager, postId: number): Promise<void> {
    await manager.query(
      `DELETE FROM posts.federation_events WHERE post_id = $1 AND kind IN ('create', 'update') AND done_at IS NULL`,
      [postId],
    );
  }

  /**
   * Events due by now and not done, oldest first (by due time, then by when they were written).
   * A Create or Update waits while a picture or video of its post (or note) is still processing, so
   * followers get the Article with its media (no later event would bring them); at most
   * MEDIA_WAIT past due (or past the write, for a post dated back), so a stuck item never keeps
   * a post from them.
   */
  async pending(limit: number): Promise<FederationEvent[]> {
    const rows = (await this.db.query(
      `SELECT e.id, e.post_id AS "postId", e.note_id AS "noteId", e.comment_id AS "commentId", e.kind,
              e.due_at AS "dueAt" FROM posts.federation_events e
        WHERE e.done_at IS NULL AND e.due_at <= now()
          AND (e.kind = 'delete' OR ${mediaSettledSql('e', { notes: true })})
        ORDER BY e.due_at, e.created_at LIMIT $1`,
      [limit],
    )) as EventRow[];
    return rows.map(({ noteId, commentId, ...row }) => ({
      ...row,
      // Only on the events of a note or an owner's reply: a post's event reads as it always did.
      ...(noteId !== null ? { noteId } : {}),
      ...(commentId !== null ? { commentId } : {}),
      dueAt: new Date(row.dueAt).toISOString(),
    }));
  }

  /**
   * An event of a note's or an owner's reply's Note, due now. Its Create and Update (when not
   * handed over yet) are dropped with a Delete: followers never hear of what is gone already.
   */
  async addForNote(
    manager: EntityManager,
    object: { noteId: number } | { commentId: number },
    kind: FederationEventKind,
    /** A deleted owner's reply's Note id and mention (its row goes with the delete). */
    tombstone: { uri: string; mention: NoteMention | null } | null = null,
  ): Promise<void> {
    const [column, id] = 'noteId' in object ? ['note_id', object.noteId] : ['comment_id', object.commentId];
    if (kind === 'delete') {
      const [, dropped] = (await manager.query(
        `DELETE FROM posts.federation_events WHERE ${column} = $1 AND kind = 'create' AND done_at IS NULL`,
        [id],
      )) as [unknown, number];
      await manager.query(
        `DELETE FROM posts.federation_events WHERE ${column} = $1 AND kind = 'update' AND done_at IS NULL`,
        [id],
      );
      if (dropped > 0) return; // its Create never went out: nothing to take back
    }
    await manager.query(
      `INSERT INTO posts.federation_events (${column}, kind, due_at, tombstone) VALUES ($1, $2, now(), $3)`,
      [id, kind, tombstone ? JSON.stringify(tombstone) : null],
    );
  }

  /** What the Delete of owner's reply `commentId` names, kept when the reply was deleted. */
  async tombstoneOf(commentId: number): Promise<{ uri: string; mention: NoteMention | null } | null> {
    const [row] = (await this.db.query(
      `SELECT tombstone FROM posts.federation_events
        WHERE comment_id = $1 AND kind = 'delete' AND tombstone IS NOT NULL ORDER BY created_at DESC LIMIT 1`,
      [commentId],
    )) as { tombstone: { uri: string; mention: NoteMention | null } }[];
    return row?.tombstone ?? null;
  }

  /** Marks event `id` done; false when it was done already (or there is none). */
  async markDone(id: string): Promise<boolean> {
    const [, affected] = (await this.db.query(
      `UPDATE posts.federation_events SET done_at = now() WHERE id = $1 AND done_at IS NULL`,
      [id],
    )) as [unknown, number];
    return affected > 0;
  }
}
