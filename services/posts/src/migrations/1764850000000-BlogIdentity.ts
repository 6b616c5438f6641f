import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The blog's own identity: a random id made once per database, written into every
 * archive it exports, so an import tells this blog's archive (its subscribers keep their
 * confirmations) from another blog's (they come in unconfirmed). The settings row may not
 * exist yet (it is seeded at start): the default gives it its id then.
 */
export class BlogIdentity1764850000000 implements MigrationInterface {
  name = 'BlogIdentity1764850000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE posts.site_settings ADD COLUMN blog_id uuid NOT NULL DEFAULT gen_random_uuid()`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE posts.site_settings DROP COLUMN blog_id`);
  }
}
