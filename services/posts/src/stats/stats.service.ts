import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
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
import { SiteSettings } from '../site/site-settings.js';
import { VISITOR_STORE } from '../tokens.js';
import { StatsRepository, type DayRow, type FacetKind, type FacetRow } from './stats.repository.js';
import type { VisitorStore } from './visitor-store.js';

const isoDay = (date: Date) => date.toISOString().slice(0, 10);

const TOP = 10;
/** How often batch ids older than a day are deleted. */
const BATCH_PRUNE_EVERY_MS = 60_000;

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
    private readonly store: StatsRepository,
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
    return this.store.recordBatch(async (write) => {
      if (!(await write.claim(batch.id)) || !batch.views.length) return { recorded: 0 };
      const slugs = [...new Set(batch.views.filter((v) => v.kind === 'post' && v.slug).map((v) => v.slug!))];
      const ids = slugs.length ? await write.visiblePostIds(slugs) : new Map<string, number>();
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
        kind: FacetKind,
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
      await write.addDays(dayRows);
      await write.addFacets(facetRows);
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
        await write.pruneBatches();
      }
      return { recorded: views.length };
    });
  }

  async stats(query: StatsQuery, now: Date = new Date()): Promise<StatsReport> {
    const { from, to, postId } = query;
    const range = { from, to, postId };
    const dayRows = await this.store.dailyTotals(range);
    const byDay = new Map(dayRows.map((r) => [r.date, r]));
    const days: StatsReport['days'] = [];
    for (let at = Date.parse(`${from}T00:00:00Z`); at <= Date.parse(`${to}T00:00:00Z`); at += 86_400_000) {
      const date = isoDay(new Date(at));
      days.push({ date, views: byDay.get(date)?.views ?? 0, visitors: byDay.get(date)?.visitors ?? 0 });
    }
    const top = await this.store.topPosts(range, TOP);
    const site = this.settings.current();
    const facet = (kind: FacetKind) => this.store.facetTotals(range, kind, TOP);
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
    const rows = await this.store.recentViews(ids, RECENT_VIEW_DAYS);
    return Object.fromEntries(rows.map((r) => [r.postId, r.views]));
  }
}
