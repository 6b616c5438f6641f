import { randomUUID } from 'node:crypto';
import { siteNodes, type SiteConfig, type SiteNodeInfo } from '@blog/contracts';
import {
  SiteSettingsRepository,
  type SiteChange,
  type StoredSite,
} from '../../src/site/site-settings.repository.js';

export interface StoredPost {
  slug: string;
  placeId: string | null;
  labels: (string | null)[];
}

interface Rows {
  config?: SiteConfig;
  version: number;
  redirects: Map<string, string>;
  posts: StoredPost[];
}

/**
 * SiteSettingsRepository over plain objects, with the answers of PostgreSQL. `transaction`
 * stands in for IdempotencyLedger.write: a change that throws leaves the rows as they were.
 */
export class InMemorySiteSettingsRepository extends SiteSettingsRepository {
  rows: Rows = { version: 0, redirects: new Map(), posts: [] };
  /** The id the seeded row gets (PostgreSQL's gen_random_uuid default). */
  readonly madeBlogId = randomUUID();
  private readonly listeners = new Set<() => void>();

  async transaction<T>(work: () => Promise<T>): Promise<T> {
    const before = structuredClone(this.rows);
    try {
      const answer = await work();
      for (const listener of this.listeners) listener();
      return answer;
    } catch (error) {
      this.rows = before;
      throw error;
    }
  }

  /** Another replica's change, announced as its commit would be. */
  storeElsewhere(config: SiteConfig): void {
    this.rows.config = config;
    this.rows.version += 1;
    for (const listener of this.listeners) listener();
  }

  async seed(config: SiteConfig): Promise<void> {
    if (this.rows.config) return;
    this.rows.config = structuredClone(config);
    this.rows.version = 1;
  }

  async storedVersion(): Promise<number | undefined> {
    return this.rows.config ? this.rows.version : undefined;
  }

  async blogId(): Promise<string | undefined> {
    return this.rows.config ? this.madeBlogId : undefined;
  }

  async load(): Promise<StoredSite | undefined> {
    const { config, version, redirects } = this.rows;
    return config && { config: structuredClone(config), version, redirects: Object.fromEntries(redirects) };
  }

  change(): SiteChange {
    const rows = () => this.rows;
    return {
      lockedConfig: async () => structuredClone(rows().config!),
      usedSlug: async (slugs) => rows().posts.find((post) => slugs.includes(post.slug))?.slug,
      placePosts: async (placeIds: string[], node: SiteNodeInfo) => {
        for (const post of rows().posts)
          if (post.placeId && placeIds.includes(post.placeId)) {
            post.placeId = node.id;
            post.labels = [node.labels[0]!, node.labels[1]!, node.labels[2] ?? null];
          }
      },
      postCounts: async (placeIds) => {
        const counts = new Map<string, number>();
        for (const { placeId } of rows().posts)
          if (placeId && placeIds.includes(placeId)) counts.set(placeId, (counts.get(placeId) ?? 0) + 1);
        return [...counts].map(([id, n]) => ({ id, n }));
      },
      redirect: async (from, to) => {
        const { redirects } = rows();
        for (const [old, current] of redirects) if (current === from) redirects.set(old, to);
        redirects.set(from, to);
      },
      dropRedirects: async (paths) => {
        const { redirects } = rows();
        for (const [from, to] of redirects) if (paths.includes(from) || from === to) redirects.delete(from);
      },
      save: async (config) => {
        rows().config = structuredClone(config);
        rows().version += 1;
        return structuredClone(config);
      },
      clearRedirects: async () => rows().redirects.clear(),
      unplacePostsOutside: async (placeIds) => {
        for (const post of rows().posts)
          if (post.placeId && !placeIds.includes(post.placeId)) post.placeId = null;
      },
      placeByLabels: (site) => this.placeUnplacedPosts(site),
      unplacedPosts: async () => rows().posts.filter((post) => !post.placeId).length,
    };
  }

  async placeUnplacedPosts(site: SiteConfig): Promise<void> {
    const leaves = siteNodes(site).filter((node) => node.leaf);
    const same = (a: string | null | undefined, b: string | null | undefined) =>
      (a ?? '').toLowerCase() === (b ?? '').toLowerCase();
    for (const post of this.rows.posts) {
      if (post.placeId) continue;
      const leaf = leaves.find((node) => node.labels.every((label, i) => same(label, post.labels[i])));
      if (leaf && same(leaf.labels[2], post.labels[2])) post.placeId = leaf.id;
    }
  }

  async listen(onChange: () => void): Promise<() => void> {
    this.listeners.add(onChange);
    return () => this.listeners.delete(onChange);
  }
}
