import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { ExportReport, ExportState } from '@blog/contracts';
import { DataSource } from 'typeorm';

/** An export's report as stored (the public one without its id, state and times). */
export type StoredExportReport = Omit<ExportReport, 'id' | 'state' | 'createdAt' | 'updatedAt'>;

export interface ExportRecord {
  id: string;
  state: ExportState;
  report: StoredExportReport;
  createdAt: Date;
  updatedAt: Date;
}

/** posts.exports (the export jobs) and posts.used_export_links (their links used up). */
export abstract class ExportsRepository {
  abstract create(id: string, report: StoredExportReport): Promise<void>;
  abstract find(id: string): Promise<ExportRecord | null>;
  /** Ids of the exports still queued or running. */
  abstract openIds(): Promise<string[]>;
  /** Counts a try and marks the export running; null when it is no longer open. */
  abstract claimAttempt(id: string): Promise<number | null>;
  /** The new state and report of an export still open (a finished one keeps its last word). */
  abstract save(id: string, state: ExportState, report: StoredExportReport): Promise<void>;
  /** Deletes the exports finished more than `hours` ago; answers their ids. */
  abstract deleteFinishedBefore(hours: number): Promise<string[]>;
  /** Posts in the blog (what an export will write). */
  abstract countPosts(): Promise<number>;
  /** Uses up a link's id: true the first time, false after; ids of expired links are forgotten. */
  abstract claimLink(id: string, expiresAt: Date): Promise<boolean>;
}

interface ExportRow {
  id: string;
  state: ExportState;
  report: StoredExportReport;
  created_at: Date;
  updated_at: Date;
}

/** TypeORM's postgres driver answers [rows, count] for an UPDATE or DELETE … RETURNING. */
const returned = <T>(answer: unknown): T[] => (answer as [T[], number])[0] ?? [];

@Injectable()
export class PostgresExportsRepository extends ExportsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {
    super();
  }

  async create(id: string, report: StoredExportReport): Promise<void> {
    await this.db.query(`INSERT INTO posts.exports (id, state, report) VALUES ($1, 'queued', $2)`, [
      id,
      JSON.stringify(report),
    ]);
  }

  async find(id: string): Promise<ExportRecord | null> {
    const [row] = (await this.db.query(`SELECT * FROM posts.exports WHERE id = $1`, [id])) as ExportRow[];
    return row
      ? {
          id: row.id,
          state: row.state,
          report: row.report,
          createdAt: new Date(row.created_at),
          updatedAt: new Date(row.updated_at),
        }
      : null;
  }

  async openIds(): Promise<string[]> {
    const rows = (await this.db.query(
      `SELECT id FROM posts.exports WHERE state IN ('queued', 'running')`,
    )) as { id: string }[];
    return rows.map((row) => row.id);
  }

  async claimAttempt(id: string): Promise<number | null> {
    const rows = returned<{ attempts: number }>(
      await this.db.query(
        `UPDATE posts.exports SET attempts = attempts + 1, state = 'running', updated_at = now()
         WHERE id = $1 AND state IN ('queued', 'running') RETURNING attempts`,
        [id],
      ),
    );
    return rows[0]?.attempts ?? null;
  }

  async save(id: string, state: ExportState, report: StoredExportReport): Promise<void> {
    await this.db.query(
      `UPDATE posts.exports SET state = $2, report = $3, updated_at = now()
       WHERE id = $1 AND state NOT IN ('done', 'failed')`,
      [id, state, JSON.stringify(report)],
    );
  }

  async deleteFinishedBefore(hours: number): Promise<string[]> {
    const rows = returned<{ id: string }>(
      await this.db.query(
        `DELETE FROM posts.exports WHERE state IN ('done', 'failed')
         AND updated_at < now() - make_interval(hours => $1) RETURNING id`,
        [hours],
      ),
    );
    return rows.map((row) => row.id);
  }

  async countPosts(): Promise<number> {
    const [{ total }] = (await this.db.query(`SELECT count(*)::int AS total FROM posts.posts`)) as {
      total: number;
    }[];
    return total;
  }

  async claimLink(id: string, expiresAt: Date): Promise<boolean> {
    await this.db.query(`DELETE FROM posts.used_export_links WHERE expires_at < now()`);
    const claimed = (await this.db.query(
      `INSERT INTO posts.used_export_links (id, expires_at) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING RETURNING id`,
      [id, expiresAt],
    )) as unknown[];
    return claimed.length === 1;
  }
}
