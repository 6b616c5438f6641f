import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A note restored from the blog's archive remembers where it came from (`blog:<blog id>:note:<id>`),
 * so importing the same archive again adds none twice. Notes written here have none.
 */
export class NoteSources1765910000000 implements MigrationInterface {
  name = 'NoteSources1765910000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE posts.notes ADD COLUMN source_id text`);
    await q.query(
      `CREATE UNIQUE INDEX notes_source_idx ON posts.notes (source_id) WHERE source_id IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX posts.notes_source_idx`);
    await q.query(`ALTER TABLE posts.notes DROP COLUMN source_id`);
  }
}
