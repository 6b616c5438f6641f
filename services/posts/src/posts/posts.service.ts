import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  buildPostPath,
  findCategory,
  findEntry,
  findSubcategory,
  PostErrors,
  reservedSegments,
  slugify,
  type PostListQuery,
  type PostListResult,
  type PostUrlsQuery,
  type PostUrlsResult,
  type PostReadOptions,
  type PostUpdateCommand,
  type PostView,
  type PostWriteCommand,
  type SiteConfig,
  type MediaResult,
  type MediaRun,
  type MediaRunStarted,
  type PendingMediaItem,
  type PendingMediaQuery,
} from '@blog/contracts';
import { RpcError, type ObjectStorage } from '@blog/server-kit';
import { randomUUID } from 'node:crypto';
import { DataSource, In, QueryFailedError, type EntityManager, type SelectQueryBuilder } from 'typeorm';
import { SITE_CONFIG, STORAGE } from '../tokens.js';
import { MediaItem } from './media-item.entity.js';
import { MediaPlanError, planMedia, type MediaPlan } from './media-plan.js';
import { Post } from './post.entity.js';
import { parsePostForm, type ParsedPostForm } from './post-form.js';
import { toPostView } from './post-view.js';
import { toPrefixTsquery, toTypoWords } from './search-query.js';

const UNIQUE_VIOLATION = '23505';
/** Relevance ranks at most this many of the newest matches, so a common word stays fast. */
const SEARCH_CANDIDATES = 1000;
/** Trigram similarity from which a known word counts as what a typo meant: "helmte" and "helmet" score 0.4. */
const TYPO_SIMILARITY = 0.4;

/** Every storage key an item owns: the upload and what processing derived from it. */
export function keysOf(item: MediaItem): string[] {
  return [
    ...new Set(
      [
        item.originalKey,
        item.storageKey,
        item.thumbnailKey,
        item.croppedPreviewKey,
        ...(item.variants ?? []).map((v) => v.key),
      ].filter((k): k is string => !!k),
    ),
  ];
}

/** The crop the worker renders the preview from (images with crop settings). */
function cropOf(item: MediaItem): { x: number; y: number; scale: number } | null {
  return item.cropScale !== null && item.cropScale !== undefined
    ? { x: item.cropX ?? 0, y: item.cropY ?? 0, scale: item.cropScale }
    : null;
}

/** The files processing derived from the original (what a newer result replaces). */
function derivedKeysOf(item: MediaItem): string[] {
  return keysOf(item).filter((key) => key !== item.originalKey);
}

@Injectable()
export class PostsService {
  private readonly logger = new Logger(PostsService.name);
  private readonly reserved: Set<string>;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(SITE_CONFIG) private readonly site: SiteConfig,
    @Inject(STORAGE) private readonly storage: ObjectStorage,
  ) {
    this.reserved = reservedSegments(site);
  }

  async list(query: PostListQuery, options: PostReadOptions = {}): Promise<PostListResult> {
    const filtered = this.filteredQuery(query);
    if (!filtered) return { items: [], total: 0 };
    const search = query.search?.trim();
    if (search) return this.search(filtered, search, query, options);
    const total = await filtered.clone().getCount();
    const posts = await filtered
      .orderBy('p.created_at', 'DESC')
      .addOrderBy('p.id', 'DESC')
      .offset((query.page - 1) * query.limit)
      .limit(query.limit)
      .getMany();
    return { items: await this.views(posts, options), total };
  }

  async get(id: number, options: PostReadOptions = {}): Promise<PostView> {
    const post = await this.db.getRepository(Post).findOneBy({ id });
    if (!post) throw RpcError.notFound(PostErrors.notFound);
    return (await this.views([post], options))[0]!;
  }

  async getBySlug(slug: string, options: PostReadOptions = {}): Promise<PostView> {
    const post = await this.db.getRepository(Post).findOneBy({ slug: slug.toLowerCase() });
    if (!post) throw RpcError.notFound(PostErrors.notFound);
    return (await this.views([post], options))[0]!;
  }

  /** The sitemap's walk: keyset on the primary key, so every chunk is an index range scan. */
  async urls(query: Required<PostUrlsQuery>): Promise<PostUrlsResult> {
    const rows: Pick<Post, 'id' | 'slug' | 'category' | 'submenu1' | 'submenu2' | 'updatedAt'>[] =
      query.limit === 0
        ? []
        : await this.db.query(
            `SELECT id, slug, category, submenu1, submenu2, updated_at AS "updatedAt"
             FROM posts.posts WHERE id > $1 ORDER BY id OFFSET $2 LIMIT $3`,
            [query.afterId, query.offset, query.limit],
          );
    const result: PostUrlsResult = {
      items: rows.map((row) => ({
        url: buildPostPath(this.site, row),
        updatedAt: new Date(row.updatedAt).toISOString(),
      })),
      lastId: rows.at(-1)?.id ?? null,
    };
    if (query.count) {
      const counted: { total: string }[] = await this.db.query(`SELECT count(*) AS total FROM posts.posts`);
      result.total = Number(counted[0]!.total);
    }
    return result;
  }

  async create(command: PostWriteCommand): Promise<PostView> {
    const parsed = parsePostForm(command.fields, this.site);
    const plan = this.plan(parsed, command, []);
    const insert = async (manager: EntityManager) => {
      const saved = await manager.save(
        manager.create(Post, {
          ...this.postFields(parsed),
          slug: await this.uniqueSlug(manager, parsed.form.title),
          updatedAt: new Date(),
        }),
        { transaction: false }, // the caller decides: one statement, or our own transaction
      );
      const rows = this.mediaRows(saved.id, plan, parsed);
      return { post: saved, media: rows.length ? await manager.save(rows) : [] };
    };
    // A post without media is one INSERT (atomic by itself; the unique index guards the slug).
    const { post, media } = await this.withSlugRetry(() =>
      plan.items.length ? this.db.transaction(insert) : insert(this.db.manager),
    );
    return toPostView(post, media, this.site, true);
  }

  /** Keeps the slug (links stay valid); media the form no longer lists are deleted with their files. */
  async update(command: PostUpdateCommand): Promise<PostView> {
    const parsed = parsePostForm(command.fields, this.site);
    const removed = await this.db.transaction(async (manager) => {
      const post = await manager.findOne(Post, {
        where: { id: command.id },
        lock: { mode: 'pessimistic_write' },
      });
      if (!post) throw RpcError.notFound(PostErrors.notFound);
      const existing = await manager.findBy(MediaItem, { postId: post.id });
      const plan = this.plan(parsed, command, existing);
      manager.merge(Post, post, { ...this.postFields(parsed), updatedAt: new Date() });
      await manager.save(post);
      if (plan.removed.length) await manager.delete(MediaItem, { id: In(plan.removed.map((m) => m.id)) });
      await manager.save(this.mediaRows(post.id, plan, parsed));
      return plan.removed;
    });
    await this.deleteFiles(removed.flatMap(keysOf));
    return this.get(command.id, { includeAllMedia: true });
  }

  async delete(id: number): Promise<{ deleted: true }> {
    const media = await this.db.transaction(async (manager) => {
      const items = await manager.findBy(MediaItem, { postId: id });
      const result = await manager.delete(Post, { id });
      if (!result.affected) throw RpcError.notFound(PostErrors.notFound);
      return items;
    });
    await this.deleteFiles(media.flatMap(keysOf));
    return { deleted: true };
  }

  /** Which of `keys` some post still references (the gateway asks before cleaning up after a timeout). */
  async referencedKeys(keys: string[]): Promise<string[]> {
    if (keys.length === 0) return [];
    const rows = await this.db.getRepository(MediaItem).find({
      where: [
        { originalKey: In(keys) },
        { storageKey: In(keys) },
        { thumbnailKey: In(keys) },
        { croppedPreviewKey: In(keys) },
      ],
    });
    const referenced = new Set(rows.flatMap(keysOf));
    return keys.filter((key) => referenced.has(key));
  }

  /** Uploaded files still waiting for the media worker: by id, or pending for longer than N seconds. */
  async pendingMedia(query: PendingMediaQuery): Promise<PendingMediaItem[]> {
    const qb = this.db
      .getRepository(MediaItem)
      .createQueryBuilder('m')
      .where(`(m.status = 'pending' OR m.reprocess)`)
      .andWhere('m.original_key IS NOT NULL')
      .andWhere(`m.type IN ('image', 'video')`)
      .orderBy('m.status_changed_at', 'ASC')
      .limit(query.limit ?? 500);
    if (query.ids) {
      if (query.ids.length === 0) return [];
      qb.andWhere('m.id IN (:...ids)', { ids: query.ids });
    }
    if (query.olderThanSeconds !== undefined)
      qb.andWhere(`m.status_changed_at <= now() - make_interval(secs => :seconds)`, {
        seconds: query.olderThanSeconds,
      });
    const items = await qb.getMany();
    return items.map((m) => ({
      id: m.id,
      type: m.type as 'image' | 'video',
      originalKey: m.originalKey!,
      mimeType: m.mimeType,
      crop: cropOf(m),
    }));
  }

  /** Counts a processing run that begins; null when the item no longer waits for one. */
  async startMediaRun(run: MediaRun): Promise<MediaRunStarted> {
    // An UPDATE answers [rows, count] through DataSource.query.
    const [rows] = (await this.db.query(
      `UPDATE posts.media_items SET processing_attempts = processing_attempts + 1
        WHERE id = $1 AND original_key = $2 AND (status = 'pending' OR reprocess)
        RETURNING processing_attempts AS attempts, error`,
      [run.id, run.originalKey],
    )) as [{ attempts: number; error: string | null }[], number];
    const row = rows[0];
    return row ? { attempts: row.attempts, lastError: row.error } : null;
  }

  /** Keeps a failed run's reason on the still waiting item: the run that gives up reports it. */
  async failMediaRun(run: MediaRun): Promise<void> {
    await this.db.query(
      `UPDATE posts.media_items SET error = $3
        WHERE id = $1 AND original_key = $2 AND (status = 'pending' OR reprocess)`,
      [run.id, run.originalKey, run.error ?? null],
    );
  }

  /**
   * Swaps the worker's result into the item. Applied only while the item still exists with
   * the same original; the same result twice changes nothing. Files of an older result that
   * the new one no longer uses are deleted.
   */
  async applyMediaResult(result: MediaResult): Promise<{ applied: boolean }> {
    const replaced = await this.db.transaction(async (manager) => {
      const item = await manager.findOne(MediaItem, {
        where: { id: result.id },
        lock: { mode: 'pessimistic_write' },
      });
      if (!item || item.originalKey !== result.originalKey) return null;
      // Re-cropped since the job started: the job for the new crop brings the right result.
      if (JSON.stringify(cropOf(item)) !== JSON.stringify(result.crop)) return null;
      const before = derivedKeysOf(item);
      if (result.status === 'ready') {
        Object.assign(item, {
          status: 'ready',
          storageKey: result.storageKey,
          thumbnailKey: result.thumbnailKey,
          croppedPreviewKey: result.croppedPreviewKey,
          width: result.width,
          height: result.height,
          durationSeconds: result.durationSeconds,
          variants: result.variants,
          error: null,
        });
      } else {
        Object.assign(item, {
          status: 'failed',
          storageKey: null,
          thumbnailKey: null,
          croppedPreviewKey: null,
          variants: [],
          error: result.error,
        });
      }
      item.statusChangedAt = new Date();
      item.reprocess = false;
      // Ended: a later re-crop or an admin's retry starts counting runs afresh.
      item.processingAttempts = 0;
      await manager.save(item);
      const now = new Set(keysOf(item));
      return before.filter((key) => !now.has(key));
    });
    if (replaced === null) return { applied: false };
    await this.deleteFiles(replaced);
    return { applied: true };
  }

  /**
   * Puts a failed upload back to pending (admin Retry); the caller queues it. The original is
   * kept while an item exists, so the worker starts again from the owner's file.
   */
  async retryMedia(postId: number, itemId: string): Promise<PostView> {
    await this.db.transaction(async (manager) => {
      const item = await manager.findOne(MediaItem, {
        where: { id: itemId, postId },
        lock: { mode: 'pessimistic_write' },
      });
      if (!item || !item.originalKey) throw RpcError.notFound(PostErrors.mediaNotFound);
      if (item.status !== 'failed') throw RpcError.conflict(PostErrors.mediaNotFailed);
      // A retry gets MEDIA_JOB_ATTEMPTS runs of its own.
      Object.assign(item, {
        status: 'pending',
        error: null,
        statusChangedAt: new Date(),
        processingAttempts: 0,
      });
      await manager.save(item);
    });
    return this.get(postId, { includeAllMedia: true });
  }

  private plan(parsed: ParsedPostForm, command: PostWriteCommand, existing: MediaItem[]): MediaPlan {
    try {
      return planMedia(parsed.form, command.files, existing);
    } catch (error) {
      if (error instanceof MediaPlanError) throw RpcError.badRequest(error.message);
      throw error;
    }
  }

  private postFields({ form, placement, tags, createdAt }: ParsedPostForm) {
    return {
      title: form.title,
      content: form.content,
      category: placement.category,
      submenu1: placement.submenu1,
      submenu2: placement.submenu2,
      tags,
      createdAt,
    };
  }

  /** Rows for the planned list: positions from 0, crop settings on the main image. */
  private mediaRows(postId: number, plan: MediaPlan, { form }: ParsedPostForm): MediaItem[] {
    return plan.items.map((planned, position) => {
      const row = new MediaItem();
      if (planned.kind === 'existing') {
        Object.assign(row, planned.item);
        if (planned.title) row.title = planned.title;
      } else if (planned.kind === 'file') {
        Object.assign(row, {
          id: randomUUID(),
          type: planned.file.type,
          // The media worker makes what is served; until then only admins see the item.
          status: 'pending',
          originalKey: planned.file.key,
          storageKey: null,
          variants: [],
          statusChangedAt: new Date(),
          name: planned.file.name,
          mimeType: planned.file.mimeType,
          sizeBytes: String(planned.file.size),
        });
      } else {
        Object.assign(row, {
          id: randomUUID(),
          type: 'youtube',
          status: 'ready',
          youtubeUrl: planned.video.url,
          youtubeId: planned.video.videoId,
          isShorts: planned.video.isShorts,
          title: planned.title?.trim() || null,
        });
      }
      row.postId = postId;
      row.position = position;
      if (position === plan.mainImageAt && form.cropSettings) {
        row.cropX = form.cropSettings.x;
        row.cropY = form.cropSettings.y;
        row.cropScale = form.cropSettings.scale;
      }
      // A processed image whose crop changed is rendered again; it stays served meanwhile.
      if (
        planned.kind === 'existing' &&
        row.originalKey &&
        row.status !== 'pending' &&
        JSON.stringify(cropOf(row)) !== JSON.stringify(cropOf(planned.item))
      ) {
        row.reprocess = true;
        row.statusChangedAt = new Date();
        row.processingAttempts = 0;
      }
      return row;
    });
  }

  /** From the title; never a tree segment (the URL would read as a listing); numbered on collision. */
  private async uniqueSlug(manager: EntityManager, title: string): Promise<string> {
    const base = slugify(title);
    // Slugs hold only [a-z0-9-], so the prefix needs no LIKE escaping.
    const rows: { slug: string }[] = await manager.query(
      `SELECT slug FROM posts.posts WHERE slug LIKE $1 || '%'`,
      [base],
    );
    const numbered = new RegExp(`^${base}(-\\d+)?$`);
    const taken = new Set(rows.map((r) => r.slug).filter((slug) => numbered.test(slug)));
    if (!taken.has(base) && !this.reserved.has(base)) return base;
    for (let n = 2; ; n++) {
      const candidate = `${base}-${n}`;
      if (!taken.has(candidate) && !this.reserved.has(candidate)) return candidate;
    }
  }

  /** Two posts with the same title at the same moment: the loser of the unique index tries again. */
  private async withSlugRetry<T>(work: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await work();
      } catch (error) {
        const code =
          error instanceof QueryFailedError ? (error.driverError as { code?: string }).code : undefined;
        if (code !== UNIQUE_VIOLATION || attempt >= 5) throw error;
      }
    }
  }

  private filteredQuery(query: PostListQuery): SelectQueryBuilder<Post> | null {
    const qb = this.db.getRepository(Post).createQueryBuilder('p');
    if (query.category) {
      const category = findCategory(this.site, query.category);
      if (!category) return null;
      qb.andWhere('p.category = :category', { category: category.label });
      if (query.submenu1) {
        const sub = findSubcategory(category, query.submenu1);
        if (!sub) return null;
        qb.andWhere('p.submenu1 = :submenu1', { submenu1: sub.label });
        if (query.submenu2) {
          const entry = findEntry(sub, query.submenu2);
          if (!entry) return null;
          qb.andWhere('p.submenu2 = :submenu2', { submenu2: entry.label });
        }
      }
    }
    if (query.tag) qb.andWhere('p.tags_lower @> ARRAY[:tag]::text[]', { tag: query.tag.toLowerCase() });
    if (query.from) qb.andWhere('p.created_at >= :from', { from: query.from });
    if (query.to) qb.andWhere('p.created_at < :to', { to: endOfDay(query.to) });
    return qb;
  }

  /**
   * Full text (weighted, stemmed, accents ignored, last word as prefix), ranked by relevance
   * then recency; when that finds nothing, the typo fallback (typoCandidates). The cost is
   * bounded for common words: relevance ranks the newest SEARCH_CANDIDATES matches, and the
   * total counts at most that many (more matches than that report SEARCH_CANDIDATES).
   */
  private async search(
    filtered: SelectQueryBuilder<Post>,
    text: string,
    query: PostListQuery,
    options: PostReadOptions,
  ): Promise<PostListResult> {
    const tsquery = toPrefixTsquery(text);
    if (tsquery) {
      const [sql, params] = filtered
        .clone()
        .andWhere(`p.search @@ to_tsquery('english', posts.f_unaccent(:tsquery))`, { tsquery })
        .select(['p.id AS id', 'p.created_at AS created_at', 'p.search AS search'])
        .orderBy('p.created_at', 'DESC')
        .limit(SEARCH_CANDIDATES)
        .getQueryAndParameters();
      const page = await this.rankedPage(
        sql,
        params,
        `ts_rank_cd(c.search, to_tsquery('english', posts.f_unaccent($tsquery)))`,
        { tsquery },
        query,
      );
      if (page.total > 0) return { items: await this.viewsInOrder(page.ids, options), total: page.total };
    }
    const words = toTypoWords(text);
    if (words.length === 0) return { items: [], total: 0 };
    const [sql, params] = this.typoCandidates(filtered, words);
    const page = await this.rankedPage(sql, params, 'c.score', {}, query);
    return { items: await this.viewsInOrder(page.ids, options), total: page.total };
  }

  /**
   * The typo fallback's candidates: the newest SEARCH_CANDIDATES posts whose title or tags
   * hold, for every typed word that resembles a known word, that word or one close to it
   * (trigram similarity at least TYPO_SIMILARITY, so "aquarim" finds "aquarium"). `score` adds
   * up how close each post's words are. Typed words like nothing on the blog are left out.
   * Known words come from search_words and their posts from post_words (see the
   * TypoSearchWords migration), so without filters the posts table is not read at all.
   */
  private typoCandidates(filtered: SelectQueryBuilder<Post>, words: string[]): [string, unknown[]] {
    const hasFilters = filtered.expressionMap.wheres.length > 0;
    const [filteredSql, params] = filtered.clone().select('p.id').getQueryAndParameters();
    params.push(words);
    const typed = `$${params.length}`;
    // One typed word: the newest candidates are among the newest of each of its fixes, read
    // from the end of the index. Several must all match, so older posts may count: no cut.
    const perWordLimit = words.length === 1 ? `LIMIT ${SEARCH_CANDIDATES}` : '';
    return [
      `WITH typed AS (
         SELECT n, posts.f_unaccent(word) AS word FROM unnest(${typed}::text[]) WITH ORDINALITY AS t (word, n)
       ), fixes AS (
         SELECT t.n, v.word, posts.similarity(t.word, v.word) AS similarity
         FROM typed t JOIN posts.search_words v ON t.word % v.word
         WHERE posts.similarity(t.word, v.word) >= ${TYPO_SIMILARITY}
       ), per_word AS (
         SELECT w.post_id, w.created_at, f.n, max(f.similarity) AS similarity
         FROM fixes f CROSS JOIN LATERAL (
           SELECT post_id, created_at FROM posts.post_words
           WHERE word = f.word ORDER BY created_at DESC ${perWordLimit}
         ) w
         GROUP BY w.post_id, w.created_at, f.n
       )
       SELECT post_id AS id, created_at, sum(similarity) AS score FROM per_word
       WHERE ${hasFilters ? `post_id IN (${filteredSql})` : 'true'}
       GROUP BY post_id, created_at
       HAVING count(*) = (SELECT count(DISTINCT n) FROM fixes)
       ORDER BY created_at DESC
       LIMIT ${SEARCH_CANDIDATES}`,
      params,
    ];
  }

  /**
   * Orders the candidates (`sql`: rows of id and created_at, the newest SEARCH_CANDIDATES
   * matches) by `rank` (highest first, then newest) and returns one page of ids with the number
   * of candidates as the total, in one query.
   */
  private async rankedPage(
    sql: string,
    candidateParams: unknown[],
    rank: string,
    rankParams: Record<string, string>,
    query: PostListQuery,
  ): Promise<{ ids: number[]; total: number }> {
    const params = [...candidateParams];
    let rankSql = rank;
    for (const [name, value] of Object.entries(rankParams)) {
      params.push(value);
      rankSql = rankSql.replace(`$${name}`, `$${params.length}`);
    }
    params.push(query.limit, (query.page - 1) * query.limit);
    const rows: { id: number; total: string }[] = await this.db.query(
      `SELECT c.id, count(*) OVER () AS total FROM (${sql}) c
       ORDER BY ${rankSql} DESC, c.created_at DESC, c.id DESC
       LIMIT $${params.length - 1} OFFSET $${params.length}`,
      params,
    );
    if (rows.length > 0) return { ids: rows.map((r) => r.id), total: Number(rows[0]!.total) };
    if (query.page === 1) return { ids: [], total: 0 };
    // A page past the end: count the candidates on their own.
    const counted: { total: string }[] = await this.db.query(
      `SELECT count(*) AS total FROM (${sql}) c`,
      candidateParams,
    );
    return { ids: [], total: Number(counted[0]?.total ?? 0) };
  }

  private async viewsInOrder(ids: number[], options: PostReadOptions): Promise<PostView[]> {
    if (ids.length === 0) return [];
    const posts = await this.db.getRepository(Post).findBy({ id: In(ids) });
    const byId = new Map(posts.map((p) => [p.id, p]));
    return this.views(
      ids.map((id) => byId.get(id)).filter((p): p is Post => !!p),
      options,
    );
  }

  private async views(posts: Post[], options: PostReadOptions): Promise<PostView[]> {
    if (posts.length === 0) return [];
    const media = await this.db
      .getRepository(MediaItem)
      .find({ where: { postId: In(posts.map((p) => p.id)) }, order: { postId: 'ASC', position: 'ASC' } });
    const byPost = new Map<number, MediaItem[]>();
    for (const item of media) {
      const list = byPost.get(item.postId);
      if (list) list.push(item);
      else byPost.set(item.postId, [item]);
    }
    return posts.map((post) =>
      toPostView(post, byPost.get(post.id) ?? [], this.site, options.includeAllMedia),
    );
  }

  /** After the database changed: a file that fails to go is logged, never fatal (the post is already right). */
  private async deleteFiles(keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    try {
      await this.storage.deleteMany(keys);
    } catch (error) {
      this.logger.warn(`could not delete ${keys.length} files: ${(error as Error).message}`);
    }
  }
}

/** An end date without a time includes that whole day. */
function endOfDay(iso: string): Date {
  const date = new Date(iso);
  return /T00:00:00(\.000)?Z$/.test(iso) ? new Date(date.getTime() + 86_400_000) : date;
}
