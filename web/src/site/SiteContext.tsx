import type { SiteConfig } from '@blog/contracts/site';
import { createContext, useContext, useSyncExternalStore, type ReactNode } from 'react';
import type { SiteStore } from './siteStore';

const SiteStoreContext = createContext<SiteStore | null>(null);

/** The site configuration for every page: the texts and the category tree the menus and routes come from. */
export function SiteProvider({ store, children }: { store: SiteStore; children: ReactNode }) {
  return <SiteStoreContext.Provider value={store}>{children}</SiteStoreContext.Provider>;
}

function useSiteStore(): SiteStore {
  const store = useContext(SiteStoreContext);
  if (!store) throw new Error('useSite must be used inside <SiteProvider>');
  return store;
}

/**
 * The site configuration. The root route's loader has it before any page renders (on the
 * server and in the browser), so every screen under the router has it.
 */
export function useSite(): SiteConfig {
  const store = useSiteStore();
  return useSyncExternalStore(store.subscribe, store.get, store.get)!;
}

/** Puts a newly saved configuration into the page (the dashboard's Site tab). */
export function useReplaceSite(): (site: SiteConfig) => void {
  return useSiteStore().replace;
}
