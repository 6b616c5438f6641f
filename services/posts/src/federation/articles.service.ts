import { Inject, Injectable } from '@nestjs/common';
import {
  buildPostPath,
  pictureSources,
  uploadsPath,
  type ArticleAnswer,
  type ArticleImageView,
  type ArticleOutboxPage,
  type ArticleView,
} from '@blog/contracts';
import type { PostsConfig } from '../config.js';
import { SiteSettings } from '../site/site-settings.js';
import { POSTS_CONFIG } from '../tokens.js';
import { absoluteHtml } from './article-html.js';
import { ArticlesRepository, type ArticlePictureRow, type ArticleRow } from './articles.repository.js';

/** The blog's address when SITE_URL is unset: the social service's own default, so the ids agree. */
const DEFAULT_SITE_URL = 'http://localhost:3000';

/** The served file's type from its format as the media worker names it (sharp's: jpeg, png, webp, gif, avif). */
function mediaTypeOf(format: string | undefined, stored: string | null): string {
  if (format && /^[a-z0-9.+-]+$/.test(format)) return `image/${format}`;
  return stored ?? 'image/jpeg';
}

/**
 * Posts as the federation shows them: the Article of a visible post, its 410
 * answer once it was delivered and is gone, and the outbox's pages.
 */
@Injectable()
export class ArticlesService {
  private readonly origin: string;

  constructor(
    private readonly stored: ArticlesRepository,
    private readonly settings: SiteSettings,
    @Inject(POSTS_CONFIG) config: Pick<PostsConfig, 'SITE_URL'>,
  ) {
    this.origin = config.SITE_URL ?? DEFAULT_SITE_URL;
  }

  /** A visible post's Article; `gone` when it is not visible but its Create went out; else null. */
  async get(postId: number): Promise<ArticleAnswer> {
    const row = await this.stored.visible(postId);
    if (row) return this.view(row);
    return (await this.stored.wasDelivered(postId)) ? { gone: true } : null;
  }

  /** Visible posts, newest first, by id (ArticleRef). */
  async outbox(offset: number, limit: number): Promise<ArticleOutboxPage> {
    const { rows, total } = await this.stored.page(offset, limit);
    return {
      items: rows.map((row) => ({ id: row.id, published: new Date(row.createdAt).toISOString() })),
      total,
    };
  }

  private view(row: ArticleRow): ArticleView {
    // The tree URL, as the page is reached; a post whose place left the tree keeps its stable one.
    const url = `${this.origin}${buildPostPath(this.settings.current(), row) ?? `/post/${row.id}`}`;
    const stable = `${this.origin}/post/${row.id}`;
    return {
      id: row.id,
      title: row.title,
      html: absoluteHtml(row.contentHtml, url),
      excerpt: row.excerpt,
      url,
      published: new Date(row.createdAt).toISOString(),
      updated: row.updatedAt ? new Date(row.updatedAt).toISOString() : null,
      tags: row.tags,
      images: row.pictures.flatMap((picture) => this.image(picture)),
      replies: {
        total: row.replyTotal,
        items: row.replies.map((reply) => reply.remoteObjectId ?? `${stable}#comment-${reply.id}`),
      },
    };
  }

  /** The picture the page draws (its fallback source), absolute, with its alt text. */
  private image(picture: ArticlePictureRow): ArticleImageView[] {
    const variants = (picture.variants ?? []).filter((v) => v.format !== 'poster' && v.format !== 'video');
    const sources = pictureSources({
      path: picture.storageKey ? uploadsPath(picture.storageKey) : undefined,
      variants: variants.map((v) => ({
        path: uploadsPath(v.key),
        format: v.format,
        width: v.width,
        height: v.height,
      })),
      width: picture.width,
      height: picture.height,
    });
    if (!sources.fallbackSrc) return [];
    const shown = variants.find((v) => uploadsPath(v.key) === sources.fallbackSrc);
    return [
      {
        url: new URL(sources.fallbackSrc, `${this.origin}/`).href,
        mediaType: mediaTypeOf(shown?.format, picture.mimeType),
        alt: picture.alt ?? '',
      },
    ];
  }
}
