import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A note's pictures are media items too, so the one media pipeline processes them: an item
 * belongs to a post or to a note (exactly one), and goes with it. Whatever serves posts reads
 * items by `post_id`, so a note's pictures never show there.
 */
export class NotePictures1765720000000 implements MigrationInterface {
  name = 'NotePictures1765720000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE posts.media_items ALTER COLUMN post_id DROP NOT NULL`);
    await q.query(
      `ALTER TABLE posts.media_items ADD COLUMN note_id integer REFERENCES posts.notes (id) ON DELETE CASCADE`,
    );
    await q.query(
      `ALTER TABLE posts.media_items ADD CONSTRAINT media_items_one_owner CHECK (num_nonnulls(post_id, note_id) = 1)`,
    );
    await q.query(
      `CREATE INDEX media_items_note_idx ON posts.media_items (note_id, position) WHERE note_id IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM posts.media_items WHERE note_id IS NOT NULL`);
    await q.query(`DROP INDEX posts.media_items_note_idx`);
    await q.query(`ALTER TABLE posts.media_items DROP CONSTRAINT media_items_one_owner`);
    await q.query(`ALTER TABLE posts.media_items DROP COLUMN note_id`);
    await q.query(`ALTER TABLE posts.media_items ALTER COLUMN post_id SET NOT NULL`);
  }
}
