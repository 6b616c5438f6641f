import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  escapeRegExp,
  findSiteNode,
  IMPORT_MAX_ERRORS,
  importOptionsSchema,
  MAX_FILE_BYTES,
  POST_CONTENT_MAX,
  siteNodes,
  UPLOADS_PREFIX,
  BANNER_FOLDER,
  type ArchivePost,
  type ImportFormat,
  type ImportOptions,
  type ImportReport,
  type SiteConfig,
  type SiteNodeInfo,
  type UploadedFile,
} from '@blog/contracts';
import {
  contentTypeForKey,
  createJobQueue,
  ORIGINALS_PREFIX,
  outboundUserAgent,
  parseOrThrow,
  RpcError,
  MediaFileRefused,
  storeMediaOriginal,
  type Job,
  type JobQueue,
  type ObjectStorage,
} from '@blog/server-kit';
import { createHash, randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { DataSource } from 'typeorm';
import { z } from 'zod';
import type { PostsConfig } from '../config.js';
import { MediaItem } from '../posts/media-item.entity.js';
import { PostsService } from '../posts/posts.service.js';
import { SiteSettings } from '../site/site-settings.js';
import { POSTS_CONFIG, STORAGE } from '../tokens.js';
import { BlogIdentity, madeByThisBlog } from './blog-identity.js';
import { ghostEntries, indexGhost } from './ghost-reader.js';
import { htmlToMarkdown } from './html-to-markdown.js';
import { MailClient, MediaClient } from './media-client.js';
import {
  archiveEntries,
  archiveSubscribers,
  shareArchiveFiles,
  openBlogArchive,
  type OpenedArchive,
} from '../archive/archive-entries.js';
import type { StoredArchive } from '../archive/archive-reader.js';
import { attemptBudget, claimAttempt, errorMessage, IMPORT_ATTEMPTS, ImportTimeout } from './import-job.js';
import { describeBytes, IMPORT_LIMITS, ImportLimitError } from './import-limits.js';
import { MediaFetcher } from './media-fetcher.js';
import { ImportFileError, type SourceEntry, type SourcePost } from './source-post.js';
import { scanWxr, wxrEntries } from './wxr-reader.js';

/** The report as stored: the public one plus where the work stands (for a resumed run). */
interface StoredReport extends Omit<ImportReport, 'id' | 'state' | 'format' | 'createdAt' | 'updatedAt'> {
  /** Items of the file already handled, in file order. */
  processed: number;
  postsDone: number;
}

interface ImportRow {
  id: string;
  state: ImportReport['state'];
  format: ImportFormat | null;
  file_key: string;
  options: ImportOptions;
  report: StoredReport;
  created_at: Date;
  updated_at: Date;
}

/** A picture, video or YouTube video to bring with a post; `fetch` stores a file at the key it is given. */
interface MediaToBring {
  ref: string;
  kind: 'image' | 'video' | 'youtube';
  url: string;
  /** What makes the file this file in its source (its URL, its path in the archive). */
  identity: string;
  alt?: string;
  caption?: string;
  title?: string;
  fetch?: (key: (ext: string) => string) => Promise<UploadedFile>;
}

/** What one run of an import holds open: this blog's own export, read in place. */
interface RunContext {
  archive?: OpenedArchive;
  /**
   * Each archive entry read during this run: the original it was stored as (or why it was
   * refused). A later post naming the entry gets a copy of that original, not a second read.
   */
  storedEntries: Map<string, Promise<UploadedFile>>;
  budget: ReturnType<typeof attemptBudget>;
}

interface PostToWrite {
  sourceId: string;
  /** Identities an earlier importer gave it (see SourcePost.formerSourceIds). */
  formerSourceIds?: string[];
  title: string;
  slug: string;
  content: string;
  status: 'draft' | 'published';
  date: Date | null;
  leaf: SiteNodeInfo;
  tags: string[];
  oldPaths: string[];
  crop?: { x: number; y: number; scale: number };
  media: MediaToBring[];
}

const startSchema = z.object({
  fileKey: z.string().startsWith('private/imports/'),
  options: z.unknown().optional(),
});
const SAVE_EVERY_MS = 500;
/** A zip's local file header: this blog's own export. */
const ZIP_MAGIC = Buffer.from([0x50, 0x4b, 0x03, 0x04]);

const emptyReport = (): StoredReport => ({
  percent: 0,
  total: 0,
  imported: 0,
  updated: 0,
  skipped: 0,
  failed: 0,
  media: { downloaded: 0, failed: 0 },
  errors: [],
  skippedBy: {},
  redirects: 0,
  restricted: [],
  processed: 0,
  postsDone: 0,
});

/** Reads the file's first bytes: a WordPress export (XML with the WXR namespace), a Ghost export (JSON) or this blog's own (zip). */
export function detectFormat(head: Buffer): ImportFormat | null {
  const text = head
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart();
  if (text.startsWith('<') && /wordpress\.org\/export\//.test(text)) return 'wxr';
  if (text.startsWith('{')) return 'ghost';
  if (head.subarray(0, 4).equals(ZIP_MAGIC)) return 'blog';
  return null;
}

/**
 * Imports a WordPress (WXR) or Ghost export in the background. The file waits in storage;
 * the job queue runs the import (BullMQ on Redis, in-process otherwise) and retries it when
 * the process dies; the database is the truth: each post is written in one transaction with
 * its media and old paths, and the report records how many items of the file are done, so a
 * resumed run skips them, and a post met again (same source id) is updated, not doubled.
 * Media files are stored under keys made from the post's source id and the file's URL, so
 * a second try writes the same keys and leaves no orphan.
 */
@Injectable()
export class ImportService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(ImportService.name);
  private readonly queue: JobQueue<{ id: string }>;
  private readonly fetcher: MediaFetcher;
  private readonly budgetMs: number;
  static readonly ATTEMPTS = IMPORT_ATTEMPTS;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(STORAGE) private readonly storage: ObjectStorage,
    @Inject(POSTS_CONFIG) config: PostsConfig,
    private readonly posts: PostsService,
    private readonly settings: SiteSettings,
    private readonly media: MediaClient,
    private readonly mail: MailClient,
    private readonly identity: BlogIdentity,
  ) {
    this.queue = createJobQueue(
      // A replica that dies mid-import: another takes the job over within about 15 s.
      {
        name: 'imports',
        attempts: ImportService.ATTEMPTS,
        backoffMs: 2000,
        concurrency: 1,
        lockDurationMs: 15_000,
      },
      config,
    );
    this.budgetMs = config.IMPORT_BUDGET_MS;
    this.fetcher = new MediaFetcher(
      storage,
      { timeoutMs: config.IMPORT_MEDIA_TIMEOUT_MS, tries: 3, concurrency: 4 },
      {
        allow: config.OUTBOUND_ALLOW,
        userAgent: () => outboundUserAgent(this.settings.current().title, config.SITE_URL),
      },
    );
  }

  async onModuleInit(): Promise<void> {
    this.queue.process((job) => this.run(job));
    // Imports a stopped process left queued or running go on (the queue may have lost them).
    const open = (await this.db.query(
      `SELECT id FROM posts.imports WHERE state IN ('queued', 'running')`,
    )) as { id: string }[];
    for (const { id } of open) await this.queue.add(id, { id }).catch(() => undefined);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.queue.close();
  }

  async start(message: unknown): Promise<ImportReport> {
    const { fileKey, options: raw } = parseOrThrow(startSchema, message);
    const options = parseOrThrow(importOptionsSchema, raw ?? {});
    const head = await this.head(fileKey);
    const format = detectFormat(head);
    if (!format) {
      await this.storage.delete(fileKey).catch(() => undefined);
      throw RpcError.badRequest(
        'The file is neither a WordPress export (WXR), a Ghost export (JSON) nor an export of this blog (zip)',
      );
    }
    const id = randomUUID();
    await this.db.query(
      `INSERT INTO posts.imports (id, state, format, file_key, options, report) VALUES ($1, 'queued', $2, $3, $4, $5)`,
      [id, format, fileKey, JSON.stringify(options), JSON.stringify(emptyReport())],
    );
    await this.queue
      .add(id, { id })
      .catch((error: Error) => this.logger.warn(`import ${id} not queued yet: ${error.message}`));
    return this.report(id);
  }

  async report(id: string): Promise<ImportReport> {
    if (!z.uuid().safeParse(id).success) throw RpcError.notFound('No such import');
    const [row] = (await this.db.query(`SELECT * FROM posts.imports WHERE id = $1`, [id])) as ImportRow[];
    if (!row) throw RpcError.notFound('No such import');
    const { processed: _processed, postsDone: _done, ...report } = { ...emptyReport(), ...row.report };
    return {
      id: row.id,
      state: row.state,
      format: row.format,
      ...report,
      createdAt: new Date(row.created_at).toISOString(),
      updatedAt: new Date(row.updated_at).toISOString(),
    };
  }

  private async head(key: string): Promise<Buffer> {
    const object = await this.storage.get(key);
    if (!object) throw RpcError.badRequest('The uploaded file is missing');
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of object.body) {
      chunks.push(chunk as Buffer);
      size += (chunk as Buffer).length;
      if (size >= 4096) break;
    }
    (object.body as Readable).destroy?.();
    return Buffer.concat(chunks);
  }

  /** The stored file as a stream, ended with ImportTimeout when the attempt's budget is spent. */
  private async open(key: string, budget?: RunContext['budget']): Promise<Readable> {
    const object = await this.storage.get(key);
    if (!object) throw new ImportFileError('The uploaded file is gone');
    const body = object.body as Readable;
    if (budget) {
      const stop = () => body.destroy(new ImportTimeout(this.budgetMs));
      budget.signal.addEventListener('abort', stop, { once: true });
      body.once('close', () => budget.signal.removeEventListener('abort', stop));
    }
    return body;
  }

  private async save(row: ImportRow, state: ImportReport['state'], report: StoredReport, reason?: string) {
    await this.db.query(
      `UPDATE posts.imports SET state = $2, report = $3, updated_at = now() WHERE id = $1`,
      [row.id, state, JSON.stringify(reason ? { ...report, reason } : report)],
    );
  }

  async run(job: Job<{ id: string }>): Promise<void> {
    const [row] = (await this.db.query(`SELECT * FROM posts.imports WHERE id = $1`, [
      job.data.id,
    ])) as ImportRow[];
    if (!row || row.state === 'done' || row.state === 'failed') return;
    const report: StoredReport = { ...emptyReport(), ...row.report };
    const attempt = await claimAttempt(this.db, row.id);
    if (attempt === null) return;
    if (attempt > IMPORT_ATTEMPTS) {
      // The earlier tries crashed their process (or a replica's) or ran out of time: no more.
      await this.giveUp(
        row,
        report,
        `The import stopped after ${IMPORT_ATTEMPTS} tries that crashed or ran past the time budget`,
      );
      return;
    }
    await this.save(row, 'running', report);
    const context: RunContext = { storedEntries: new Map(), budget: attemptBudget(this.budgetMs) };
    try {
      const entries = await this.entries(row, report, context);
      let index = 0;
      let savedAt = Date.now();
      for await (const entry of entries) {
        context.budget.check();
        if (index++ < report.processed) continue; // done before a restart
        await this.importEntry(row.id, entry, row.options, report, context);
        report.processed = index;
        report.percent = report.total ? Math.min(99, Math.floor((report.postsDone / report.total) * 100)) : 0;
        if (Date.now() - savedAt > SAVE_EVERY_MS) {
          await this.save(row, 'running', report);
          savedAt = Date.now();
        }
      }
      context.budget.check();
      if (context.archive) await this.restorePeople(context.archive, report);
      report.percent = 100;
      await this.save(row, 'done', report);
      context.archive?.archive.close();
      await this.storage.delete(row.file_key).catch(() => undefined);
      await this.removeOrphans(row.id);
    } catch (error) {
      context.archive?.archive.close();
      const fileError = error instanceof ImportFileError;
      if (!fileError && attempt < IMPORT_ATTEMPTS && job.attempt < ImportService.ATTEMPTS) {
        await this.save(row, 'running', report);
        throw error; // the queue tries again; the next run resumes after `processed`
      }
      const message = errorMessage(error);
      await this.giveUp(
        row,
        report,
        fileError ? message : `${message} (try ${attempt} of ${IMPORT_ATTEMPTS})`,
      );
    }
  }

  /** The import ends `failed` with its reason; its file and the files of posts never written go. */
  private async giveUp(row: ImportRow, report: StoredReport, reason: string): Promise<void> {
    this.logger.warn(`import ${row.id} failed: ${reason}`);
    await this.save(row, 'failed', report, reason);
    await this.storage.delete(row.file_key).catch(() => undefined);
    await this.removeOrphans(row.id);
  }

  /**
   * Files this import stored for a post that was never written (the process died between the
   * two, and the item then failed for good): its keys carry the import's id.
   */
  private async removeOrphans(importId: string): Promise<void> {
    try {
      const keys = (await this.storage.list(`${ORIGINALS_PREFIX}/import/`)).filter((key) =>
        key.includes(`.${importId}.`),
      );
      if (!keys.length) return;
      const used = (await this.db.query(
        `SELECT original_key FROM posts.media_items WHERE original_key = ANY($1)`,
        [keys],
      )) as {
        original_key: string;
      }[];
      const kept = new Set(used.map((row) => row.original_key));
      await this.storage.deleteMany(keys.filter((key) => !kept.has(key)));
    } catch (error) {
      this.logger.warn(`import ${importId}: leftover files not removed: ${(error as Error).message}`);
    }
  }

  private async entries(
    row: ImportRow,
    report: StoredReport,
    context: RunContext,
  ): Promise<AsyncIterable<SourceEntry> | Iterable<SourceEntry>> {
    if (row.format === 'wxr') {
      const scan = await scanWxr(await this.open(row.file_key, context.budget));
      report.total = scan.total;
      return wxrEntries(await this.open(row.file_key, context.budget), scan.attachments);
    }
    if (row.format === 'blog') {
      const opened = await openBlogArchive(this.storage, row.file_key);
      context.archive = opened;
      report.total = opened.total;
      // The settings first (once), so the posts find their places; a tree the blog's own posts
      // would not fit in is refused and said, and the posts then go where their labels lead.
      if (report.processed === 0) {
        try {
          await this.restoreBanner(opened.archive, opened.site);
          await this.settings.update(opened.site, []);
        } catch (error) {
          this.error(report, 'site settings', `not restored: ${errorMessage(error)}`);
        }
      }
      return archiveEntries(opened.archive);
    }
    const index = await indexGhost(() => this.open(row.file_key, context.budget));
    report.total = index.total;
    return ghostEntries(await this.open(row.file_key, context.budget), index, row.options.sourceUrl);
  }

  /** The uploaded banner's files, back where the settings point (`site/<key>` in the archive). */
  private async restoreBanner(archive: StoredArchive, site: SiteConfig): Promise<void> {
    const named = JSON.stringify(site);
    const banner = new RegExp(`^site/(${escapeRegExp(BANNER_FOLDER)}[0-9a-f-]{36}/[A-Za-z0-9._-]{1,100})$`);
    let files = 0;
    for (const name of archive.names()) {
      const key = banner.exec(name)?.[1];
      // Only the folder the settings name (the banner and its variants), a few files, each at
      // most what an upload may be.
      if (!key || !named.includes(key.slice(0, key.lastIndexOf('/') + 1))) continue;
      if (++files > IMPORT_LIMITS.bannerFiles)
        throw new ImportFileError(`more than ${IMPORT_LIMITS.bannerFiles} banner files`);
      if (await this.storage.stat(key)) continue;
      await this.storage.put(key, await archive.open(name, MAX_FILE_BYTES), {
        contentType: contentTypeForKey(key),
        maxBytes: MAX_FILE_BYTES,
      });
    }
  }

  /**
   * After the posts of a blog archive: its subscribers back (no e-mail sent), confirmed only
   * when the archive is this blog's own (they confirmed to this blog, not to another); its
   * accounts are not.
   */
  private async restorePeople(opened: OpenedArchive, report: StoredReport): Promise<void> {
    const madeHere = madeByThisBlog(opened.blog, await this.identity.current());
    let unconfirmed = 0;
    for await (const batch of archiveSubscribers(opened.archive, 500)) {
      try {
        unconfirmed += (await this.mail.restoreSubscribers(batch, madeHere)).unconfirmed;
      } catch (error) {
        this.error(report, 'subscribers', `not restored: ${errorMessage(error)}`);
        break;
      }
    }
    if (unconfirmed)
      this.error(
        report,
        'subscribers',
        `${unconfirmed} confirmed subscriber(s) restored as unconfirmed: the archive was made by another blog, so they get no digest until they subscribe here and confirm`,
      );
    if (opened.users)
      this.error(
        report,
        'users',
        `${opened.users} account(s) not restored: an export holds no passwords (register them again)`,
      );
  }

  private async importEntry(
    importId: string,
    entry: SourceEntry,
    options: ImportOptions,
    report: StoredReport,
    context: RunContext,
  ): Promise<void> {
    if (entry.kind === 'skipped') {
      report.skipped++;
      report.skippedBy[entry.reason] = (report.skippedBy[entry.reason] ?? 0) + 1;
      return;
    }
    report.postsDone++;
    if (entry.kind === 'archive') {
      try {
        if (await this.restorePost(importId, entry.post, context, report)) report.updated++;
        else report.imported++;
      } catch (error) {
        if (error instanceof ImportLimitError) throw error; // the file's limit, not this post's
        report.failed++;
        this.error(report, entry.post.title, errorMessage(error));
      }
      return;
    }
    const { post } = entry;
    // A restricted post comes in (as a draft) whatever `drafts` says: the report names it.
    if (post.status === 'draft' && !post.restricted && options.drafts === 'skip') {
      report.skipped++;
      report.skippedBy.draft = (report.skippedBy.draft ?? 0) + 1;
      return;
    }
    try {
      const updated = await this.importPost(importId, post, options, report);
      if (updated) report.updated++;
      else report.imported++;
      if (post.restricted && report.restricted.length < IMPORT_MAX_ERRORS)
        report.restricted.push({ item: post.title, reason: post.restricted });
    } catch (error) {
      report.failed++;
      this.error(report, post.title, errorMessage(error));
    }
  }

  private error(report: StoredReport, item: string, message: string) {
    if (report.errors.length < IMPORT_MAX_ERRORS) report.errors.push({ item, message });
  }

  /** One post with its media, in one transaction; answers whether it existed already. */
  /** A WordPress or Ghost post: its HTML converted, its place from the category map, its media fetched. */
  private async importPost(
    importId: string,
    post: SourcePost,
    options: ImportOptions,
    report: StoredReport,
  ): Promise<boolean> {
    const { leaf, unmapped } = this.placeOf(this.settings.current(), post, options);
    // Refused before the conversion, which would hold the event loop on a huge text.
    if (post.html.length > IMPORT_LIMITS.postHtml)
      throw new Error(
        `its HTML is larger than ${describeBytes(IMPORT_LIMITS.postHtml)} (a post holds at most ${POST_CONTENT_MAX.toLocaleString('en-US')} characters)`,
      );
    const converted = htmlToMarkdown(post.html, { baseUrl: options.sourceUrl || undefined });
    if (converted.droppedShortcodes.length)
      this.error(
        report,
        post.title,
        `shortcodes dropped: ${converted.droppedShortcodes.map((s) => `[${s}]`).join(', ')}`,
      );
    // The featured image is the main image (first); the text's media follow in their order.
    const wanted = [
      ...(post.featuredImage
        ? [
            {
              ref: 'featured',
              kind: 'image' as const,
              url: post.featuredImage.url,
              alt: post.featuredImage.alt,
              caption: post.featuredImage.caption,
            },
          ]
        : []),
      ...converted.media,
    ];
    let content = converted.markdown;
    // The same file twice (the featured image also in the text): one item, both refs to it.
    const seen = new Map<string, string>();
    const media: MediaToBring[] = [];
    for (const item of wanted) {
      const again = item.kind === 'youtube' ? undefined : seen.get(item.url);
      if (again) {
        content = content.replaceAll(`(media:${item.ref})`, `(media:${again})`);
        continue;
      }
      seen.set(item.url, item.ref);
      media.push({
        ...item,
        identity: item.url,
        fetch: item.kind === 'youtube' ? undefined : (key) => this.fetcher.fetch(item.url, key),
      });
    }
    return this.writePost(
      importId,
      {
        sourceId: post.sourceId,
        formerSourceIds: post.formerSourceIds,
        title: post.title,
        slug: post.slug,
        content,
        status: post.status,
        date: post.date,
        leaf,
        tags: [...new Set([...post.tags, ...unmapped])],
        oldPaths: post.oldPaths,
        media,
      },
      report,
    );
  }

  /** A post of this blog's own export: its Markdown as it was, its files from the archive. */
  private async restorePost(
    importId: string,
    archived: ArchivePost,
    context: RunContext,
    report: StoredReport,
  ): Promise<boolean> {
    const post = shareArchiveFiles(archived);
    const nodes = siteNodes(this.settings.current());
    const byLabels = findSiteNode(
      nodes,
      [post.category, post.submenu1, post.submenu2].filter(Boolean).join(' / '),
    );
    const byId = post.placeId ? nodes.find((n) => n.id === post.placeId) : undefined;
    const leaf =
      [byId, byLabels].find((n) => n?.leaf) ??
      this.placeOf(
        this.settings.current(),
        { categories: [], tags: [] },
        { categoryMap: {}, sourceUrl: '', drafts: 'import' },
      ).leaf;
    const main = post.media.find((m) => m.type === 'image');
    return this.writePost(
      importId,
      {
        sourceId: post.sourceId ?? `blog:${post.id}`,
        title: post.title,
        slug: post.slug,
        // The text's `media:ID` references are the items' ids in the exported blog: each item
        // carries that id as its ref, so they point at the new items once saved.
        content: post.content,
        status: post.status,
        date: new Date(post.createdAt),
        leaf,
        tags: post.tags,
        oldPaths: post.oldPaths,
        crop: main?.crop ?? undefined,
        media: post.media.map((item) => ({
          ref: item.id,
          kind: item.type,
          url: item.youtubeUrl ?? '',
          identity: item.file ?? item.youtubeUrl ?? item.id,
          alt: item.alt ?? undefined,
          caption: item.caption ?? undefined,
          title: item.title ?? undefined,
          fetch: item.file
            ? (key) => this.storeEntry(context, item.file!, item.name ?? 'file', key)
            : undefined,
        })),
      },
      report,
    );
  }

  /**
   * An archive entry stored as a post's original at `key`: read from the zip the first time
   * the import meets it, copied inside the store from that first original afterwards, so an
   * entry is read (and counted against the archive's budget) once however many posts name it.
   * An entry refused for what it holds is refused again without a read; when the first
   * original is gone (its post failed), the entry is read again.
   */
  private async storeEntry(
    context: RunContext,
    entry: string,
    name: string,
    key: (ext: string) => string,
  ): Promise<UploadedFile> {
    const first = context.storedEntries.get(entry);
    if (first) {
      const stored = await first;
      const copyKey = key(stored.key.slice(stored.key.lastIndexOf('.') + 1));
      if (await this.storage.copy(stored.key, copyKey)) return { ...stored, key: copyKey, name };
    }
    const reading = context
      .archive!.archive.open(entry, MAX_FILE_BYTES)
      .then((stream) => storeMediaOriginal(this.storage, stream, { name, key }));
    context.storedEntries.set(entry, reading);
    // Only a refusal of the bytes themselves is remembered (a lost connection may do better next time).
    reading.catch((error: unknown) => {
      if (!(error instanceof MediaFileRefused || error instanceof ImportFileError))
        context.storedEntries.delete(entry);
    });
    return reading;
  }

  /**
   * One post with its media in one transaction (PostsService, the same rules as the form),
   * matched by its source id: created, or updated when an earlier import brought it. Files
   * are stored first under keys made of the source id, the file's identity and this import's
   * id; a file an earlier import stored is used again, not fetched again. Answers whether
   * the post existed.
   */
  private async writePost(importId: string, post: PostToWrite, report: StoredReport): Promise<boolean> {
    // What the form would refuse is refused before any file is fetched or read.
    if (post.media.length > IMPORT_LIMITS.postMedia)
      throw new Error(`${post.media.length} media: a post holds at most ${IMPORT_LIMITS.postMedia}`);
    // A post found under a former identity (an earlier importer's) is this one: it is updated
    // and takes the new identity, so posts imported before the change are not doubled; rows
    // cannot be renamed by a migration, which would need the export's site and post ids.
    const [existing] = (await this.db.query(
      `SELECT id, source_id FROM posts.posts WHERE source_id = ANY($1)
       ORDER BY source_id = $2 DESC LIMIT 1`,
      [[post.sourceId, ...(post.formerSourceIds ?? [])], post.sourceId],
    )) as { id: number; source_id: string }[];
    const items = existing ? await this.db.getRepository(MediaItem).findBy({ postId: existing.id }) : [];
    let content = post.content;
    // Together (the fetcher allows 4 downloads at once over the import).
    const outcomes = await Promise.allSettled(
      post.media.map(async (media) => {
        if (!media.fetch) return {};
        const keyOf = (sourceId: string) =>
          `${ORIGINALS_PREFIX}/import/${createHash('sha256').update(`${sourceId}\n${media.identity}`).digest('hex').slice(0, 32)}`;
        const keyBase = keyOf(post.sourceId);
        // Files stored under the identity the post had until now are its files too.
        const bases = [keyBase, ...(existing ? [keyOf(existing.source_id)] : [])];
        const known = items.find((item) => bases.some((base) => item.originalKey?.startsWith(`${base}.`)));
        if (known) return { known };
        return { file: await media.fetch((ext) => `${keyBase}.${importId}.${ext}`) };
      }),
    );
    // The archive's budget is the file's: the import stops (its stored files go with it).
    const overBudget = outcomes.find((o) => o.status === 'rejected' && o.reason instanceof ImportLimitError);
    if (overBudget) throw (overBudget as PromiseRejectedResult).reason;
    const files: UploadedFile[] = [];
    const unified: Record<string, unknown>[] = [];
    outcomes.forEach((outcome, i) => {
      const media = post.media[i]!;
      if (outcome.status === 'rejected') {
        report.media.failed++;
        this.error(report, post.title, `${media.identity}: ${errorMessage(outcome.reason)}`);
        content = content.replace(
          new RegExp(`!\\[[^\\]]*\\]\\(media:${escapeRegExp(media.ref)}\\)`, 'g'),
          '',
        );
        return;
      }
      const { known, file } = outcome.value as { known?: MediaItem; file?: UploadedFile };
      const details = {
        ref: media.ref,
        alt: media.alt?.slice(0, 300),
        caption: media.caption?.slice(0, 500),
        ...(media.title ? { title: media.title } : {}),
        order: unified.length,
      };
      if (media.kind === 'youtube') unified.push({ type: 'youtube', url: media.url, ...details });
      else if (known)
        unified.push({ type: known.type, path: `${UPLOADS_PREFIX}${known.originalKey}`, ...details });
      else {
        unified.push({ type: file!.type, fileIndex: files.length, isNew: true, ...details });
        files.push(file!);
        report.media.downloaded++;
      }
    });
    const fields: Record<string, string> = {
      title: post.title,
      content,
      category: post.leaf.labels[0]!,
      submenu1: post.leaf.labels[1]!,
      ...(post.leaf.labels[2] ? { submenu2: post.leaf.labels[2] } : {}),
      tags: post.tags.join(', '),
      status: post.status,
      ...(post.date ? { date: post.date.toISOString() } : {}),
      ...(post.crop ? { cropSettings: JSON.stringify(post.crop) } : {}),
      unifiedMedia: JSON.stringify(unified),
    };
    const origin = { sourceId: post.sourceId, oldPaths: post.oldPaths, slug: post.slug };
    try {
      const { answer } = existing
        ? await this.posts.update({ id: existing.id, fields, files }, origin)
        : await this.posts.create({ fields, files }, origin);
      report.redirects += post.oldPaths.length;
      const ids = answer.media.filter((m) => m.type !== 'youtube' && m.status === 'pending').map((m) => m.id);
      if (ids.length) this.media.enqueue(ids);
    } catch (error) {
      await this.storage.deleteMany(files.map((f) => f.key)).catch(() => undefined);
      throw error;
    }
    return Boolean(existing);
  }

  /** The leaf the post goes to: its first mapped category, else More (its categories kept as tags). */
  private placeOf(
    site: SiteConfig,
    post: Pick<SourcePost, 'categories' | 'tags'>,
    options: ImportOptions,
  ): { leaf: SiteNodeInfo; unmapped: string[] } {
    const nodes = siteNodes(site);
    const leafUnder = (node: SiteNodeInfo): SiteNodeInfo | undefined => {
      if (node.leaf) return node;
      const children = nodes.filter((n) => n.parentId === node.id);
      const general = children.find((n) => n.labels.at(-1)!.toLowerCase() === 'general');
      for (const child of general ? [general, ...children] : children) {
        const found = leafUnder(child);
        if (found) return found;
      }
      return undefined;
    };
    const unmapped: string[] = [];
    let leaf: SiteNodeInfo | undefined;
    for (const category of post.categories) {
      const target = options.categoryMap[category.slug] ?? options.categoryMap[category.name];
      const node = target ? findSiteNode(nodes, target) : undefined;
      const found = node ? leafUnder(node) : undefined;
      if (found) leaf ??= found;
      else if (category.name && !post.tags.includes(category.name)) unmapped.push(category.name);
    }
    if (!leaf) {
      const more =
        nodes.find((n) => n.parentId === null && n.labels[0]!.toLowerCase() === 'more') ??
        nodes.filter((n) => n.parentId === null).at(-1)!;
      leaf = leafUnder(more)!;
    }
    // Ghost's tags are both its tags and its categories: a mapped one is not repeated as a tag.
    return { leaf, unmapped };
  }
}
