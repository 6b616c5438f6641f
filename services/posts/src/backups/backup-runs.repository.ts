import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { BackupProgressView, BackupState, BackupTrigger } from '@blog/contracts';
import { DataSource } from 'typeorm';

export interface BackupRecord {
  id: string;
  state: BackupState;
  trigger: BackupTrigger;
  startedAt: Date;
  finishedAt: Date | null;
  bytes: number | null;
  target: string;
  file: string | null;
  error: string | null;
  progress: BackupProgressView | null;
  encrypted: boolean;
}

export interface NewBackupRun {
  id: string;
  trigger: BackupTrigger;
  /** The schedule's slot this run is for (null for the owner's): taken once across replicas. */
  scheduledFor: Date | null;
  target: string;
  encrypted: boolean;
}

export interface BackupOutcome {
  state: 'done' | 'failed';
  bytes?: number;
  file?: string;
  error?: string;
}

/** posts.backup_runs (one row per backup) and posts.backup_warnings (the days the owner was told). */
export abstract class BackupRunsRepository {
  /** False when the run's schedule slot was taken already (another replica's run). */
  abstract create(run: NewBackupRun): Promise<boolean>;
  abstract progress(id: string, progress: BackupProgressView): Promise<void>;
  abstract finish(id: string, outcome: BackupOutcome): Promise<void>;
  /** Marks every running backup failed: called only by the holder of the backup lock, so none is alive. */
  abstract failRunning(error: string): Promise<number>;
  /** The newest running backup, if any. */
  abstract running(): Promise<BackupRecord | null>;
  abstract find(id: string): Promise<BackupRecord | null>;
  /** The newest `limit` backups, newest first. */
  abstract list(limit: number): Promise<BackupRecord[]>;
  /** Claims today (in `timeZone`) for the owner's e-mail: true once a day, whichever replica asks. */
  abstract claimWarningDay(timeZone: string, warning: string): Promise<boolean>;
  /** Gives today's claim back (the e-mail could not be handed over). */
  abstract releaseWarningDay(timeZone: string): Promise<void>;
}

interface BackupRow {
  id: string;
  state: BackupState;
  trigger: BackupTrigger;
  started_at: Date;
  finished_at: Date | null;
  bytes: string | null;
  target: string;
  file: string | null;
  error: string | null;
  progress: BackupProgressView | null;
  encrypted: boolean;
}

const record = (row: BackupRow): BackupRecord => ({
  id: row.id,
  state: row.state,
  trigger: row.trigger,
  startedAt: new Date(row.started_at),
  finishedAt: row.finished_at ? new Date(row.finished_at) : null,
  bytes: row.bytes === null ? null : Number(row.bytes),
  target: row.target,
  file: row.file,
  error: row.error,
  progress: row.progress,
  encrypted: row.encrypted,
});

/** TypeORM's postgres driver answers [rows, count] for an UPDATE or DELETE … RETURNING. */
const returned = <T>(answer: unknown): T[] => (answer as [T[], number])[0] ?? [];

@Injectable()
export class PostgresBackupRunsRepository extends BackupRunsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {
    super();
  }

  async create(run: NewBackupRun): Promise<boolean> {
    const rows = (await this.db.query(
      `INSERT INTO posts.backup_runs (id, state, trigger, scheduled_for, target, encrypted)
       VALUES ($1, 'running', $2, $3, $4, $5) ON CONFLICT (scheduled_for) DO NOTHING RETURNING id`,
      [run.id, run.trigger, run.scheduledFor, run.target, run.encrypted],
    )) as unknown[];
    return rows.length === 1;
  }

  async progress(id: string, progress: BackupProgressView): Promise<void> {
    await this.db.query(`UPDATE posts.backup_runs SET progress = $2 WHERE id = $1 AND state = 'running'`, [
      id,
      JSON.stringify(progress),
    ]);
  }

  async finish(id: string, outcome: BackupOutcome): Promise<void> {
    await this.db.query(
      `UPDATE posts.backup_runs SET state = $2, bytes = $3, file = $4, error = $5, finished_at = now(), progress = NULL
       WHERE id = $1 AND state = 'running'`,
      [id, outcome.state, outcome.bytes ?? null, outcome.file ?? null, outcome.error ?? null],
    );
  }

  async failRunning(error: string): Promise<number> {
    return returned<{ id: string }>(
      await this.db.query(
        `UPDATE posts.backup_runs SET state = 'failed', error = $1, finished_at = now(), progress = NULL
         WHERE state = 'running' RETURNING id`,
        [error],
      ),
    ).length;
  }

  async running(): Promise<BackupRecord | null> {
    const [row] = (await this.db.query(
      `SELECT * FROM posts.backup_runs WHERE state = 'running' ORDER BY started_at DESC LIMIT 1`,
    )) as BackupRow[];
    return row ? record(row) : null;
  }

  async find(id: string): Promise<BackupRecord | null> {
    const [row] = (await this.db.query(`SELECT * FROM posts.backup_runs WHERE id = $1`, [id])) as BackupRow[];
    return row ? record(row) : null;
  }

  async list(limit: number): Promise<BackupRecord[]> {
    const rows = (await this.db.query(
      `SELECT * FROM posts.backup_runs ORDER BY started_at DESC, id LIMIT $1`,
      [limit],
    )) as BackupRow[];
    return rows.map(record);
  }

  async claimWarningDay(timeZone: string, warning: string): Promise<boolean> {
    const rows = (await this.db.query(
      `INSERT INTO posts.backup_warnings (day, warning) VALUES ((now() AT TIME ZONE $1)::date, $2)
       ON CONFLICT (day) DO NOTHING RETURNING day`,
      [timeZone, warning],
    )) as unknown[];
    return rows.length === 1;
  }

  async releaseWarningDay(timeZone: string): Promise<void> {
    await this.db.query(`DELETE FROM posts.backup_warnings WHERE day = (now() AT TIME ZONE $1)::date`, [
      timeZone,
    ]);
  }
}
