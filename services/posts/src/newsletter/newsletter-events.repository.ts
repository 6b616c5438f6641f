import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { NewsletterEvent } from '@blog/contracts';
import { DataSource, type EntityManager } from 'typeorm';
import { mediaSettledSql } from '../federation/federation-events.repository.js';
import { VISIBILITY_SQL } from '../posts/visibility.js';

interface EventRow {
  id: string;
  postId: number;
  dueAt: Date;
}

/** posts.newsletter_events (what the each-post subscribers are owed): all of its SQL. */
@Injectable()
export class NewsletterEventsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * After a save of post `postId`, on the save's `manager`: a published post to be e-mailed is
   * owed, due at its publish time. A row not handed over yet follows the post's time; one handed
   * over is never touched (the unique key: a post is owed once). A post no longer to be e-mailed
   * loses the row not handed over yet. A draft writes nothing (a row it had waits, unseen, for
   * the post to be published again).
   */
  async record(manager: EntityManager, postId: number): Promise<void> {
    await manager.query(
      `INSERT INTO posts.newsletter_events (post_id, due_at)
       SELECT p.id, p.created_at FROM posts.posts p
        WHERE p.id = $1 AND p.status = 'published' AND p.send_by_email
       ON CONFLICT (post_id) DO UPDATE SET due_at = EXCLUDED.due_at
        WHERE posts.newsletter_events.done_at IS NULL`,
      [postId],
    );
    await manager.query(
      `DELETE FROM posts.newsletter_events e USING posts.posts p
        WHERE e.post_id = $1 AND p.id = e.post_id AND NOT p.send_by_email AND e.done_at IS NULL`,
      [postId],
    );
  }

  /**
   * Events due by the database's now and not handed over, oldest first, of posts visitors see
   * now (a post made a draft before its e-mail went out is not handed over while it is one).
   * Like a federation event, one waits while its post's pictures are processing, so the e-mail
   * carries them (at most MEDIA_WAIT).
   */
  async pending(limit: number): Promise<NewsletterEvent[]> {
    const rows = (await this.db.query(
      `SELECT e.id, e.post_id AS "postId", e.due_at AS "dueAt"
         FROM posts.newsletter_events e JOIN posts.posts p ON p.id = e.post_id
        WHERE e.done_at IS NULL AND e.due_at <= now() AND ${VISIBILITY_SQL.visible}
          AND ${mediaSettledSql('e')}
        ORDER BY e.due_at, e.created_at LIMIT $1`,
      [limit],
    )) as EventRow[];
    return rows.map((row) => ({ ...row, dueAt: new Date(row.dueAt).toISOString() }));
  }

  /** Marks event `id` done; false when it was done already (or there is none). */
  async markDone(id: string): Promise<boolean> {
    const [, affected] = (await this.db.query(
      `UPDATE posts.newsletter_events SET done_at = now() WHERE id = $1 AND done_at IS NULL`,
      [id],
    )) as [unknown, number];
    return affected > 0;
  }
}
