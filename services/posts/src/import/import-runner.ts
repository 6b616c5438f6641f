import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import {
  IMPORT_MAX_ERRORS,
  importOptionsSchema,
  Patterns,
  RpcContracts,
  type ImportOptions,
  type ImportReport,
} from '@blog/contracts';
import {
  createJobQueue,
  ORIGINALS_PREFIX,
  outboundUserAgent,
  parseOrThrow,
  RpcError,
  type Job,
  type JobQueue,
  type ObjectStorage,
} from '@blog/server-kit';
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { z } from 'zod';
import { archiveEntries } from '../archive/archive-entries.js';
import { ArchiveRestore, type ArchiveRun } from '../archive/archive-restore.js';
import type { PostsConfig } from '../config.js';
import { SiteSettings } from '../site/site-settings.js';
import { POSTS_CONFIG, STORAGE } from '../tokens.js';
import { ghostEntries, indexGhost } from './ghost-reader.js';
import { attemptBudget, errorMessage, IMPORT_ATTEMPTS, ImportTimeout } from './import-job.js';
import { ImportLimitError } from './import-limits.js';
import { detectFormat } from './detect-format.js';
import { emptyReport, reportError, type ImportRow, type StoredReport } from './import-report.js';
import { ImportsRepository } from './imports.repository.js';
import { MediaFetcher } from './media-fetcher.js';
import { ImportedPostWriter } from './post-writer.js';
import { mapSourcePost } from './source-mapper.js';
import { ImportFileError, type SourceEntry } from './source-post.js';
import { scanWxr, wxrEntries } from './wxr-reader.js';

/** What one run of an import holds open: this blog's own export, read in place, and its time budget. */
interface RunContext {
  archive?: ArchiveRun;
  budget: ReturnType<typeof attemptBudget>;
}

const SAVE_EVERY_MS = 500;

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
export class ImportRunner implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(ImportRunner.name);
  private readonly queue: JobQueue<{ id: string }>;
  private readonly fetcher: MediaFetcher;
  private readonly budgetMs: number;
  static readonly ATTEMPTS = IMPORT_ATTEMPTS;

  constructor(
    private readonly imports: ImportsRepository,
    @Inject(STORAGE) private readonly storage: ObjectStorage,
    @Inject(POSTS_CONFIG) config: PostsConfig,
    private readonly settings: SiteSettings,
    private readonly writer: ImportedPostWriter,
    private readonly archives: ArchiveRestore,
  ) {
    this.queue = createJobQueue(
      // A replica that dies mid-import: another takes the job over within about 15 s.
      {
        name: 'imports',
        attempts: ImportRunner.ATTEMPTS,
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
    for (const id of await this.imports.openIds()) await this.queue.add(id, { id }).catch(() => undefined);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.queue.close();
  }

  async start(message: unknown): Promise<ImportReport> {
    const { fileKey, options: raw } = parseOrThrow(RpcContracts[Patterns.posts.importStart].request, message);
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
    await this.imports.create(id, { format, fileKey, options, report: emptyReport() });
    await this.queue
      .add(id, { id })
      .catch((error: Error) => this.logger.warn(`import ${id} not queued yet: ${error.message}`));
    return this.report(id);
  }

  async report(id: string): Promise<ImportReport> {
    if (!z.uuid().safeParse(id).success) throw RpcError.notFound('No such import');
    const row = await this.imports.find(id);
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
    await this.imports.save(row.id, state, reason ? { ...report, reason } : report);
  }

  async run(job: Job<{ id: string }>): Promise<void> {
    const row = await this.imports.find(job.data.id);
    if (!row || row.state === 'done' || row.state === 'failed') return;
    const report: StoredReport = { ...emptyReport(), ...row.report };
    const attempt = await this.imports.claimAttempt(row.id);
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
    const context: RunContext = { budget: attemptBudget(this.budgetMs) };
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
      if (context.archive) {
        await this.archives.restoreNotes(context.archive, row.id, report, () => context.budget.check());
        await this.archives.restorePeople(context.archive, report);
      }
      report.percent = 100;
      await this.save(row, 'done', report);
      context.archive?.opened.archive.close();
      await this.storage.delete(row.file_key).catch(() => undefined);
      await this.removeOrphans(row.id);
    } catch (error) {
      context.archive?.opened.archive.close();
      const fileError = error instanceof ImportFileError;
      if (!fileError && attempt < IMPORT_ATTEMPTS && job.attempt < ImportRunner.ATTEMPTS) {
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
      const kept = await this.imports.usedOriginals(keys);
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
      context.archive = await this.archives.begin(row.file_key, report);
      return archiveEntries(context.archive.opened.archive);
    }
    const index = await indexGhost(() => this.open(row.file_key, context.budget));
    report.total = index.total;
    return ghostEntries(await this.open(row.file_key, context.budget), index, row.options.sourceUrl);
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
        const post = this.archives.mapPost(entry.post, context.archive!);
        if (await this.writer.write(importId, post, report)) report.updated++;
        else report.imported++;
      } catch (error) {
        if (error instanceof ImportLimitError) throw error; // the file's limit, not this post's
        report.failed++;
        reportError(report, entry.post.title, errorMessage(error));
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
      const mapped = mapSourcePost(post, options, this.settings.current(), this.fetcher, (message) =>
        reportError(report, post.title, message),
      );
      const updated = await this.writer.write(importId, mapped, report);
      if (updated) report.updated++;
      else report.imported++;
      if (post.restricted && report.restricted.length < IMPORT_MAX_ERRORS)
        report.restricted.push({ item: post.title, reason: post.restricted });
    } catch (error) {
      report.failed++;
      reportError(report, post.title, errorMessage(error));
    }
  }
}
