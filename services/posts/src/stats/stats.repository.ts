import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { VISIBILITY_SQL } from '../posts/visibility.js';

/** Views and visitors added to one day and path (path '' is the whole site). */
export interface DayRow {
  day: string;
  path: string;
  postId: number | null;
  views: number;
  visitors: number;
}

export type FacetKind = 'referrer' | 'device' | 'country';

/** Views added to one day, path and referrer host, device class or country. */
export interface FacetRow {
  day: string;
  path: string;
  postId: number | null;
  kind: FacetKind;
  value: string;
  views: number;
}

/** The site's figures (no `postId`) or one post's (every path it had). */
export interface StatsRange {
  from: string;
  to: string;
  postId?: number;
}

export interface TopPostRow {
  postId: number;
  title: string;
  slug: string;
  category: string;
  submenu1: string;
  submenu2: string | null;
  views: number;
  visitors: number;
}

/** One batch of views being recorded, in its transaction. */
export interface ViewBatchWrite {
  /** Keeps the batch's id (for a day); false when it was recorded before. */
  claim(batchId: string): Promise<boolean>;
  /** The ids of the posts of `slugs` a visitor can see, by slug. */
  visiblePostIds(slugs: string[]): Promise<Map<string, number>>;
  /** Adds the rows' counts; rows in one order on every replica, so two batches wait, never deadlock. */
  addDays(rows: DayRow[]): Promise<void>;
  addFacets(rows: FacetRow[]): Promise<void>;
  /** Forgets batch ids older than a day. */
  pruneBatches(): Promise<void>;
}

/** posts.view_days, posts.view_day_facets and posts.view_batches: the statistics' daily totals. */
export abstract class StatsRepository {
  /** `work` on one transaction: all of it is stored, or none. */
  abstract recordBatch<T>(work: (write: ViewBatchWrite) => Promise<T>): Promise<T>;
  /** Views and visitors per day that has any (as YYYY-MM-DD). */
  abstract dailyTotals(range: StatsRange): Promise<{ date: string; views: number; visitors: number }[]>;
  /** The most viewed posts, most first (then by id). */
  abstract topPosts(range: StatsRange, limit: number): Promise<TopPostRow[]>;
  /** Views by referrer host, device or country, most first (then by value). */
  abstract facetTotals(
    range: StatsRange,
    kind: FacetKind,
    limit: number,
  ): Promise<{ value: string; views: number }[]>;
  /** Views of each of the posts in the last `days` days (posts without any left out). */
  abstract recentViews(postIds: number[], days: number): Promise<{ postId: number; views: number }[]>;
}

@Injectable()
export class PostgresStatsRepository extends StatsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {
    super();
  }

  recordBatch<T>(work: (write: ViewBatchWrite) => Promise<T>): Promise<T> {
    return this.db.transaction((manager) => work(batchWrite(manager)));
  }

  async dailyTotals(range: StatsRange) {
    return (await this.db.query(
      `SELECT day::text AS date, sum(views)::int AS views, sum(visitors)::int AS visitors
       FROM posts.view_days WHERE day BETWEEN $1 AND $2 AND ${scopeOf(range)} GROUP BY day`,
      [range.from, range.to],
    )) as { date: string; views: number; visitors: number }[];
  }

  async topPosts(range: StatsRange, limit: number): Promise<TopPostRow[]> {
    const post = range.postId ? `AND post_id = ${Number(range.postId)}` : '';
    return (await this.db.query(
      `SELECT t.post_id AS "postId", p.title, p.slug, p.category, p.submenu1, p.submenu2,
              sum(t.views)::int AS views, sum(t.visitors)::int AS visitors
       FROM posts.view_days t JOIN posts.posts p ON p.id = t.post_id
       WHERE t.day BETWEEN $1 AND $2 AND t.post_id IS NOT NULL ${post}
       GROUP BY t.post_id, p.title, p.slug, p.category, p.submenu1, p.submenu2
       ORDER BY views DESC, t.post_id LIMIT ${Number(limit)}`,
      [range.from, range.to],
    )) as TopPostRow[];
  }

  async facetTotals(range: StatsRange, kind: FacetKind, limit: number) {
    return (await this.db.query(
      `SELECT value, sum(views)::int AS views FROM posts.view_day_facets
       WHERE day BETWEEN $1 AND $2 AND kind = $3 AND ${scopeOf(range)}
       GROUP BY value ORDER BY views DESC, value LIMIT ${Number(limit)}`,
      [range.from, range.to, kind],
    )) as { value: string; views: number }[];
  }

  async recentViews(postIds: number[], days: number) {
    return (await this.db.query(
      `SELECT post_id AS "postId", sum(views)::int AS views FROM posts.view_days
       WHERE post_id = ANY($1) AND day > current_date - $2::int GROUP BY post_id`,
      [postIds, days],
    )) as { postId: number; views: number }[];
  }
}

/** One post's rows (any path it had), or the whole site's (''). */
const scopeOf = (range: StatsRange) => (range.postId ? `post_id = ${Number(range.postId)}` : `path = ''`);

function batchWrite(manager: EntityManager): ViewBatchWrite {
  return {
    async claim(batchId) {
      const claimed = (await manager.query(
        `INSERT INTO posts.view_batches (id) VALUES ($1) ON CONFLICT (id) DO NOTHING RETURNING id`,
        [batchId],
      )) as unknown[];
      return claimed.length > 0;
    },
    async visiblePostIds(slugs) {
      const posts = (await manager.query(
        `SELECT id, slug FROM posts.posts p WHERE slug = ANY($1) AND ${VISIBILITY_SQL.visible}`,
        [slugs],
      )) as { id: number; slug: string }[];
      return new Map(posts.map((p) => [p.slug, p.id]));
    },
    async addDays(rows) {
      await manager.query(
        `INSERT INTO posts.view_days (day, path, post_id, views, visitors)
         SELECT * FROM unnest($1::date[], $2::text[], $3::int[], $4::int[], $5::int[])
         ON CONFLICT (day, path) DO UPDATE SET views = posts.view_days.views + EXCLUDED.views,
           visitors = posts.view_days.visitors + EXCLUDED.visitors,
           post_id = coalesce(EXCLUDED.post_id, posts.view_days.post_id)`,
        [
          rows.map((r) => r.day),
          rows.map((r) => r.path),
          rows.map((r) => r.postId),
          rows.map((r) => r.views),
          rows.map((r) => r.visitors),
        ],
      );
    },
    async addFacets(rows) {
      await manager.query(
        `INSERT INTO posts.view_day_facets (day, path, post_id, kind, value, views)
         SELECT * FROM unnest($1::date[], $2::text[], $3::int[], $4::text[], $5::text[], $6::int[])
         ON CONFLICT (day, path, kind, value) DO UPDATE SET views = posts.view_day_facets.views + EXCLUDED.views`,
        [
          rows.map((r) => r.day),
          rows.map((r) => r.path),
          rows.map((r) => r.postId),
          rows.map((r) => r.kind),
          rows.map((r) => r.value),
          rows.map((r) => r.views),
        ],
      );
    },
    async pruneBatches() {
      await manager.query(`DELETE FROM posts.view_batches WHERE at < now() - interval '1 day'`);
    },
  };
}
