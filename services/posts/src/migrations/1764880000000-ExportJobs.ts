import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Exports as jobs, like imports: any replica runs one, its report says where it stands, and the
 * archive waits in private storage (`private/exports/<id>.zip`) for a download any gateway serves.
 */
export class ExportJobs1764880000000 implements MigrationInterface {
  name = 'ExportJobs1764880000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE posts.exports (
        id uuid PRIMARY KEY,
        state text NOT NULL CHECK (state IN ('queued', 'running', 'done', 'failed')),
        report jsonb NOT NULL,
        attempts integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(
      `CREATE INDEX exports_open_idx ON posts.exports (state) WHERE state IN ('queued', 'running')`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE posts.exports`);
  }
}
