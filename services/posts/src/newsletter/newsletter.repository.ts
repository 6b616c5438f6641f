import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { VISIBILITY_SQL } from '../posts/visibility.js';
import type { NewsletterMediaRow } from './newsletter-html.js';

/** A visible post with what its e-mail shows, read in one statement. */
export interface NewsletterPostRow {
  id: number;
  title: string;
  contentHtml: string;
  excerpt: string;
  slug: string;
  category: string;
  submenu1: string;
  submenu2: string | null;
  createdAt: Date;
  media: NewsletterMediaRow[];
}

/** What the newsletter reads of posts: a post visitors see now, by the database's clock. */
@Injectable()
export class NewsletterRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * Post `id` when visitors see it now; null otherwise (a draft, scheduled, deleted). `any`
   * takes it whatever its state (the owner's test e-mail).
   */
  async find(id: number, any = false): Promise<NewsletterPostRow | null> {
    const [row] = (await this.db.query(
      `SELECT p.id, p.title, p.content_html AS "contentHtml", p.excerpt, p.slug, p.category, p.submenu1,
              p.submenu2, p.created_at AS "createdAt",
              (SELECT coalesce(json_agg(json_build_object(
                         'type', m.type, 'storageKey', m.storage_key, 'thumbnailKey', m.thumbnail_key,
                         'variants', m.variants, 'width', m.width, 'height', m.height, 'alt', m.alt,
                         'title', m.title, 'youtubeId', m.youtube_id) ORDER BY m.position), '[]'::json)
                 FROM posts.media_items m WHERE m.post_id = p.id AND m.status = 'ready') AS media
         FROM posts.posts p
        WHERE ${any ? 'true' : VISIBILITY_SQL.visible} AND p.id = $1`,
      [id],
    )) as NewsletterPostRow[];
    return row ?? null;
  }
}
