import type { SiteConfig } from '@blog/contracts/site';
import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from 'react';
import { useApi } from '../api/ApiContext';
import { preloadedSite } from '../lib/preloaded';

export type SiteState = { status: 'loading' } | { status: 'error' } | { status: 'ready'; site: SiteConfig };

const SiteContext = createContext<SiteState>({ status: 'loading' });
/** Puts a newly saved configuration into the page (the dashboard's Site tab). */
const ReplaceSiteContext = createContext<(site: SiteConfig) => void>(() => {});

/** The site config the server wrote into the page, else GET /api/site once: the texts and the category tree that the menus and routes come from. */
export function SiteProvider({ children }: { children: ReactNode }) {
  const api = useApi();
  const [state, setState] = useState<SiteState>(
    preloadedSite ? { status: 'ready', site: preloadedSite } : { status: 'loading' },
  );
  useEffect(() => {
    if (preloadedSite) return;
    const controller = new AbortController();
    api.request<SiteConfig>('/api/site', { signal: controller.signal }).then(
      (site) => setState({ status: 'ready', site }),
      () => {
        if (!controller.signal.aborted) setState({ status: 'error' });
      },
    );
    return () => controller.abort();
  }, [api]);
  const replace = useCallback((site: SiteConfig) => setState({ status: 'ready', site }), []);
  return (
    <ReplaceSiteContext.Provider value={replace}>
      <SiteContext.Provider value={state}>{children}</SiteContext.Provider>
    </ReplaceSiteContext.Provider>
  );
}

export function useSiteState(): SiteState {
  return useContext(SiteContext);
}

/** The site configuration, or null while it loads or when it failed. */
export function useSite(): SiteConfig | null {
  const state = useSiteState();
  return state.status === 'ready' ? state.site : null;
}

export function useReplaceSite(): (site: SiteConfig) => void {
  return useContext(ReplaceSiteContext);
}
