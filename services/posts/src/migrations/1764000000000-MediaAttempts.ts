import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * How many processing runs an item has had since it last ended ready or failed: the media
 * worker counts each run here, so the limit holds across sweeps, restarts and replicas.
 */
export class MediaAttempts1764000000000 implements MigrationInterface {
  name = 'MediaAttempts1764000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE posts.media_items ADD COLUMN processing_attempts integer NOT NULL DEFAULT 0`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE posts.media_items DROP COLUMN processing_attempts`);
  }
}
