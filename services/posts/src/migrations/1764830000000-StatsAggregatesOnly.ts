import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Statistics keep aggregates only: a backup held each day's salt beside that day's
 * visitor keys, and for IPv4 addresses and common browsers the keys can be reversed offline.
 * The salt and the keys now live in memory or Redis until their day is over
 * (stats/visitor-store.ts). Every raw view is first added to the daily totals, as the hourly
 * fold did after 30 days, so no figure is lost; facets also get a path (and post) so one
 * post's referrers, devices and countries stay answerable. Then the raw views and the salts go.
 * Today's visitors, if any, are counted once more when they come back today.
 */
export class StatsAggregatesOnly1764830000000 implements MigrationInterface {
  name = 'StatsAggregatesOnly1764830000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE posts.view_day_facets
      ADD COLUMN path varchar(500) NOT NULL DEFAULT '',
      ADD COLUMN post_id int REFERENCES posts.posts (id) ON DELETE SET NULL`);
    await q.query(`ALTER TABLE posts.view_day_facets ALTER COLUMN path DROP DEFAULT`);
    await q.query(`ALTER TABLE posts.view_day_facets DROP CONSTRAINT view_day_facets_pkey`);
    await q.query(`ALTER TABLE posts.view_day_facets ADD PRIMARY KEY (day, path, kind, value)`);
    await q.query(
      `CREATE INDEX view_day_facets_post_idx ON posts.view_day_facets (post_id, day) WHERE post_id IS NOT NULL`,
    );
    await q.query(
      `INSERT INTO posts.view_days (day, path, post_id, views, visitors)
       SELECT day, path, max(post_id), count(*), count(DISTINCT visitor) FROM posts.page_views GROUP BY day, path
       UNION ALL
       SELECT day, '', NULL, count(*), count(DISTINCT visitor) FROM posts.page_views GROUP BY day
       ON CONFLICT (day, path) DO UPDATE SET views = posts.view_days.views + EXCLUDED.views,
         visitors = posts.view_days.visitors + EXCLUDED.visitors`,
    );
    // The site's facets (path ''), and each post path's own.
    await q.query(
      `WITH v AS (
         SELECT day, '' AS path, NULL::int AS post_id, referrer_host, device, country FROM posts.page_views
         UNION ALL
         SELECT day, path, post_id, referrer_host, device, country FROM posts.page_views WHERE post_id IS NOT NULL
       )
       INSERT INTO posts.view_day_facets (day, path, post_id, kind, value, views)
       SELECT day, path, max(post_id), 'referrer', referrer_host, count(*) FROM v WHERE referrer_host IS NOT NULL GROUP BY day, path, referrer_host
       UNION ALL SELECT day, path, max(post_id), 'device', device, count(*) FROM v GROUP BY day, path, device
       UNION ALL SELECT day, path, max(post_id), 'country', country, count(*) FROM v WHERE country IS NOT NULL GROUP BY day, path, country
       ON CONFLICT (day, path, kind, value) DO UPDATE SET views = posts.view_day_facets.views + EXCLUDED.views`,
    );
    await q.query(`DROP TABLE posts.page_views`);
    await q.query(`DROP TABLE posts.view_salts`);
  }

  /** The tables come back empty: raw views and salts cannot be rebuilt from totals. */
  async down(q: QueryRunner): Promise<void> {
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
    await q.query(`DELETE FROM posts.view_day_facets WHERE path <> ''`);
    await q.query(`DROP INDEX posts.view_day_facets_post_idx`);
    await q.query(`ALTER TABLE posts.view_day_facets DROP CONSTRAINT view_day_facets_pkey`);
    await q.query(`ALTER TABLE posts.view_day_facets ADD PRIMARY KEY (day, kind, value)`);
    await q.query(`ALTER TABLE posts.view_day_facets DROP COLUMN post_id, DROP COLUMN path`);
  }
}
