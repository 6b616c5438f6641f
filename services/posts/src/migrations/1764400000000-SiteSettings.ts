import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The site configuration in the database: one row, the validated config and a
 * version every replica polls; config/site.json (SITE_CONFIG) seeds it on the first start.
 * Each post keeps the id of its tree node (filled from its labels once the tree has ids, see
 * SiteSettings), and renamed listing paths keep answering with a redirect.
 */
export class SiteSettings1764400000000 implements MigrationInterface {
  name = 'SiteSettings1764400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE posts.site_settings (
        id int PRIMARY KEY CHECK (id = 1),
        config jsonb NOT NULL,
        version int NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`ALTER TABLE posts.posts ADD COLUMN place_id varchar(40)`);
    await q.query(`CREATE INDEX posts_place_idx ON posts.posts (place_id)`);
    await q.query(`
      CREATE TABLE posts.site_redirects (
        from_path text PRIMARY KEY,
        to_path text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE posts.site_redirects`);
    await q.query(`ALTER TABLE posts.posts DROP COLUMN place_id`);
    await q.query(`DROP TABLE posts.site_settings`);
  }
}
