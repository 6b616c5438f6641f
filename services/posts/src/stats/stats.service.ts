import { Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  buildPostPath,
  DEVICE_CLASSES,
  RAW_VIEW_DAYS,
  STATS_LIVE_MINUTES,
  type StatsQuery,
  type StatsReport,
  type ViewBatch,
} from '@blog/contracts';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { SiteSettings } from '../site/site-settings.service.js';
import { VISIBILITY_SQL } from '../posts/visibility.js';

const TOP = 10;
/** How often raw views older than RAW_VIEW_DAYS are folded into daily totals. */
const FOLD_EVERY_MS = 60 * 60 * 1000;

const isoDay = (date: Date) => date.toISOString().slice(0, 10);

/**
 * Stores counted views and answers the Stats tab. Raw rows stay RAW_VIEW_DAYS days, then
 * fold() sums them into daily totals (per path, the site's path '', and per referrer host,
 * device and country) in one transaction and deletes them; a range mixes both.
 */
@Injectable()
export class StatsService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(StatsService.name);
  private timer?: NodeJS.Timeout;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly settings: SiteSettings,
  ) {}

  onModuleInit(): void {
    this.timer = setInterval(
      () => void this.fold().catch((error: Error) => this.logger.warn(`views not folded: ${error.message}`)),
      FOLD_EVERY_MS,
    );
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /**
   * The salt of `day` (made on first use, the same for every replica); salts of earlier days
   * are deleted, so yesterday's visitor keys can no longer be linked to anyone.
   */
  async salt(day: string): Promise<string> {
    await this.db.query(
      `INSERT INTO posts.view_salts (day, salt) VALUES ($1, $2) ON CONFLICT (day) DO NOTHING`,
      [day, randomBytes(32)],
    );
    await this.db.query(`DELETE FROM posts.view_salts WHERE day < $1`, [day]);
    const [row] = (await this.db.query(`SELECT salt FROM posts.view_salts WHERE day = $1`, [day])) as {
      salt: Buffer;
    }[];
    return row!.salt.toString('hex');
  }

  /** A batch once: its id is kept (a day) so a retry after a lost answer counts nothing twice. */
  async record(batch: ViewBatch): Promise<{ recorded: number }> {
    return this.db.transaction(async (manager) => {
      const claimed = (await manager.query(
        `INSERT INTO posts.view_batches (id) VALUES ($1) ON CONFLICT (id) DO NOTHING RETURNING id`,
        [batch.id],
      )) as unknown[];
      if (!claimed.length || !batch.views.length) return { recorded: 0 };
      const slugs = [...new Set(batch.views.filter((v) => v.kind === 'post' && v.slug).map((v) => v.slug!))];
      const posts = slugs.length
        ? ((await manager.query(
            `SELECT id, slug FROM posts.posts p WHERE slug = ANY($1) AND ${VISIBILITY_SQL.visible}`,
            [slugs],
          )) as { id: number; slug: string }[])
        : [];
      const ids = new Map(posts.map((p) => [p.slug, p.id]));
      // A post path whose post a visitor cannot see counts nothing.
      const views = batch.views.filter((v) => v.kind !== 'post' || ids.has(v.slug ?? ''));
      if (views.length)
        await manager.query(
          `INSERT INTO posts.page_views (at, day, path, post_id, visitor, referrer_host, device, country)
           SELECT at, at::date, path, post_id, visitor, referrer_host, device, country
           FROM unnest($1::timestamptz[], $2::text[], $3::int[], $4::text[], $5::text[], $6::text[], $7::text[])
             AS v(at, path, post_id, visitor, referrer_host, device, country)`,
          [
            views.map((v) => v.at),
            views.map((v) => v.path),
            views.map((v) => (v.kind === 'post' ? ids.get(v.slug!)! : null)),
            views.map((v) => v.visitor),
            views.map((v) => v.referrerHost),
            views.map((v) => v.device),
            views.map((v) => v.country),
          ],
        );
      await manager.query(`DELETE FROM posts.view_batches WHERE at < now() - interval '1 day'`);
      return { recorded: views.length };
    });
  }

  /** Raw views of days before (today - RAW_VIEW_DAYS) become daily totals; the totals stay the same. */
  async fold(today: Date = new Date()): Promise<{ days: number }> {
    const before = new Date(today.getTime() - RAW_VIEW_DAYS * 86_400_000);
    return this.db.transaction(async (manager) => {
      const cutoff = isoDay(before);
      await manager.query(
        `INSERT INTO posts.view_days (day, path, post_id, views, visitors)
         SELECT day, path, max(post_id), count(*), count(DISTINCT visitor) FROM posts.page_views WHERE day < $1 GROUP BY day, path
         UNION ALL
         SELECT day, '', NULL, count(*), count(DISTINCT visitor) FROM posts.page_views WHERE day < $1 GROUP BY day
         ON CONFLICT (day, path) DO UPDATE SET views = posts.view_days.views + EXCLUDED.views,
           visitors = posts.view_days.visitors + EXCLUDED.visitors`,
        [cutoff],
      );
      await manager.query(
        `INSERT INTO posts.view_day_facets (day, kind, value, views)
         SELECT day, 'referrer', referrer_host, count(*) FROM posts.page_views WHERE day < $1 AND referrer_host IS NOT NULL GROUP BY day, referrer_host
         UNION ALL SELECT day, 'device', device, count(*) FROM posts.page_views WHERE day < $1 GROUP BY day, device
         UNION ALL SELECT day, 'country', country, count(*) FROM posts.page_views WHERE day < $1 AND country IS NOT NULL GROUP BY day, country
         ON CONFLICT (day, kind, value) DO UPDATE SET views = posts.view_day_facets.views + EXCLUDED.views`,
        [cutoff],
      );
      const [, deleted] = (await manager.query(`DELETE FROM posts.page_views WHERE day < $1`, [cutoff])) as [
        unknown,
        number,
      ];
      return { days: deleted };
    });
  }

  async stats(query: StatsQuery, now: Date = new Date()): Promise<StatsReport> {
    const { from, to, postId } = query;
    const post = postId ? `AND post_id = ${Number(postId)}` : '';
    const dayRows = (await this.db.query(
      `SELECT day::text AS date, sum(views)::int AS views, sum(visitors)::int AS visitors FROM (
         SELECT day, count(*) AS views, count(DISTINCT visitor) AS visitors FROM posts.page_views
           WHERE day BETWEEN $1 AND $2 ${post} GROUP BY day
         UNION ALL
         SELECT day, views, visitors FROM posts.view_days
           WHERE day BETWEEN $1 AND $2 ${postId ? post : "AND path = ''"}
       ) d GROUP BY day`,
      [from, to],
    )) as { date: string; views: number; visitors: number }[];
    const byDay = new Map(dayRows.map((r) => [r.date, r]));
    const days: StatsReport['days'] = [];
    for (let at = Date.parse(`${from}T00:00:00Z`); at <= Date.parse(`${to}T00:00:00Z`); at += 86_400_000) {
      const date = isoDay(new Date(at));
      days.push({ date, views: byDay.get(date)?.views ?? 0, visitors: byDay.get(date)?.visitors ?? 0 });
    }
    const top = (await this.db.query(
      `SELECT t.post_id AS "postId", p.title, p.slug, p.category, p.submenu1, p.submenu2,
              sum(t.views)::int AS views, sum(t.visitors)::int AS visitors FROM (
         SELECT post_id, day, count(*) AS views, count(DISTINCT visitor) AS visitors FROM posts.page_views
           WHERE day BETWEEN $1 AND $2 AND post_id IS NOT NULL ${post} GROUP BY post_id, day
         UNION ALL
         SELECT post_id, day, views, visitors FROM posts.view_days
           WHERE day BETWEEN $1 AND $2 AND post_id IS NOT NULL ${post}
       ) t JOIN posts.posts p ON p.id = t.post_id
       GROUP BY t.post_id, p.title, p.slug, p.category, p.submenu1, p.submenu2
       ORDER BY views DESC, t.post_id LIMIT ${TOP}`,
      [from, to],
    )) as {
      postId: number;
      title: string;
      slug: string;
      category: string;
      submenu1: string;
      submenu2: string | null;
      views: number;
      visitors: number;
    }[];
    const site = this.settings.current();
    const facet = async (kind: 'referrer' | 'device' | 'country', column: string) =>
      (await this.db.query(
        `SELECT value, sum(views)::int AS views FROM (
           SELECT ${column} AS value, count(*) AS views FROM posts.page_views
             WHERE day BETWEEN $1 AND $2 AND ${column} IS NOT NULL ${post} GROUP BY ${column}
           ${
             postId
               ? ''
               : `UNION ALL SELECT value, views FROM posts.view_day_facets WHERE day BETWEEN $1 AND $2 AND kind = '${kind}'`
           }
         ) f GROUP BY value ORDER BY views DESC, value LIMIT ${TOP}`,
        [from, to],
      )) as { value: string; views: number }[];
    const [live] = (await this.db.query(
      `SELECT count(DISTINCT visitor)::int AS n FROM posts.page_views WHERE at > $1 ${post}`,
      [new Date(now.getTime() - STATS_LIVE_MINUTES * 60_000)],
    )) as { n: number }[];
    const devices = new Map((await facet('device', 'device')).map((d) => [d.value, d.views]));
    return {
      days,
      topPosts: top.map((t) => ({
        postId: t.postId,
        title: t.title,
        url: buildPostPath(site, t),
        views: t.views,
        visitors: t.visitors,
      })),
      referrers: (await facet('referrer', 'referrer_host')).map((r) => ({ host: r.value, views: r.views })),
      devices: DEVICE_CLASSES.map((device) => ({ device, views: devices.get(device) ?? 0 })),
      countries: (await facet('country', 'country')).map((c) => ({
        country: c.value.trim(),
        views: c.views,
      })),
      live: live!.n,
    };
  }

  /** Views of each post in the last 30 days (the admin's post list). */
  async recentViews(ids: number[]): Promise<Record<number, number>> {
    if (!ids.length) return {};
    const rows = (await this.db.query(
      `SELECT post_id, count(*)::int AS views FROM posts.page_views
       WHERE post_id = ANY($1) AND day > current_date - $2::int GROUP BY post_id`,
      [ids, RAW_VIEW_DAYS],
    )) as { post_id: number; views: number }[];
    return Object.fromEntries(rows.map((r) => [r.post_id, r.views]));
  }
}
