import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Visit statistics: raw page views for RAW_VIEW_DAYS (30) days, then folded into
 * daily totals per path (path '' holds the whole site's day) and per referrer host, device and
 * country, kept forever. A view row holds no address and no browser string: its visitor key
 * is a hash with the day's salt, and the salt row is deleted once its day is over. Each batch
 * id is kept for a day so a retried batch counts once.
 */
export class PageViews1764700000000 implements MigrationInterface {
  name = 'PageViews1764700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE posts.view_salts (day date PRIMARY KEY, salt bytea NOT NULL)`);
    await q.query(`
      CREATE TABLE posts.page_views (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        at timestamptz NOT NULL,
        day date NOT NULL,
        path varchar(500) NOT NULL,
        post_id int REFERENCES posts.posts (id) ON DELETE SET NULL,
        visitor char(64) NOT NULL,
        referrer_host varchar(255),
        device varchar(8) NOT NULL,
        country char(2)
      )`);
    await q.query(`CREATE INDEX page_views_day_idx ON posts.page_views (day)`);
    await q.query(`CREATE INDEX page_views_at_idx ON posts.page_views (at)`);
    await q.query(
      `CREATE INDEX page_views_post_idx ON posts.page_views (post_id, day) WHERE post_id IS NOT NULL`,
    );
    await q.query(
      `CREATE TABLE posts.view_batches (id uuid PRIMARY KEY, at timestamptz NOT NULL DEFAULT now())`,
    );
    await q.query(`
      CREATE TABLE posts.view_days (
        day date NOT NULL,
        path varchar(500) NOT NULL,
        post_id int REFERENCES posts.posts (id) ON DELETE SET NULL,
        views int NOT NULL,
        visitors int NOT NULL,
        PRIMARY KEY (day, path)
      )`);
    await q.query(
      `CREATE INDEX view_days_post_idx ON posts.view_days (post_id, day) WHERE post_id IS NOT NULL`,
    );
    await q.query(`
      CREATE TABLE posts.view_day_facets (
        day date NOT NULL,
        kind varchar(10) NOT NULL,
        value varchar(255) NOT NULL,
        views int NOT NULL,
        PRIMARY KEY (day, kind, value)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE posts.view_day_facets`);
    await q.query(`DROP TABLE posts.view_days`);
    await q.query(`DROP TABLE posts.view_batches`);
    await q.query(`DROP TABLE posts.page_views`);
    await q.query(`DROP TABLE posts.view_salts`);
  }
}
