import { randomUUID } from 'node:crypto';
import { QueryFailedError, type EntityManager } from 'typeorm';
import { MediaItem } from '../../src/posts/media-item.entity.js';
import { Post } from '../../src/posts/post.entity.js';
import {
  PostsRepository,
  type ExportBatch,
  type ImportedPost,
  type PostTexts,
  type PostUrlRow,
} from '../../src/posts/posts.repository.js';
import type { SearchPage } from '../../src/search/post-search.repository.js';

/** What PostgreSQL's column defaults give a media row the code leaves unset. */
const MEDIA_DEFAULTS: Partial<MediaItem> = {
  storageKey: null,
  name: null,
  mimeType: null,
  sizeBytes: null,
  youtubeUrl: null,
  youtubeId: null,
  isShorts: false,
  title: null,
  alt: null,
  caption: null,
  cropX: null,
  cropY: null,
  cropScale: null,
  croppedPreviewKey: null,
  thumbnailKey: null,
  width: null,
  height: null,
  error: null,
  originalKey: null,
  variants: [],
  durationSeconds: null,
  reprocess: false,
  processingAttempts: 0,
};

/** The posts' unique slug index, as PostgreSQL refuses a second one. */
function uniqueViolation(): QueryFailedError {
  return new QueryFailedError(
    'INSERT INTO posts',
    [],
    Object.assign(new Error('duplicate slug'), { code: '23505' }),
  );
}

/**
 * The posts and their media in memory, for fast tests of PostsService's write rules (slugs,
 * media kept or removed, a post's files going with it). `transaction` stands in for
 * IdempotencyLedger.write: a change that throws leaves the rows as they were. Lists, search,
 * the sitemap, the export and imports' identities are SQL worth testing only on PostgreSQL
 * (the gateway's HTTP tests): they are not kept here.
 */
export class InMemoryPostsRepository extends PostsRepository {
  posts = new Map<number, Post>();
  media = new Map<string, MediaItem>();
  private nextId = 1;

  async transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    const before = { posts: structuredClone(this.posts), media: structuredClone(this.media) };
    try {
      return await work(undefined as never);
    } catch (error) {
      Object.assign(this, before);
      throw error;
    }
  }

  withoutTransaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return work(undefined as never);
  }

  /** A copy, as each read from the database is its own object. */
  private read<T extends object>(row: T | undefined, type: new () => T): T | null {
    return row ? Object.assign(new type(), structuredClone(row)) : null;
  }

  async findOne(where: { id: number } | { slug: string }, _texts: PostTexts): Promise<Post | null> {
    const post =
      'id' in where ? this.posts.get(where.id) : [...this.posts.values()].find((p) => p.slug === where.slug);
    return this.read(post, Post);
  }

  async byIds(ids: number[]): Promise<Post[]> {
    return ids.flatMap((id) => this.read(this.posts.get(id), Post) ?? []);
  }

  async lockPost(_manager: EntityManager, id: number): Promise<Post | null> {
    return this.read(this.posts.get(id), Post);
  }

  async insertPost(_manager: EntityManager, fields: Partial<Post>): Promise<Post> {
    if ([...this.posts.values()].some((post) => post.slug === fields.slug)) throw uniqueViolation();
    const post = Object.assign(new Post(), { excerpt: '', readingMinutes: 0, ...fields, id: this.nextId++ });
    this.posts.set(post.id, structuredClone(post));
    return post;
  }

  async updatePost(_manager: EntityManager, post: Post, fields: Partial<Post>): Promise<void> {
    this.posts.set(post.id, structuredClone(Object.assign(post, fields)));
  }

  async saveContentHtml(_manager: EntityManager, postId: number, contentHtml: string): Promise<void> {
    const post = this.posts.get(postId);
    if (post) post.contentHtml = contentHtml;
  }

  async deletePost(_manager: EntityManager, id: number): Promise<boolean> {
    for (const item of this.media.values()) if (item.postId === id) this.media.delete(item.id);
    return this.posts.delete(id);
  }

  async slugsStartingWith(_manager: EntityManager, prefix: string): Promise<string[]> {
    return [...this.posts.values()].map((post) => post.slug).filter((slug) => slug.startsWith(prefix));
  }

  async mediaOf(postId: number): Promise<MediaItem[]> {
    return this.mediaOfPosts([postId]);
  }

  async mediaOfPosts(postIds: number[]): Promise<MediaItem[]> {
    return [...this.media.values()]
      .filter((item) => postIds.includes(item.postId))
      .sort((a, b) => postIds.indexOf(a.postId) - postIds.indexOf(b.postId) || a.position - b.position)
      .map((item) => this.read(item, MediaItem)!);
  }

  async saveMedia(_manager: EntityManager, rows: MediaItem[]): Promise<MediaItem[]> {
    return rows.map((row) => {
      const stored = Object.assign(new MediaItem(), MEDIA_DEFAULTS, this.media.get(row.id), row, {
        id: row.id ?? randomUUID(),
      });
      this.media.set(stored.id, structuredClone(stored));
      return stored;
    });
  }

  async deleteMedia(_manager: EntityManager, ids: string[]): Promise<void> {
    for (const id of ids) this.media.delete(id);
  }

  page(): Promise<{ posts: Post[]; total: number }> {
    return notKept('page');
  }

  search(): Promise<SearchPage> {
    return notKept('search');
  }

  visibleUrls(): Promise<PostUrlRow[]> {
    return notKept('visibleUrls');
  }

  countVisible(): Promise<number> {
    return notKept('countVisible');
  }

  exportPage(): Promise<ExportBatch> {
    return notKept('exportPage');
  }

  findImported(): Promise<ImportedPost | null> {
    return notKept('findImported');
  }

  saveOrigin(): Promise<void> {
    return notKept('saveOrigin');
  }
}

function notKept(method: string): Promise<never> {
  return Promise.reject(new Error(`InMemoryPostsRepository.${method}: tested on PostgreSQL only`));
}
