import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { ImportFormat, ImportOptions, ImportReport } from '@blog/contracts';
import { DataSource } from 'typeorm';
import { VISIBILITY_SQL } from '../posts/visibility.js';
import type { ImportRow, StoredReport } from './import-report.js';

/** Where a post sits: what its public path is built from. */
export interface PostPlace {
  slug: string;
  category: string;
  submenu1: string;
  submenu2: string | null;
}

/** posts.imports: the import jobs, their options, reports and tries. */
export abstract class ImportsRepository {
  abstract create(
    id: string,
    job: { format: ImportFormat; fileKey: string; options: ImportOptions; report: StoredReport },
  ): Promise<void>;
  abstract find(id: string): Promise<ImportRow | null>;
  /** Ids of the imports still queued or running. */
  abstract openIds(): Promise<string[]>;
  /**
   * Counts a try before any work, so a try that kills its process (blocks the event loop, runs
   * out of memory) is still counted when a restart resumes it. Null when the import is no longer open.
   */
  abstract claimAttempt(id: string): Promise<number | null>;
  abstract save(id: string, state: ImportReport['state'], report: StoredReport): Promise<void>;
  /** Which of these originals a media item uses (the others an import stored are orphans). */
  abstract usedOriginals(keys: string[]): Promise<Set<string>>;
  /** The visible post an imported post's old URL path ("/?p=12") belonged to (posts.post_old_paths), or null. */
  abstract postOfOldPath(path: string): Promise<PostPlace | null>;
}

@Injectable()
export class PostgresImportsRepository extends ImportsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {
    super();
  }

  async create(
    id: string,
    job: { format: ImportFormat; fileKey: string; options: ImportOptions; report: StoredReport },
  ): Promise<void> {
    await this.db.query(
      `INSERT INTO posts.imports (id, state, format, file_key, options, report) VALUES ($1, 'queued', $2, $3, $4, $5)`,
      [id, job.format, job.fileKey, JSON.stringify(job.options), JSON.stringify(job.report)],
    );
  }

  async find(id: string): Promise<ImportRow | null> {
    const [row] = (await this.db.query(`SELECT * FROM posts.imports WHERE id = $1`, [id])) as ImportRow[];
    return row ?? null;
  }

  async openIds(): Promise<string[]> {
    const rows = (await this.db.query(
      `SELECT id FROM posts.imports WHERE state IN ('queued', 'running')`,
    )) as { id: string }[];
    return rows.map((row) => row.id);
  }

  async claimAttempt(id: string): Promise<number | null> {
    const rows = (await this.db.query(
      `UPDATE posts.imports SET attempts = attempts + 1, attempt_started_at = now(), updated_at = now()
       WHERE id = $1 AND state IN ('queued', 'running') RETURNING attempts`,
      [id],
    )) as [{ attempts: number }[], number] | { attempts: number }[];
    // TypeORM's postgres driver answers [rows, count] for an UPDATE … RETURNING.
    const list = Array.isArray(rows[0])
      ? (rows[0] as { attempts: number }[])
      : (rows as { attempts: number }[]);
    return list[0]?.attempts ?? null;
  }

  async save(id: string, state: ImportReport['state'], report: StoredReport): Promise<void> {
    await this.db.query(
      `UPDATE posts.imports SET state = $2, report = $3, updated_at = now() WHERE id = $1`,
      [id, state, JSON.stringify(report)],
    );
  }

  async usedOriginals(keys: string[]): Promise<Set<string>> {
    const rows = (await this.db.query(
      `SELECT original_key FROM posts.media_items WHERE original_key = ANY($1)`,
      [keys],
    )) as { original_key: string }[];
    return new Set(rows.map((row) => row.original_key));
  }

  async postOfOldPath(path: string): Promise<PostPlace | null> {
    const [row] = (await this.db.query(
      `SELECT p.slug, p.category, p.submenu1, p.submenu2 FROM posts.post_old_paths o
       JOIN posts.posts p ON p.id = o.post_id WHERE o.path = $1 AND ${VISIBILITY_SQL.visible}`,
      [path],
    )) as PostPlace[];
    return row ?? null;
  }
}
