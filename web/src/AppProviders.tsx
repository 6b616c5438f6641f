import { useEffect, type ReactNode } from 'react';
import { ApiProvider } from './api/ApiContext';
import type { ApiClient } from './api/client';
import { SessionProvider } from './session/SessionContext';
import type { SessionStore } from './session/store';
import { SiteProvider } from './site/SiteContext';
import type { SiteStore } from './site/siteStore';

/**
 * Marks the page once the app runs in it (hydrated, or drawn in the browser): until then a
 * server-rendered page is only its HTML. Browser tests wait for it before they click or type.
 */
function HydratedMark() {
  useEffect(() => {
    document.documentElement.dataset.hydrated = 'true';
  }, []);
  return null;
}

/** What every screen reads besides its route data, the same on the server and in the browser. */
export function AppProviders(props: {
  session: SessionStore;
  api: ApiClient;
  site: SiteStore;
  children: ReactNode;
}) {
  return (
    <SessionProvider store={props.session}>
      <ApiProvider client={props.api}>
        <SiteProvider store={props.site}>
          {props.children}
          <HydratedMark />
        </SiteProvider>
      </ApiProvider>
    </SessionProvider>
  );
}
