import type { SiteConfig } from '@blog/contracts/site';
import type { ApiClient } from '../api/client';

/**
 * The site configuration as a small external store: the route loaders read it (the tree
 * decides what a path is), React subscribes to it, and the dashboard's Site tab replaces it
 * after a save. Filled from the page's loader data, or by one GET /api/site.
 */
export interface SiteStore {
  get(): SiteConfig | null;
  /** The configuration, asked of the API once when the page did not carry it. */
  load(signal?: AbortSignal): Promise<SiteConfig>;
  replace(site: SiteConfig): void;
  subscribe(listener: () => void): () => void;
}

export function createSiteStore(api: ApiClient, initial: SiteConfig | null): SiteStore {
  let current = initial;
  let loading: Promise<SiteConfig> | null = null;
  const listeners = new Set<() => void>();
  const store: SiteStore = {
    get: () => current,
    load(signal) {
      if (current) return Promise.resolve(current);
      loading ??= api.request<SiteConfig>('/api/site', { signal }).then(
        (site) => {
          store.replace(site);
          return site;
        },
        (error: unknown) => {
          loading = null;
          throw error;
        },
      );
      return loading;
    },
    replace(site) {
      current = site;
      listeners.forEach((listener) => listener());
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  return store;
}
