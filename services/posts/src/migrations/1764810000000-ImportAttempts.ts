import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An import counts its tries: each start of a run adds one before any work, so a
 * file that crashes its process is counted across restarts, and the third crashed or
 * timed-out try ends the import `failed` instead of blocking every start-up.
 */
export class ImportAttempts1764810000000 implements MigrationInterface {
  name = 'ImportAttempts1764810000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE posts.imports ADD COLUMN attempts int NOT NULL DEFAULT 0`);
    await q.query(`ALTER TABLE posts.imports ADD COLUMN attempt_started_at timestamptz`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE posts.imports DROP COLUMN attempt_started_at`);
    await q.query(`ALTER TABLE posts.imports DROP COLUMN attempts`);
  }
}
