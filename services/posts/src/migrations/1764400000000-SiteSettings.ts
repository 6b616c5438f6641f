import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The site configuration in the database (issue 16): one row, the validated config and a
 * version every replica polls. config/site.json (SITE_CONFIG) seeds it on the first start.
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
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE posts.site_settings`);
  }
}
