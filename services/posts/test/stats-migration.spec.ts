import { dataSourceOptions, openMigrated } from '@blog/server-kit';
import { createTestDatabase, type TestDatabase } from '@blog/server-kit/testing';
import { MIGRATIONS as POSTS_MIGRATIONS } from '../src/migrations/index.js';
import { PageViews1764700000000 } from '../src/migrations/1764700000000-PageViews.js';

/**
 * StatsAggregatesOnly on a database that still holds raw views with visitor keys and a salt,
 * as an upgrade finds it: every raw view is added to the daily totals (per path and for the
 * site, visitors counted distinct per day) and to the facets (the site's, and each post
 * path's own), totals already folded stay and grow, and the raw views and the salts are gone.
 */
describe('StatsAggregatesOnly migration on raw views', () => {
  let db: TestDatabase;

  const open = (migrations: typeof POSTS_MIGRATIONS) =>
    openMigrated(dataSourceOptions({ url: db.url, schema: 'posts', entities: [], migrations }), 'posts');

  beforeAll(async () => {
    db = await createTestDatabase('stats_migration');
    const before = await open(
      POSTS_MIGRATIONS.slice(0, POSTS_MIGRATIONS.indexOf(PageViews1764700000000) + 1),
    );
    const [{ id }] = (await before.query(
      `INSERT INTO posts.posts (title, content, slug, category, submenu1, created_at, updated_at)
       VALUES ('Counted', 'x', 'counted', 'More', 'General', now(), now()) RETURNING id`,
    )) as { id: number }[];
    const key = (c: string) => c.repeat(64);
    const views: [string, string, number | null, string, string | null, string, string | null][] = [
      ['2026-11-20', '/more/general/counted', id, key('a'), 'search.example', 'desktop', 'FR'],
      ['2026-11-20', '/more/general/counted', id, key('a'), 'search.example', 'desktop', 'FR'],
      ['2026-11-20', '/more/general/counted', id, key('b'), null, 'phone', null],
      ['2026-11-20', '/about', null, key('a'), 'other.example', 'desktop', 'DE'],
      ['2026-11-21', '/about', null, key('c'), null, 'tablet', null],
    ];
    for (const [day, path, postId, visitor, referrer, device, country] of views)
      await before.query(
        `INSERT INTO posts.page_views (at, day, path, post_id, visitor, referrer_host, device, country)
         VALUES ($1::date + time '10:00', $1, $2, $3, $4, $5, $6, $7)`,
        [day, path, postId, visitor, referrer, device, country],
      );
    // A day folded earlier (beyond 30 days) and one overlapping a raw day.
    await before.query(
      `INSERT INTO posts.view_days (day, path, post_id, views, visitors) VALUES
         ('2026-09-01', '', NULL, 9, 4), ('2026-11-20', '', NULL, 1, 1)`,
    );
    await before.query(
      `INSERT INTO posts.view_day_facets (day, kind, value, views) VALUES ('2026-09-01', 'device', 'desktop', 9)`,
    );
    await before.query(`INSERT INTO posts.view_salts (day, salt) VALUES ('2026-11-21', '\\x0102')`);
    await before.destroy();
    await (await open(POSTS_MIGRATIONS)).destroy();
  });
  afterAll(() => db?.drop());

  async function query<T>(sql: string): Promise<T[]> {
    const source = await open(POSTS_MIGRATIONS);
    try {
      return (await source.query(sql)) as T[];
    } finally {
      await source.destroy();
    }
  }

  it('adds every raw view to the daily totals, visitors distinct per day and path', async () => {
    expect(
      await query(
        `SELECT day::text, path, post_id IS NOT NULL AS post, views, visitors FROM posts.view_days ORDER BY day, path`,
      ),
    ).toEqual([
      { day: '2026-09-01', path: '', post: false, views: 9, visitors: 4 },
      // 4 raw views by 2 visitors, added to the 1 view already folded for that day.
      { day: '2026-11-20', path: '', post: false, views: 5, visitors: 3 },
      { day: '2026-11-20', path: '/about', post: false, views: 1, visitors: 1 },
      { day: '2026-11-20', path: '/more/general/counted', post: true, views: 3, visitors: 2 },
      { day: '2026-11-21', path: '', post: false, views: 1, visitors: 1 },
      { day: '2026-11-21', path: '/about', post: false, views: 1, visitors: 1 },
    ]);
  });

  it("adds them to the site's facets and to each post's own", async () => {
    expect(
      await query(
        `SELECT day::text, path, kind, value, views FROM posts.view_day_facets ORDER BY day, path, kind, value`,
      ),
    ).toEqual([
      { day: '2026-09-01', path: '', kind: 'device', value: 'desktop', views: 9 },
      { day: '2026-11-20', path: '', kind: 'country', value: 'DE', views: 1 },
      { day: '2026-11-20', path: '', kind: 'country', value: 'FR', views: 2 },
      { day: '2026-11-20', path: '', kind: 'device', value: 'desktop', views: 3 },
      { day: '2026-11-20', path: '', kind: 'device', value: 'phone', views: 1 },
      { day: '2026-11-20', path: '', kind: 'referrer', value: 'other.example', views: 1 },
      { day: '2026-11-20', path: '', kind: 'referrer', value: 'search.example', views: 2 },
      { day: '2026-11-20', path: '/more/general/counted', kind: 'country', value: 'FR', views: 2 },
      { day: '2026-11-20', path: '/more/general/counted', kind: 'device', value: 'desktop', views: 2 },
      { day: '2026-11-20', path: '/more/general/counted', kind: 'device', value: 'phone', views: 1 },
      {
        day: '2026-11-20',
        path: '/more/general/counted',
        kind: 'referrer',
        value: 'search.example',
        views: 2,
      },
      { day: '2026-11-21', path: '', kind: 'device', value: 'tablet', views: 1 },
    ]);
  });

  it('drops the raw views and the salts: no visitor key or salt is left in the database', async () => {
    expect(
      await query(
        `SELECT table_name FROM information_schema.tables
         WHERE table_schema = 'posts' AND table_name IN ('page_views', 'view_salts')`,
      ),
    ).toEqual([]);
    expect(
      await query(
        `SELECT table_name, column_name FROM information_schema.columns
         WHERE table_schema = 'posts' AND column_name IN ('visitor', 'salt')`,
      ),
    ).toEqual([]);
  });
});
