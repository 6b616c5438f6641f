import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { MediaVariant } from '@blog/contracts';
import { DataSource } from 'typeorm';
import { VISIBILITY_SQL } from '../posts/visibility.js';
import { publicCommentSql } from '../comments/comments.repository.js';

/** The Article's `replies` list at most (the collection's first page; `total` counts them all). */
export const ARTICLE_REPLIES_MAX = 100;

/** A ready picture of a post, as the Article's attachment is made from it. */
export interface ArticlePictureRow {
  storageKey: string | null;
  mimeType: string | null;
  variants: MediaVariant[];
  width: number | null;
  height: number | null;
  alt: string | null;
}

/** A visible post with everything its Article shows, read in one statement. */
export interface ArticleRow {
  id: number;
  title: string;
  contentHtml: string;
  excerpt: string;
  slug: string;
  category: string;
  submenu1: string;
  submenu2: string | null;
  tags: string[];
  createdAt: Date;
  updatedAt: Date;
  pictures: ArticlePictureRow[];
  replyTotal: number;
  /** The first comments readers see, oldest first: their id and, for a fediverse reply, its Note id. */
  replies: { id: number; remoteObjectId: string | null }[];
}

// Pictures and replies as sub-selects, so one post or a whole outbox page is one statement.
const ARTICLE_SELECT = `
  SELECT p.id, p.title, p.content_html AS "contentHtml", p.excerpt, p.slug, p.category, p.submenu1,
         p.submenu2, p.tags, p.created_at AS "createdAt", p.updated_at AS "updatedAt",
         (SELECT coalesce(json_agg(json_build_object(
                    'storageKey', m.storage_key, 'mimeType', m.mime_type, 'variants', m.variants,
                    'width', m.width, 'height', m.height, 'alt', m.alt) ORDER BY m.position), '[]'::json)
            FROM posts.media_items m
           WHERE m.post_id = p.id AND m.type = 'image' AND m.status = 'ready') AS pictures,
         (SELECT count(*)::int FROM posts.comments c
           WHERE c.post_id = p.id AND ${publicCommentSql('c.')}) AS "replyTotal",
         (SELECT coalesce(json_agg(json_build_object('id', r.id, 'remoteObjectId', r.remote_object_id)
                    ORDER BY r.created_at, r.id), '[]'::json)
            FROM (SELECT c.id, c.remote_object_id, c.created_at FROM posts.comments c
                   WHERE c.post_id = p.id AND ${publicCommentSql('c.')}
                   ORDER BY c.created_at, c.id LIMIT ${ARTICLE_REPLIES_MAX}) r) AS replies
    FROM posts.posts p
   WHERE ${VISIBILITY_SQL.visible}`;

/** What the federation reads of posts: visible posts as Articles, and whether one went out. */
@Injectable()
export class ArticlesRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Post `id` when visitors see it; null otherwise (a draft, scheduled, or no such post). */
  async visible(id: number): Promise<ArticleRow | null> {
    const [row] = (await this.db.query(`${ARTICLE_SELECT} AND p.id = $1`, [id])) as ArticleRow[];
    return row ?? null;
  }

  /** A page of visible posts, newest first (the list's order), and how many there are. */
  async page(
    offset: number,
    limit: number,
  ): Promise<{ rows: Pick<ArticleRow, 'id' | 'createdAt'>[]; total: number }> {
    const rows = (await this.db.query(
      `SELECT p.id, p.created_at AS "createdAt" FROM posts.posts p WHERE ${VISIBILITY_SQL.visible}
        ORDER BY p.created_at DESC, p.id DESC OFFSET $1 LIMIT $2`,
      [offset, limit],
    )) as Pick<ArticleRow, 'id' | 'createdAt'>[];
    const [{ total }] = (await this.db.query(
      `SELECT count(*)::int AS total FROM posts.posts p WHERE ${VISIBILITY_SQL.visible}`,
    )) as { total: number }[];
    return { rows, total };
  }

  /** Whether the followers were sent post `id`'s Create (so its URL now answers 410, not 404). */
  async wasDelivered(id: number): Promise<boolean> {
    const rows = (await this.db.query(
      `SELECT 1 FROM posts.federation_events WHERE post_id = $1 AND kind = 'create' AND done_at IS NOT NULL LIMIT 1`,
      [id],
    )) as unknown[];
    return rows.length > 0;
  }
}
