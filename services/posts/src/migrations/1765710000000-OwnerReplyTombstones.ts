import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A deleted owner's reply leaves no row (moderation deletes comments), yet its Delete still has
 * to name its Note and reach the author it mentioned: the Delete event keeps both
 * (`{uri, mention}`), captured as the reply is deleted.
 */
export class OwnerReplyTombstones1765710000000 implements MigrationInterface {
  name = 'OwnerReplyTombstones1765710000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE posts.federation_events ADD COLUMN tombstone jsonb`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE posts.federation_events DROP COLUMN tombstone`);
  }
}
