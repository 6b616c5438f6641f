import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The blog's own backups: one row per run (scheduled or the owner's), its progress while it
 * runs and its outcome after. A scheduled slot is taken once (`scheduled_for` is unique), so
 * replicas woken by the same schedule start one backup. `backup_warnings` holds the days the
 * owner was e-mailed about stale backups: one e-mail a day, across replicas.
 */
export class BackupRuns1765800000000 implements MigrationInterface {
  name = 'BackupRuns1765800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE posts.backup_runs (
        id uuid PRIMARY KEY,
        state text NOT NULL CHECK (state IN ('running', 'done', 'failed')),
        trigger text NOT NULL CHECK (trigger IN ('schedule', 'owner')),
        scheduled_for timestamptz UNIQUE,
        started_at timestamptz NOT NULL DEFAULT now(),
        finished_at timestamptz,
        bytes bigint,
        target text NOT NULL,
        file text,
        error text,
        progress jsonb,
        encrypted boolean NOT NULL
      )`);
    await q.query(`CREATE INDEX backup_runs_started_idx ON posts.backup_runs (started_at DESC)`);
    await q.query(`CREATE TABLE posts.backup_warnings (day date PRIMARY KEY, warning text NOT NULL)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE posts.backup_warnings`);
    await q.query(`DROP TABLE posts.backup_runs`);
  }
}
