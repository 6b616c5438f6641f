import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { ArchiveMedia, ArchivePost, PostListQuery, PostReadOptions } from '@blog/contracts';
import { DataSource, In, type EntityManager, type SelectQueryBuilder } from 'typeorm';
import { PostSearchRepository, type SearchPage } from '../search/post-search.repository.js';
import { VISIBILITY_SQL, type PostVisibilityFilter } from './visibility.js';
import { MediaItem } from './media-item.entity.js';
import { Post } from './post.entity.js';

const MAX_BATCH = 500;

/** The export's walk: the next page of posts after `afterId`, each with everything the archive keeps. */
export interface ExportBatch {
  posts: (Omit<ArchivePost, 'media'> & {
    media: (Omit<ArchiveMedia, 'file'> & { originalKey: string | null; position: number })[];
  })[];
  lastId: number | null;
}

interface ExportPostRow {
  id: number;
  title: string;
  slug: string;
  status: 'draft' | 'published';
  created_at: Date;
  updated_at: Date;
  category: string;
  submenu1: string;
  submenu2: string | null;
  place_id: string | null;
  tags: string[];
  content: string;
  source_id: string | null;
}

interface ExportMediaRow {
  id: string;
  post_id: number;
  position: number;
  type: 'image' | 'video' | 'youtube';
  name: string | null;
  mime_type: string | null;
  youtube_url: string | null;
  title: string | null;
  alt: string | null;
  caption: string | null;
  crop_x: number | null;
  crop_y: number | null;
  crop_scale: number | null;
  original_key: string | null;
}

/** A post an import brought before: its id, the identity it has now and its media. */
export interface ImportedPost {
  id: number;
  sourceId: string;
  media: MediaItem[];
}

/** Where an imported post came from: its identity there and the old paths that lead to it. */
export interface PostOrigin {
  sourceId: string;
  oldPaths: string[];
  /** The slug it had there (a collision gets a suffix, as always). */
  slug?: string;
}

/** The list's filters, placement as stored labels (the caller resolved the URL's segments). */
export interface PostFilter {
  category?: string;
  submenu1?: string;
  submenu2?: string;
  /** Lower case. */
  tag?: string;
  from?: string;
  /** Exclusive. */
  to?: Date;
}

/** Which wide text columns a read brings: single posts, and lists that ask. */
export type PostTexts = Pick<PostReadOptions, 'includeHtml' | 'includeSource'>;

/** A sitemap entry's row: where a visible post sits and when it changed. */
export type PostUrlRow = Pick<Post, 'id' | 'slug' | 'category' | 'submenu1' | 'submenu2' | 'updatedAt'>;

/** posts.posts with their media rows (posts.media_items) and old paths (posts.post_old_paths): one aggregate. */
export abstract class PostsRepository {
  /**
   * The export's walk over every post, drafts and scheduled ones included: the page after
   * `afterId` (at most 500 posts), each with its media and old paths.
   */
  abstract exportPage(afterId: number, limit: number): Promise<ExportBatch>;
  /**
   * The post known by `sourceId` or, failing that, by one of `formerIds` (an earlier
   * importer's identities for it), with its media; null when no import brought it.
   */
  abstract findImported(sourceId: string, formerIds?: string[]): Promise<ImportedPost | null>;
  /**
   * A post's media rows by position (the preview numbers its videos in that order, as a saved
   * post does); on `manager` when given (a write's transaction).
   */
  abstract mediaOf(postId: number, manager?: EntityManager): Promise<MediaItem[]>;
  /** Stores a post's rendered HTML again, on the caller's transaction `manager` (which holds its row lock). */
  abstract saveContentHtml(manager: EntityManager, postId: number, contentHtml: string): Promise<void>;
  /** The media of `postIds`, by post then position; on `manager` when given (a write's transaction). */
  abstract mediaOfPosts(postIds: number[], manager?: EntityManager): Promise<MediaItem[]>;
  /** The sitemap's walk: visible posts after `afterId` by id (keyset, an index range scan). */
  abstract visibleUrls(afterId: number, offset: number, limit: number): Promise<PostUrlRow[]>;
  abstract countVisible(): Promise<number>;
  /** Slugs that start with `prefix` (slugs hold only [a-z0-9-], so it needs no LIKE escaping). */
  abstract slugsStartingWith(manager: EntityManager, prefix: string): Promise<string[]>;
  /** An imported post's identity and old paths; a path another post already holds stays with it. */
  abstract saveOrigin(manager: EntityManager, postId: number, origin: PostOrigin): Promise<void>;
  /** One page of the filtered posts `visibility` lets through, newest first, and how many there are. */
  abstract page(
    filter: PostFilter,
    visibility: PostVisibilityFilter,
    texts: PostTexts,
    page: { offset: number; limit: number },
  ): Promise<{ posts: Post[]; total: number }>;
  /** Search over the filtered posts `visibility` lets through (see PostSearchRepository). */
  abstract search(
    filter: PostFilter,
    visibility: PostVisibilityFilter,
    text: string,
    query: PostListQuery,
  ): Promise<SearchPage>;
  /** One post by id or slug, any status; on `manager` when given (a write's transaction). */
  abstract findOne(
    where: { id: number } | { slug: string },
    texts: PostTexts,
    manager?: EntityManager,
  ): Promise<Post | null>;
  /** The posts of `ids` that exist, in any order. */
  abstract byIds(ids: number[], texts: PostTexts): Promise<Post[]>;
  /** `work` on the database's own manager, outside any transaction (each statement atomic by itself). */
  abstract withoutTransaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T>;
  /** Inserts a post in one statement (on the caller's transaction when `manager` is one); answers it with its id. */
  abstract insertPost(manager: EntityManager, fields: Partial<Post>): Promise<Post>;
  /** Post `id`, row-locked on `manager`; null when there is none. */
  abstract lockPost(manager: EntityManager, id: number): Promise<Post | null>;
  /** Stores `post` with `fields` changed. */
  abstract updatePost(manager: EntityManager, post: Post, fields: Partial<Post>): Promise<void>;
  /** Inserts or updates media rows; answers them as stored. */
  abstract saveMedia(manager: EntityManager, rows: MediaItem[]): Promise<MediaItem[]>;
  abstract deleteMedia(manager: EntityManager, ids: string[]): Promise<void>;
  /** Deletes post `id` (its media rows go with it); false when there was none. */
  abstract deletePost(manager: EntityManager, id: number): Promise<boolean>;
}

@Injectable()
export class PostgresPostsRepository extends PostsRepository {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly searcher: PostSearchRepository,
  ) {
    super();
  }

  async page(
    filter: PostFilter,
    visibility: PostVisibilityFilter,
    texts: PostTexts,
    page: { offset: number; limit: number },
  ): Promise<{ posts: Post[]; total: number }> {
    const filtered = this.filtered(filter, texts);
    if (VISIBILITY_SQL[visibility]) filtered.andWhere(VISIBILITY_SQL[visibility]!);
    const total = await filtered.clone().getCount();
    const posts = await filtered
      .orderBy('p.created_at', 'DESC')
      .addOrderBy('p.id', 'DESC')
      .offset(page.offset)
      .limit(page.limit)
      .getMany();
    return { posts, total };
  }

  search(
    filter: PostFilter,
    visibility: PostVisibilityFilter,
    text: string,
    query: PostListQuery,
  ): Promise<SearchPage> {
    return this.searcher.search(this.filtered(filter, {}), visibility, text, query);
  }

  findOne(
    where: { id: number } | { slug: string },
    texts: PostTexts,
    manager: EntityManager = this.db.manager,
  ): Promise<Post | null> {
    const qb = this.postsQuery(texts, manager);
    return ('id' in where ? qb.where('p.id = :id', where) : qb.where('p.slug = :slug', where)).getOne();
  }

  byIds(ids: number[], texts: PostTexts): Promise<Post[]> {
    return this.postsQuery(texts).where('p.id IN (:...ids)', { ids }).getMany();
  }

  /** The list's filters (placement, tag, dates); who may see what is added by the caller. */
  private filtered(filter: PostFilter, texts: PostTexts): SelectQueryBuilder<Post> {
    const qb = this.postsQuery(texts);
    if (filter.category !== undefined) qb.andWhere('p.category = :category', { category: filter.category });
    if (filter.submenu1 !== undefined) qb.andWhere('p.submenu1 = :submenu1', { submenu1: filter.submenu1 });
    if (filter.submenu2 !== undefined) qb.andWhere('p.submenu2 = :submenu2', { submenu2: filter.submenu2 });
    if (filter.tag) qb.andWhere('p.tags_lower @> ARRAY[:tag]::text[]', { tag: filter.tag });
    if (filter.from) qb.andWhere('p.created_at >= :from', { from: filter.from });
    if (filter.to) qb.andWhere('p.created_at < :to', { to: filter.to });
    return qb;
  }

  /**
   * Posts as `p`; with their texts (Markdown source, rendered HTML) only where they are shown:
   * single posts, and lists that ask. Cards show the excerpt; the texts are the wide columns.
   */
  private postsQuery(texts: PostTexts, manager: EntityManager = this.db.manager): SelectQueryBuilder<Post> {
    const qb = manager.getRepository(Post).createQueryBuilder('p');
    if (texts.includeSource) qb.addSelect('p.content');
    if (texts.includeHtml) qb.addSelect('p.contentHtml');
    return qb;
  }

  // Keyset pages on the primary key (each page an index range scan), with the media and old
  // paths of that page in two more queries, so an export of 10,000 posts holds one page at a time.
  async exportPage(afterId: number, limit: number): Promise<ExportBatch> {
    const posts = (await this.db.query(
      `SELECT id, title, slug, status, created_at, updated_at, category, submenu1, submenu2, place_id, tags,
              content, source_id
       FROM posts.posts WHERE id > $1 ORDER BY id LIMIT $2`,
      [afterId, Math.min(Math.max(limit, 1), MAX_BATCH)],
    )) as ExportPostRow[];
    if (!posts.length) return { posts: [], lastId: null };
    const ids = posts.map((p) => p.id);
    const media = (await this.db.query(
      `SELECT id, post_id, position, type, name, mime_type, youtube_url, title, alt, caption, crop_x, crop_y,
              crop_scale, original_key
       FROM posts.media_items WHERE post_id = ANY($1) ORDER BY post_id, position`,
      [ids],
    )) as ExportMediaRow[];
    const paths = (await this.db.query(
      `SELECT path, post_id FROM posts.post_old_paths WHERE post_id = ANY($1) ORDER BY path`,
      [ids],
    )) as { path: string; post_id: number }[];
    return {
      lastId: posts.at(-1)!.id,
      posts: posts.map((p) => ({
        id: p.id,
        title: p.title,
        slug: p.slug,
        status: p.status,
        createdAt: new Date(p.created_at).toISOString(),
        updatedAt: new Date(p.updated_at).toISOString(),
        category: p.category,
        submenu1: p.submenu1,
        submenu2: p.submenu2,
        placeId: p.place_id,
        tags: p.tags,
        content: p.content,
        sourceId: p.source_id,
        oldPaths: paths.filter((o) => o.post_id === p.id).map((o) => o.path),
        media: media
          .filter((m) => m.post_id === p.id)
          .map((m) => ({
            id: m.id,
            position: m.position,
            type: m.type,
            name: m.name,
            mimeType: m.mime_type,
            youtubeUrl: m.youtube_url,
            title: m.title,
            alt: m.alt,
            caption: m.caption,
            crop:
              m.crop_x === null || m.crop_y === null || m.crop_scale === null
                ? null
                : { x: m.crop_x, y: m.crop_y, scale: m.crop_scale },
            originalKey: m.original_key,
          })),
      })),
    };
  }

  async findImported(sourceId: string, formerIds: string[] = []): Promise<ImportedPost | null> {
    const [row] = (await this.db.query(
      `SELECT id, source_id FROM posts.posts WHERE source_id = ANY($1)
       ORDER BY source_id = $2 DESC LIMIT 1`,
      [[sourceId, ...formerIds], sourceId],
    )) as { id: number; source_id: string }[];
    if (!row) return null;
    return { id: row.id, sourceId: row.source_id, media: await this.mediaOf(row.id) };
  }

  mediaOf(postId: number, manager: EntityManager = this.db.manager): Promise<MediaItem[]> {
    return manager.find(MediaItem, { where: { postId }, order: { position: 'ASC' } });
  }

  async saveContentHtml(manager: EntityManager, postId: number, contentHtml: string): Promise<void> {
    await manager.update(Post, { id: postId }, { contentHtml });
  }

  mediaOfPosts(postIds: number[], manager: EntityManager = this.db.manager): Promise<MediaItem[]> {
    return manager
      .getRepository(MediaItem)
      .find({ where: { postId: In(postIds) }, order: { postId: 'ASC', position: 'ASC' } });
  }

  visibleUrls(afterId: number, offset: number, limit: number): Promise<PostUrlRow[]> {
    return this.db.query(
      `SELECT id, slug, category, submenu1, submenu2, updated_at AS "updatedAt"
       FROM posts.posts p WHERE id > $1 AND ${VISIBILITY_SQL.visible} ORDER BY id OFFSET $2 LIMIT $3`,
      [afterId, offset, limit],
    );
  }

  async countVisible(): Promise<number> {
    const counted: { total: string }[] = await this.db.query(
      `SELECT count(*) AS total FROM posts.posts p WHERE ${VISIBILITY_SQL.visible}`,
    );
    return Number(counted[0]!.total);
  }

  async slugsStartingWith(manager: EntityManager, prefix: string): Promise<string[]> {
    const rows: { slug: string }[] = await manager.query(
      `SELECT slug FROM posts.posts WHERE slug LIKE $1 || '%'`,
      [prefix],
    );
    return rows.map((row) => row.slug);
  }

  async saveOrigin(manager: EntityManager, postId: number, origin: PostOrigin): Promise<void> {
    await manager.query(`UPDATE posts.posts SET source_id = $2 WHERE id = $1`, [postId, origin.sourceId]);
    await manager.query(`DELETE FROM posts.post_old_paths WHERE post_id = $1`, [postId]);
    if (origin.oldPaths.length)
      await manager.query(
        `INSERT INTO posts.post_old_paths (path, post_id) SELECT unnest($2::text[]), $1 ON CONFLICT (path) DO NOTHING`,
        [postId, origin.oldPaths],
      );
  }

  withoutTransaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return work(this.db.manager);
  }

  insertPost(manager: EntityManager, fields: Partial<Post>): Promise<Post> {
    // The caller decides: one statement, or its own transaction.
    return manager.save(manager.create(Post, fields), { transaction: false });
  }

  lockPost(manager: EntityManager, id: number): Promise<Post | null> {
    return manager.findOne(Post, { where: { id }, lock: { mode: 'pessimistic_write' } });
  }

  async updatePost(manager: EntityManager, post: Post, fields: Partial<Post>): Promise<void> {
    manager.merge(Post, post, fields);
    await manager.save(post);
  }

  saveMedia(manager: EntityManager, rows: MediaItem[]): Promise<MediaItem[]> {
    return manager.save(rows);
  }

  async deleteMedia(manager: EntityManager, ids: string[]): Promise<void> {
    await manager.delete(MediaItem, { id: In(ids) });
  }

  async deletePost(manager: EntityManager, id: number): Promise<boolean> {
    const deleted = await manager.delete(Post, { id });
    return Boolean(deleted.affected);
  }
}
