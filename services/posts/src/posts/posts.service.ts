import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import {
  buildPostPath,
  escapeRegExp,
  findCategory,
  findEntry,
  findSubcategory,
  PostErrors,
  readOptionsFor,
  newsletterOf,
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
  type IdempotencyRequest,
  type IdempotentAnswer,
  type UploadedFile,
} from '@blog/contracts';
import { IdempotencyLedger, RpcError, type ObjectStorage } from '@blog/server-kit';
import { QueryFailedError, type EntityManager } from 'typeorm';
import { STORAGE } from '../tokens.js';
import { SiteSettings } from '../site/site-settings.js';
import { MediaItem } from './media-item.entity.js';
import { MediaPlanError, planMedia, type MediaPlan } from './media-plan.js';
import { Post } from './post.entity.js';
import { parsePostForm, parsePostInput, type ParsedPostForm, type PostInput } from './post-form.js';
import { toPostView } from './post-view.js';
import { visibilityOf } from './visibility.js';
import { ContentService } from '../content/content.service.js';
import { deleteFiles, keysOf } from '../media-items/media-keys.js';
import { mediaRowsOf, refsOf } from './media-rows.js';
import { PostsRepository, type PostFilter, type PostOrigin } from './posts.repository.js';
import { FederationEvents } from '../federation/federation-events.js';
import { NewsletterService } from '../newsletter/newsletter.service.js';

const UNIQUE_VIOLATION = '23505';
/** What the service's own answers to the admin's writes show: every item and status. */
const ADMIN_READ = readOptionsFor(true);
/** A single post carries both its texts. */
const BOTH_TEXTS = { includeHtml: true, includeSource: true };

@Injectable()
export class PostsService {
  private readonly logger = new Logger(PostsService.name);

  constructor(
    private readonly settings: SiteSettings,
    @Inject(STORAGE) private readonly storage: ObjectStorage,
    private readonly content: ContentService,
    private readonly ledger: IdempotencyLedger,
    private readonly stored: PostsRepository,
    /** What each write owes the blog's followers (absent in unit tests without a database). */
    @Optional() private readonly federation?: FederationEvents,
    /** What each write owes the each-post subscribers (absent likewise). */
    @Optional() private readonly newsletter?: NewsletterService,
  ) {}

  /** The current site configuration (changes from the dashboard apply without a restart). */
  private get site(): SiteConfig {
    return this.settings.current();
  }

  async list(query: PostListQuery, options: PostReadOptions = {}): Promise<PostListResult> {
    const filter = this.filterOf(query);
    if (!filter) return { items: [], total: 0 };
    const visibility = options.includeUnpublished ? query.status : 'visible';
    const search = query.search?.trim();
    if (search) {
      const found = await this.stored.search(filter, visibility, search, query);
      return { items: await this.viewsInOrder(found.ids, options), total: found.total };
    }
    const { posts, total } = await this.stored.page(filter, visibility, options, {
      offset: (query.page - 1) * query.limit,
      limit: query.limit,
    });
    return { items: await this.withMedia(posts, options), total };
  }

  async get(id: number, options: PostReadOptions = {}): Promise<PostView> {
    return this.visibleView(await this.stored.findOne({ id }, BOTH_TEXTS), options);
  }

  async getBySlug(slug: string, options: PostReadOptions = {}): Promise<PostView> {
    return this.visibleView(await this.stored.findOne({ slug: slug.toLowerCase() }, BOTH_TEXTS), options);
  }

  /**
   * A draft, or a post scheduled for later, does not exist for a visitor: scheduled by the
   * database's clock, read with the row (Post.datedByNow), as the lists filter.
   */
  private async visibleView(post: Post | null, options: PostReadOptions): Promise<PostView> {
    if (!post || (!options.includeUnpublished && visibilityOf(post) !== 'published'))
      throw RpcError.notFound(PostErrors.notFound);
    return (await this.withMedia([post], options))[0]!;
  }

  /** The sitemap's walk: keyset on the primary key, so every chunk is an index range scan. */
  async urls(query: Required<PostUrlsQuery>): Promise<PostUrlsResult> {
    const rows =
      query.limit === 0 ? [] : await this.stored.visibleUrls(query.afterId, query.offset, query.limit);
    const result: PostUrlsResult = {
      items: rows.map((row) => ({
        url: buildPostPath(this.site, row),
        updatedAt: new Date(row.updatedAt).toISOString(),
      })),
      lastId: rows.at(-1)?.id ?? null,
    };
    if (query.count) result.total = await this.stored.countVisible();
    return result;
  }

  async create(command: PostWriteCommand): Promise<IdempotentAnswer<PostView>> {
    return this.insert(parsePostForm(command.fields, this.site), command);
  }

  /**
   * An imported post, typed (no form fields), under the form's rules: created, or the post
   * `existingId` updated; `origin` is its identity in its source blog and its old paths.
   */
  saveImported(
    post: PostInput,
    files: UploadedFile[],
    origin: PostOrigin,
    existingId?: number,
  ): Promise<IdempotentAnswer<PostView>> {
    const parsed = parsePostInput(post, this.site);
    return existingId === undefined
      ? this.insert(parsed, { files }, origin)
      : this.change(parsed, { id: existingId, files }, origin);
  }

  private async insert(
    parsed: ParsedPostForm,
    command: Omit<PostWriteCommand, 'fields'>,
    origin?: PostOrigin,
  ): Promise<IdempotentAnswer<PostView>> {
    const plan = this.planMediaOrFail(parsed, command, []);
    const rows = mediaRowsOf(plan, parsed.form.cropSettings);
    const insert = async (manager: EntityManager) => {
      const saved = await this.stored.insertPost(manager, {
        ...this.postFields(parsed),
        // An import or a restore is never e-mailed; a new post takes the Site setting when unset.
        sendByEmail: origin ? false : (parsed.form.sendByEmail ?? newsletterOf(this.site).sendByDefault),
        ...this.content.render(parsed.form.content, rows, refsOf(plan, rows)),
        slug: await this.uniqueSlug(manager, origin?.slug || parsed.form.title),
        updatedAt: new Date(),
      });
      for (const row of rows) row.postId = saved.id;
      const media = rows.length ? await this.stored.saveMedia(manager, rows) : [];
      if (origin) await this.stored.saveOrigin(manager, saved.id, origin);
      // An import (and an archive's restore, which is one) is not new writing: followers hear nothing.
      else {
        await this.federation?.record(manager, saved.id, null);
        await this.newsletter?.record(manager, saved.id);
      }
      return toPostView(saved, media, this.site, true);
    };
    // A post without media and without a key is one INSERT (atomic by itself; the unique
    // index guards the slug); a published one writes its federation event in the same transaction.
    const published = parsed.form.status === 'published' && (!!this.federation || !!this.newsletter);
    return this.withSlugRetry(() =>
      plan.items.length || command.idempotency || origin || published
        ? this.ledger.write(command.idempotency, insert)
        : this.stored.withoutTransaction(insert).then((answer) => ({ answer, replayed: false })),
    );
  }

  async update(command: PostUpdateCommand): Promise<IdempotentAnswer<PostView>> {
    return this.change(parsePostForm(command.fields, this.site), command);
  }

  /** Keeps the slug (links stay valid); media the form no longer lists are deleted with their files. */
  private async change(
    parsed: ParsedPostForm,
    command: Omit<PostUpdateCommand, 'fields'>,
    origin?: PostOrigin,
  ): Promise<IdempotentAnswer<PostView>> {
    let removed: MediaItem[] = [];
    const result = await this.ledger.write(command.idempotency, async (manager) => {
      const post = await this.stored.lockPost(manager, command.id);
      if (!post) throw RpcError.notFound(PostErrors.notFound);
      // An import that updates a post it brought before is no edit of the author's either.
      const federated = origin ? undefined : await this.federation?.before(manager, post.id);
      const existing = await this.stored.mediaOf(post.id, manager);
      const plan = this.planMediaOrFail(parsed, command, existing);
      const rows = mediaRowsOf(plan, parsed.form.cropSettings);
      for (const row of rows) row.postId = post.id;
      await this.stored.updatePost(manager, post, {
        ...this.postFields(parsed),
        // Unset keeps the post's own choice (the Site default is for new posts only); an import never sets it.
        ...(!origin && parsed.form.sendByEmail !== undefined && { sendByEmail: parsed.form.sendByEmail }),
        ...this.content.render(parsed.form.content, rows, refsOf(plan, rows)),
        updatedAt: new Date(),
      });
      if (plan.removed.length)
        await this.stored.deleteMedia(
          manager,
          plan.removed.map((m) => m.id),
        );
      await this.stored.saveMedia(manager, rows);
      if (origin) await this.stored.saveOrigin(manager, post.id, origin);
      else {
        if (federated !== undefined) await this.federation?.record(manager, post.id, federated);
        await this.newsletter?.record(manager, post.id);
      }
      removed = plan.removed;
      return this.viewIn(manager, post.id);
    });
    // Only once the rows are gone for good: a rolled-back update keeps its files.
    await deleteFiles(this.storage, removed.flatMap(keysOf), this.logger);
    return result;
  }

  async delete(id: number, idempotency?: IdempotencyRequest): Promise<IdempotentAnswer<{ deleted: true }>> {
    let media: MediaItem[] = [];
    const result = await this.ledger.write(idempotency, async (manager) => {
      const items = await this.stored.mediaOf(id, manager);
      const federated = await this.federation?.before(manager, id);
      if (!(await this.stored.deletePost(manager, id))) throw RpcError.notFound(PostErrors.notFound);
      await this.federation?.record(manager, id, federated ?? null);
      media = items;
      return { deleted: true as const };
    });
    await deleteFiles(this.storage, media.flatMap(keysOf), this.logger);
    return result;
  }

  /** A post as the admin sees it, read through `manager` (inside a write's transaction). */
  async viewIn(manager: EntityManager, id: number): Promise<PostView> {
    const post = await this.stored.findOne({ id }, BOTH_TEXTS, manager);
    if (!post) throw RpcError.notFound(PostErrors.notFound);
    const [view] = await this.withMedia([post], ADMIN_READ, manager);
    return view!;
  }

  private planMediaOrFail(
    parsed: ParsedPostForm,
    command: Pick<PostWriteCommand, 'files'>,
    existing: MediaItem[],
  ): MediaPlan {
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
      status: form.status,
      category: placement.category,
      submenu1: placement.submenu1,
      submenu2: placement.submenu2,
      placeId: placement.placeId,
      tags,
      createdAt,
    };
  }

  /** From the title; never a tree segment (the URL would read as a listing); numbered on collision. */
  private async uniqueSlug(manager: EntityManager, title: string): Promise<string> {
    const base = slugify(title);
    const numbered = new RegExp(`^${escapeRegExp(base)}(-\\d+)?$`);
    const taken = new Set(
      (await this.stored.slugsStartingWith(manager, base)).filter((slug) => numbered.test(slug)),
    );
    if (!taken.has(base) && !this.settings.reservedSegments().has(base)) return base;
    for (let n = 2; ; n++) {
      const candidate = `${base}-${n}`;
      if (!taken.has(candidate) && !this.settings.reservedSegments().has(candidate)) return candidate;
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

  /**
   * The list's filters (placement as the tree's labels, tag, dates); null when the URL names a
   * place the tree does not have (nothing is listed). Who may see what is added by the caller.
   */
  private filterOf(query: PostListQuery): PostFilter | null {
    const filter: PostFilter = {};
    if (query.category) {
      const category = findCategory(this.site, query.category);
      if (!category) return null;
      filter.category = category.label;
      if (query.submenu1) {
        const sub = findSubcategory(category, query.submenu1);
        if (!sub) return null;
        filter.submenu1 = sub.label;
        if (query.submenu2) {
          const entry = findEntry(sub, query.submenu2);
          if (!entry) return null;
          filter.submenu2 = entry.label;
        }
      }
    }
    if (query.tag) filter.tag = query.tag.toLowerCase();
    if (query.from) filter.from = query.from;
    if (query.to) filter.to = endOfDay(query.to);
    return filter;
  }

  private async viewsInOrder(ids: number[], options: PostReadOptions): Promise<PostView[]> {
    if (ids.length === 0) return [];
    const posts = await this.stored.byIds(ids, options);
    const byId = new Map(posts.map((p) => [p.id, p]));
    return this.withMedia(
      ids.map((id) => byId.get(id)).filter((p): p is Post => !!p),
      options,
    );
  }

  private async withMedia(
    posts: Post[],
    options: PostReadOptions,
    manager?: EntityManager,
  ): Promise<PostView[]> {
    if (posts.length === 0) return [];
    const media = await this.stored.mediaOfPosts(
      posts.map((p) => p.id),
      manager,
    );
    const byPost = new Map<number, MediaItem[]>();
    // mediaOfPosts reads by post_id: each item here has its post.
    for (const item of media) {
      const list = byPost.get(item.postId!);
      if (list) list.push(item);
      else byPost.set(item.postId!, [item]);
    }
    return posts.map((post) =>
      toPostView(post, byPost.get(post.id) ?? [], this.site, options.includeAllMedia),
    );
  }
}

/** An end date without a time includes that whole day. */
function endOfDay(iso: string): Date {
  const date = new Date(iso);
  return /T00:00:00(\.000)?Z$/.test(iso) ? new Date(date.getTime() + 86_400_000) : date;
}
