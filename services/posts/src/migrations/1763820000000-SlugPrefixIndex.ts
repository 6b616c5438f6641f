import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Finding the next free "slug-N" is a prefix search; this index keeps it off a table scan. */
export class SlugPrefixIndex1763820000000 implements MigrationInterface {
  name = 'SlugPrefixIndex1763820000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX posts_slug_prefix_idx ON posts.posts (slug varchar_pattern_ops)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX posts.posts_slug_prefix_idx`);
  }
}
