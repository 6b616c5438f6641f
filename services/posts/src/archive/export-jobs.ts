import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { EXPORT_KEEP_HOURS, exportArchiveKey, type ExportReport } from '@blog/contracts';
import { createJobQueue, RpcError, type Job, type JobQueue, type ObjectStorage } from '@blog/server-kit';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { PostsConfig } from '../config.js';
import { errorMessage } from '../import/import-job.js';
import { POSTS_CONFIG, STORAGE } from '../tokens.js';
import { ArchiveWriter } from './archive-writer.js';
import { ExportsRepository, type StoredExportReport } from './exports.repository.js';

/** Tries of one export: a crash or a failed write counts as one; the third ends it `failed`. */
const EXPORT_ATTEMPTS = 3;
const SAVE_EVERY_MS = 500;

const emptyReport = (): StoredExportReport => ({
  percent: 0,
  total: 0,
  posts: 0,
  files: 0,
  leftOut: 0,
  bytes: null,
});

/**
 * The blog's export as a job, like an import: started (answers its id and report), written
 * by whichever replica's queue takes it into private storage, its progress in its row, and
 * downloaded from storage by any gateway. Download links are used up here, in the database,
 * so a link works once across every replica.
 */
@Injectable()
export class ExportJobs implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(ExportJobs.name);
  private readonly queue: JobQueue<{ id: string }>;

  constructor(
    private readonly exports: ExportsRepository,
    @Inject(STORAGE) private readonly storage: ObjectStorage,
    @Inject(POSTS_CONFIG) config: PostsConfig,
    private readonly writer: ArchiveWriter,
  ) {
    this.queue = createJobQueue(
      { name: 'exports', attempts: EXPORT_ATTEMPTS, backoffMs: 2000, concurrency: 1, lockDurationMs: 15_000 },
      config,
    );
  }

  async onModuleInit(): Promise<void> {
    this.queue.process((job) => this.run(job));
    // Exports a stopped process left queued or running go on (the queue may have lost them).
    for (const id of await this.exports.openIds()) await this.queue.add(id, { id }).catch(() => undefined);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.queue.close();
  }

  async start(): Promise<ExportReport> {
    await this.forgetOld();
    const id = randomUUID();
    await this.exports.create(id, emptyReport());
    await this.queue
      .add(id, { id })
      .catch((error: Error) => this.logger.warn(`export ${id} not queued yet: ${error.message}`));
    return this.report(id);
  }

  async report(id: string): Promise<ExportReport> {
    if (!z.uuid().safeParse(id).success) throw RpcError.notFound('No such export');
    const record = await this.exports.find(id);
    if (!record) throw RpcError.notFound('No such export');
    return {
      id: record.id,
      state: record.state,
      ...emptyReport(),
      ...record.report,
      createdAt: record.createdAt.toISOString(),
      updatedAt: record.updatedAt.toISOString(),
    };
  }

  /**
   * Uses up a download link's id: true the first time, false after (on any replica, since the
   * row is the claim). Ids of expired links are forgotten: their tokens no longer verify.
   */
  claimLink(id: string, expiresAt: Date): Promise<boolean> {
    return this.exports.claimLink(id, expiresAt);
  }

  async run(job: Job<{ id: string }>): Promise<void> {
    const attempt = await this.exports.claimAttempt(job.data.id);
    if (attempt === null) return;
    const id = job.data.id;
    const report = emptyReport();
    if (attempt > EXPORT_ATTEMPTS) {
      await this.exports.save(id, 'failed', {
        ...report,
        reason: `The export stopped after ${EXPORT_ATTEMPTS} tries`,
      });
      return;
    }
    report.total = await this.exports.countPosts();
    // Progress is saved now and then, one write after the other; the last word waits for them.
    let saving = this.exports.save(id, 'running', report);
    let savedAt = Date.now();
    const stop = new AbortController();
    const archive = this.writer.archive(stop.signal, (written) => {
      Object.assign(report, written);
      report.percent = report.total ? Math.min(99, Math.floor((written.posts / report.total) * 100)) : 0;
      if (Date.now() - savedAt < SAVE_EVERY_MS) return;
      savedAt = Date.now();
      const progress = { ...report };
      saving = saving.then(() => this.exports.save(id, 'running', progress));
    });
    try {
      const { size } = await this.storage.put(exportArchiveKey(id), archive, {
        contentType: 'application/zip',
      });
      await saving;
      await this.exports.save(id, 'done', { ...report, percent: 100, bytes: size });
    } catch (error) {
      stop.abort();
      archive.destroy();
      await saving.catch(() => undefined);
      if (attempt < EXPORT_ATTEMPTS && job.attempt < EXPORT_ATTEMPTS) throw error; // the queue tries again
      const reason = `${errorMessage(error)} (try ${attempt} of ${EXPORT_ATTEMPTS})`;
      this.logger.warn(`export ${id} failed: ${reason}`);
      await this.exports.save(id, 'failed', { ...report, reason });
    }
  }

  /** Exports finished more than EXPORT_KEEP_HOURS ago go, with their archives. */
  private async forgetOld(): Promise<void> {
    const ids = await this.exports.deleteFinishedBefore(EXPORT_KEEP_HOURS);
    if (ids.length)
      await this.storage
        .deleteMany(ids.map(exportArchiveKey))
        .catch((error: Error) => this.logger.warn(`old export archives not removed: ${error.message}`));
  }
}
