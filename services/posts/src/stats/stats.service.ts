import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  buildPostPath,
  DEVICE_CLASSES,
  RECENT_VIEW_DAYS,
  STATS_LIVE_MINUTES,
  type StatsQuery,
  type RecordedView,
  type StatsReport,
  type ViewBatch,
} from '@blog/contracts';
import { DataSource } from 'typeorm';
import { SiteSettings } from '../site/site-settings.service.js';
import { VISIBILITY_SQL } from '../posts/visibility.js';
import { VISITOR_STORE } from '../tokens.js';
import type { VisitorStore } from './visitor-store.js';

const isoDay = (date: Date) => date.toISOString().slice(0, 10);

const TOP = 10;
/** How often batch ids older than a day are deleted. */
const BATCH_PRUNE_EVERY_MS = 60_000;

/** One row of posts.view_days or posts.view_day_facets being added to. */
interface DayRow {
  day: string;
  path: string;
  postId: number | null;
  views: number;
  visitors: number;
}
/** Views of one batch alike in day, path, referrer, device and country (`view` is the first). */
interface ViewGroup {
  day: string;
  view: RecordedView;
  postId: number | null;
  views: number;
  siteVisitors: number;
  pathVisitors: number;
}
const isOfGroup = (group: ViewGroup, day: string, v: RecordedView) =>
  day === group.day &&
  v.path === group.view.path &&
  v.referrerHost === group.view.referrerHost &&
  v.device === group.view.device &&
  v.country === group.view.country;
interface FacetRow {
  day: string;
  path: string;
  postId: number | null;
  kind: 'referrer' | 'device' | 'country';
  value: string;
  views: number;
}

/**
 * Stores counted views as daily totals and answers the Stats tab. PostgreSQL holds aggregates
 * only: views and visitors per day and path (path '' is the whole site), and views per day by
 * referrer host, device and country (for the site, and per post path). Whether a view's
 * visitor is new that day is asked of the VisitorStore (memory or Redis, expiring), which also
 * holds the day's salt and the last minutes' visitors; no visitor key or salt is ever written
 * here, so no backup holds one.
 */
@Injectable()
export class StatsService implements OnApplicationShutdown {
  private batchesPrunedAt = 0;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly settings: SiteSettings,
    @Inject(VISITOR_STORE) private readonly visitors: VisitorStore,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await this.visitors.close();
  }

  /** The salt of `day`, shared by every replica, forgotten shortly after the day is over. */
  salt(day: string): Promise<string> {
    return this.visitors.salt(day);
  }

  /**
   * A batch once: its id is kept (a day) so a retry after a lost answer counts nothing twice.
   * The visitor store is asked inside the transaction; should the commit then fail, the retry
   * counts the views again but not their visitors (a day's visitors may come out a little low,
   * never high).
   */
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
      if (!views.length) return { recorded: 0 };
      const viewDays = views.map((v) => v.at.slice(0, 10));
      const first = await this.visitors.firstSeen(
        views.flatMap((v, i) => [
          { day: viewDays[i]!, scope: '', visitor: v.visitor },
          { day: viewDays[i]!, scope: v.path, visitor: v.visitor },
        ]),
      );
      // Views alike in day, path and facets are summed first: a batch has a few such groups
      // for many views, so the rows below are built per group, not per view.
      const groups = new Map<string, ViewGroup>();
      let group: ViewGroup | undefined;
      views.forEach((v, i) => {
        const day = viewDays[i]!;
        // Like the view before it (as in a burst on one page): no key to build and look up.
        if (!group || !isOfGroup(group, day, v)) {
          const key = `${day}\n${v.path}\n${v.referrerHost ?? '\0'}\n${v.device}\n${v.country ?? '\0'}`;
          group = groups.get(key);
          if (!group) {
            const postId = v.kind === 'post' ? ids.get(v.slug!)! : null;
            groups.set(key, (group = { day, view: v, postId, views: 0, siteVisitors: 0, pathVisitors: 0 }));
          }
        }
        group.views++;
        if (first[2 * i]) group.siteVisitors++;
        if (first[2 * i + 1]) group.pathVisitors++;
      });
      const days = new Map<string, DayRow>();
      const facets = new Map<string, FacetRow>();
      const addDay = (day: string, path: string, postId: number | null, views: number, visitors: number) => {
        const key = `${day}\n${path}`;
        const row = days.get(key) ?? days.set(key, { day, path, postId, views: 0, visitors: 0 }).get(key)!;
        row.views += views;
        row.visitors += visitors;
      };
      const addFacet = (
        day: string,
        path: string,
        postId: number | null,
        kind: FacetRow['kind'],
        value: string | null,
        views: number,
      ) => {
        if (value === null) return;
        const key = `${day}\n${path}\n${kind}\n${value}`;
        const row =
          facets.get(key) ?? facets.set(key, { day, path, postId, kind, value, views: 0 }).get(key)!;
        row.views += views;
      };
      for (const { day, view: v, postId, views: n, siteVisitors, pathVisitors } of groups.values()) {
        addDay(day, '', null, n, siteVisitors);
        addDay(day, v.path, postId, n, pathVisitors);
        // The site's facets, and a post's own (its statistics page shows them).
        for (const path of postId === null ? [''] : ['', v.path]) {
          const owner = path ? postId : null;
          addFacet(day, path, owner, 'referrer', v.referrerHost, n);
          addFacet(day, path, owner, 'device', v.device, n);
          addFacet(day, path, owner, 'country', v.country, n);
        }
      }
      // Rows in one order on every replica: two batches adding to the same rows wait, never deadlock.
      const dayRows = [...days.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, row]) => row);
      const facetRows = [...facets.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, row]) => row);
      await manager.query(
        `INSERT INTO posts.view_days (day, path, post_id, views, visitors)
         SELECT * FROM unnest($1::date[], $2::text[], $3::int[], $4::int[], $5::int[])
         ON CONFLICT (day, path) DO UPDATE SET views = posts.view_days.views + EXCLUDED.views,
           visitors = posts.view_days.visitors + EXCLUDED.visitors,
           post_id = coalesce(EXCLUDED.post_id, posts.view_days.post_id)`,
        [
          dayRows.map((r) => r.day),
          dayRows.map((r) => r.path),
          dayRows.map((r) => r.postId),
          dayRows.map((r) => r.views),
          dayRows.map((r) => r.visitors),
        ],
      );
      await manager.query(
        `INSERT INTO posts.view_day_facets (day, path, post_id, kind, value, views)
         SELECT * FROM unnest($1::date[], $2::text[], $3::int[], $4::text[], $5::text[], $6::int[])
         ON CONFLICT (day, path, kind, value) DO UPDATE SET views = posts.view_day_facets.views + EXCLUDED.views`,
        [
          facetRows.map((r) => r.day),
          facetRows.map((r) => r.path),
          facetRows.map((r) => r.postId),
          facetRows.map((r) => r.kind),
          facetRows.map((r) => r.value),
          facetRows.map((r) => r.views),
        ],
      );
      await this.visitors.touch(
        views.map((v) => ({
          visitor: v.visitor,
          postId: v.kind === 'post' ? ids.get(v.slug!)! : null,
          at: Date.parse(v.at),
        })),
      );
      // Ids past their day go once a minute, not in every batch's transaction.
      if (Date.now() - this.batchesPrunedAt >= BATCH_PRUNE_EVERY_MS) {
        this.batchesPrunedAt = Date.now();
        await manager.query(`DELETE FROM posts.view_batches WHERE at < now() - interval '1 day'`);
      }
      return { recorded: views.length };
    });
  }

  async stats(query: StatsQuery, now: Date = new Date()): Promise<StatsReport> {
    const { from, to, postId } = query;
    // One post's rows (any path it had), or the whole site's ('').
    const scope = postId ? `post_id = ${Number(postId)}` : `path = ''`;
    const dayRows = (await this.db.query(
      `SELECT day::text AS date, sum(views)::int AS views, sum(visitors)::int AS visitors
       FROM posts.view_days WHERE day BETWEEN $1 AND $2 AND ${scope} GROUP BY day`,
      [from, to],
    )) as { date: string; views: number; visitors: number }[];
    const byDay = new Map(dayRows.map((r) => [r.date, r]));
    const days: StatsReport['days'] = [];
    for (let at = Date.parse(`${from}T00:00:00Z`); at <= Date.parse(`${to}T00:00:00Z`); at += 86_400_000) {
      const date = isoDay(new Date(at));
      days.push({ date, views: byDay.get(date)?.views ?? 0, visitors: byDay.get(date)?.visitors ?? 0 });
    }
    const post = postId ? `AND post_id = ${Number(postId)}` : '';
    const top = (await this.db.query(
      `SELECT t.post_id AS "postId", p.title, p.slug, p.category, p.submenu1, p.submenu2,
              sum(t.views)::int AS views, sum(t.visitors)::int AS visitors
       FROM posts.view_days t JOIN posts.posts p ON p.id = t.post_id
       WHERE t.day BETWEEN $1 AND $2 AND t.post_id IS NOT NULL ${post}
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
    const facet = async (kind: 'referrer' | 'device' | 'country') =>
      (await this.db.query(
        `SELECT value, sum(views)::int AS views FROM posts.view_day_facets
         WHERE day BETWEEN $1 AND $2 AND kind = $3 AND ${scope}
         GROUP BY value ORDER BY views DESC, value LIMIT ${TOP}`,
        [from, to, kind],
      )) as { value: string; views: number }[];
    const live = await this.visitors.live(now.getTime() - STATS_LIVE_MINUTES * 60_000, postId);
    const devices = new Map((await facet('device')).map((d) => [d.value, d.views]));
    return {
      days,
      topPosts: top.map((t) => ({
        postId: t.postId,
        title: t.title,
        url: buildPostPath(site, t),
        views: t.views,
        visitors: t.visitors,
      })),
      referrers: (await facet('referrer')).map((r) => ({ host: r.value, views: r.views })),
      devices: DEVICE_CLASSES.map((device) => ({ device, views: devices.get(device) ?? 0 })),
      countries: (await facet('country')).map((c) => ({ country: c.value.trim(), views: c.views })),
      live,
    };
  }

  /** Views of each post in the last RECENT_VIEW_DAYS days (the admin's post list). */
  async recentViews(ids: number[]): Promise<Record<number, number>> {
    if (!ids.length) return {};
    const rows = (await this.db.query(
      `SELECT post_id, sum(views)::int AS views FROM posts.view_days
       WHERE post_id = ANY($1) AND day > current_date - $2::int GROUP BY post_id`,
      [ids, RECENT_VIEW_DAYS],
    )) as { post_id: number; views: number }[];
    return Object.fromEntries(rows.map((r) => [r.post_id, r.views]));
  }
}
