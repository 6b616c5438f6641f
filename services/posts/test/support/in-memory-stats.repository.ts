import {
  StatsRepository,
  type DayRow,
  type FacetKind,
  type FacetRow,
  type StatsRange,
  type TopPostRow,
} from '../../src/stats/stats.repository.js';

export interface StatsPost {
  id: number;
  slug: string;
  title: string;
  labels: [string, string, string | null];
  visible: boolean;
}

interface Rows {
  batches: Set<string>;
  days: Map<string, DayRow>;
  facets: Map<string, FacetRow>;
}

/** StatsRepository over plain maps, with the answers of PostgreSQL; a batch that throws stores nothing. */
export class InMemoryStatsRepository extends StatsRepository {
  rows: Rows = { batches: new Set(), days: new Map(), facets: new Map() };
  posts: StatsPost[] = [];
  /** Days whose rows are asked for by recentViews: today is the last. */
  today = new Date().toISOString().slice(0, 10);

  async recordBatch<T>(work: Parameters<StatsRepository['recordBatch']>[0]): Promise<T> {
    const before = structuredClone(this.rows);
    try {
      return (await work({
        claim: async (id) => this.rows.batches.size !== this.rows.batches.add(id).size,
        visiblePostIds: async (slugs) =>
          new Map(this.posts.filter((p) => p.visible && slugs.includes(p.slug)).map((p) => [p.slug, p.id])),
        addDays: async (rows) => {
          for (const row of rows) {
            const key = `${row.day}\n${row.path}`;
            const kept = this.rows.days.get(key);
            if (!kept) this.rows.days.set(key, { ...row });
            else {
              kept.views += row.views;
              kept.visitors += row.visitors;
              kept.postId = row.postId ?? kept.postId;
            }
          }
        },
        addFacets: async (rows) => {
          for (const row of rows) {
            const key = `${row.day}\n${row.path}\n${row.kind}\n${row.value}`;
            const kept = this.rows.facets.get(key);
            if (kept) kept.views += row.views;
            else this.rows.facets.set(key, { ...row });
          }
        },
        pruneBatches: async () => undefined,
      })) as T;
    } catch (error) {
      this.rows = before;
      throw error;
    }
  }

  private inRange<R extends { day: string; path: string; postId: number | null }>(
    rows: Iterable<R>,
    range: StatsRange,
  ) {
    return [...rows].filter(
      (r) =>
        r.day >= range.from &&
        r.day <= range.to &&
        (range.postId ? r.postId === range.postId : r.path === ''),
    );
  }

  async dailyTotals(range: StatsRange) {
    const byDay = new Map<string, { date: string; views: number; visitors: number }>();
    for (const row of this.inRange(this.rows.days.values(), range)) {
      const total =
        byDay.get(row.day) ?? byDay.set(row.day, { date: row.day, views: 0, visitors: 0 }).get(row.day)!;
      total.views += row.views;
      total.visitors += row.visitors;
    }
    return [...byDay.values()];
  }

  async topPosts(range: StatsRange, limit: number): Promise<TopPostRow[]> {
    const byPost = new Map<number, TopPostRow>();
    for (const row of this.rows.days.values()) {
      if (row.day < range.from || row.day > range.to || row.postId === null) continue;
      if (range.postId && row.postId !== range.postId) continue;
      const post = this.posts.find((p) => p.id === row.postId);
      if (!post) continue;
      const top =
        byPost.get(post.id) ??
        byPost
          .set(post.id, {
            postId: post.id,
            title: post.title,
            slug: post.slug,
            category: post.labels[0],
            submenu1: post.labels[1],
            submenu2: post.labels[2],
            views: 0,
            visitors: 0,
          })
          .get(post.id)!;
      top.views += row.views;
      top.visitors += row.visitors;
    }
    return [...byPost.values()].sort((a, b) => b.views - a.views || a.postId - b.postId).slice(0, limit);
  }

  async facetTotals(range: StatsRange, kind: FacetKind, limit: number) {
    const byValue = new Map<string, number>();
    for (const row of this.inRange(this.rows.facets.values(), range))
      if (row.kind === kind) byValue.set(row.value, (byValue.get(row.value) ?? 0) + row.views);
    return [...byValue]
      .map(([value, views]) => ({ value, views }))
      .sort((a, b) => b.views - a.views || (a.value < b.value ? -1 : 1))
      .slice(0, limit);
  }

  async recentViews(postIds: number[], days: number) {
    const since = new Date(Date.parse(`${this.today}T00:00:00Z`) - days * 86_400_000)
      .toISOString()
      .slice(0, 10);
    const byPost = new Map<number, number>();
    for (const row of this.rows.days.values())
      if (row.postId !== null && postIds.includes(row.postId) && row.day > since)
        byPost.set(row.postId, (byPost.get(row.postId) ?? 0) + row.views);
    return [...byPost].map(([postId, views]) => ({ postId, views }));
  }
}
