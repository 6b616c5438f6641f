import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { EXPORT_KEEP_HOURS, exportArchiveKey, type ExportReport, type ExportState } from '@blog/contracts';
import { createJobQueue, RpcError, type Job, type JobQueue, type ObjectStorage } from '@blog/server-kit';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { z } from 'zod';
import type { PostsConfig } from '../config.js';
import { errorMessage } from '../import/import-job.js';
import { POSTS_CONFIG, STORAGE } from '../tokens.js';
import { ArchiveWriter } from './archive-writer.js';

type StoredReport = Omit<ExportReport, 'id' | 'state' | 'createdAt' | 'updatedAt'>;

interface ExportRow {
  id: string;
  state: ExportState;
  report: StoredReport;
  created_at: Date;
  updated_at: Date;
}

/** Tries of one export: a crash or a failed write counts as one; the third ends it `failed`. */
const EXPORT_ATTEMPTS = 3;
const SAVE_EVERY_MS = 500;

const emptyReport = (): StoredReport => ({
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
    @InjectDataSource() private readonly db: DataSource,
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
    const open = (await this.db.query(
      `SELECT id FROM posts.exports WHERE state IN ('queued', 'running')`,
    )) as { id: string }[];
    for (const { id } of open) await this.queue.add(id, { id }).catch(() => undefined);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.queue.close();
  }

  async start(): Promise<ExportReport> {
    await this.forgetOld();
    const id = randomUUID();
    await this.db.query(`INSERT INTO posts.exports (id, state, report) VALUES ($1, 'queued', $2)`, [
      id,
      JSON.stringify(emptyReport()),
    ]);
    await this.queue
      .add(id, { id })
      .catch((error: Error) => this.logger.warn(`export ${id} not queued yet: ${error.message}`));
    return this.report(id);
  }

  async report(id: string): Promise<ExportReport> {
    if (!z.uuid().safeParse(id).success) throw RpcError.notFound('No such export');
    const [row] = (await this.db.query(`SELECT * FROM posts.exports WHERE id = $1`, [id])) as ExportRow[];
    if (!row) throw RpcError.notFound('No such export');
    return {
      id: row.id,
      state: row.state,
      ...emptyReport(),
      ...row.report,
      createdAt: new Date(row.created_at).toISOString(),
      updatedAt: new Date(row.updated_at).toISOString(),
    };
  }

  /**
   * Uses up a download link's id: true the first time, false after (on any replica, since the
   * row is the claim). Ids of expired links are forgotten: their tokens no longer verify.
   */
  async claimLink(id: string, expiresAt: Date): Promise<boolean> {
    await this.db.query(`DELETE FROM posts.used_export_links WHERE expires_at < now()`);
    const claimed = (await this.db.query(
      `INSERT INTO posts.used_export_links (id, expires_at) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING RETURNING id`,
      [id, expiresAt],
    )) as unknown[];
    return claimed.length === 1;
  }

  async run(job: Job<{ id: string }>): Promise<void> {
    const rows = (await this.db.query(
      `UPDATE posts.exports SET attempts = attempts + 1, state = 'running', updated_at = now()
       WHERE id = $1 AND state IN ('queued', 'running') RETURNING attempts`,
      [job.data.id],
    )) as [{ attempts: number }[], number];
    const attempt = rows[0]?.[0]?.attempts;
    if (attempt === undefined) return;
    const id = job.data.id;
    const report = emptyReport();
    if (attempt > EXPORT_ATTEMPTS) {
      await this.save(id, 'failed', {
        ...report,
        reason: `The export stopped after ${EXPORT_ATTEMPTS} tries`,
      });
      return;
    }
    [{ total: report.total }] = (await this.db.query(`SELECT count(*)::int AS total FROM posts.posts`)) as {
      total: number;
    }[];
    // Progress is saved now and then, one write after the other; the last word waits for them.
    let saving = this.save(id, 'running', report);
    let savedAt = Date.now();
    const stop = new AbortController();
    const archive = this.writer.archive(stop.signal, (written) => {
      Object.assign(report, written);
      report.percent = report.total ? Math.min(99, Math.floor((written.posts / report.total) * 100)) : 0;
      if (Date.now() - savedAt < SAVE_EVERY_MS) return;
      savedAt = Date.now();
      const progress = { ...report };
      saving = saving.then(() => this.save(id, 'running', progress));
    });
    try {
      const { size } = await this.storage.put(exportArchiveKey(id), archive, {
        contentType: 'application/zip',
      });
      await saving;
      await this.save(id, 'done', { ...report, percent: 100, bytes: size });
    } catch (error) {
      stop.abort();
      archive.destroy();
      await saving.catch(() => undefined);
      if (attempt < EXPORT_ATTEMPTS && job.attempt < EXPORT_ATTEMPTS) throw error; // the queue tries again
      const reason = `${errorMessage(error)} (try ${attempt} of ${EXPORT_ATTEMPTS})`;
      this.logger.warn(`export ${id} failed: ${reason}`);
      await this.save(id, 'failed', { ...report, reason });
    }
  }

  private async save(id: string, state: ExportState, report: StoredReport): Promise<void> {
    await this.db.query(
      `UPDATE posts.exports SET state = $2, report = $3, updated_at = now()
       WHERE id = $1 AND state NOT IN ('done', 'failed')`,
      [id, state, JSON.stringify(report)],
    );
  }

  /** Exports finished more than EXPORT_KEEP_HOURS ago go, with their archives. */
  private async forgetOld(): Promise<void> {
    const old = (await this.db.query(
      `DELETE FROM posts.exports WHERE state IN ('done', 'failed')
       AND updated_at < now() - make_interval(hours => $1) RETURNING id`,
      [EXPORT_KEEP_HOURS],
    )) as [{ id: string }[], number];
    const ids = (old[0] ?? []).map((row) => row.id);
    if (ids.length)
      await this.storage
        .deleteMany(ids.map(exportArchiveKey))
        .catch((error: Error) => this.logger.warn(`old export archives not removed: ${error.message}`));
  }
}
