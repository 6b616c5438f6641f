import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The media pipeline: the owner's original under a private key, what processing made of it
 * (srcset variants, video duration), when the status last changed (the re-enqueue of
 * items pending for too long reads it) and whether a ready item must be rendered again
 * (its crop changed; it stays served meanwhile).
 */
export class MediaProcessing1763830000000 implements MigrationInterface {
  name = 'MediaProcessing1763830000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE posts.media_items
        ADD COLUMN original_key text,
        ADD COLUMN variants jsonb NOT NULL DEFAULT '[]'::jsonb,
        ADD COLUMN duration_seconds double precision,
        ADD COLUMN status_changed_at timestamptz NOT NULL DEFAULT now(),
        ADD COLUMN reprocess boolean NOT NULL DEFAULT false`);
    await q.query(`DROP INDEX IF EXISTS posts.media_items_status_idx`);
    await q.query(
      `CREATE INDEX media_items_pending_idx ON posts.media_items (status_changed_at) WHERE status = 'pending' OR reprocess`,
    );
    await q.query(
      `CREATE INDEX media_items_original_key_idx ON posts.media_items (original_key) WHERE original_key IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX posts.media_items_original_key_idx`);
    await q.query(`DROP INDEX posts.media_items_pending_idx`);
    await q.query(
      `CREATE INDEX media_items_status_idx ON posts.media_items (status) WHERE status = 'pending'`,
    );
    await q.query(`
      ALTER TABLE posts.media_items
        DROP COLUMN original_key,
        DROP COLUMN variants,
        DROP COLUMN duration_seconds,
        DROP COLUMN status_changed_at,
        DROP COLUMN reprocess`);
  }
}
