import type { ReactNode } from 'react';
import { ApiProvider } from './api/ApiContext';
import type { ApiClient } from './api/client';
import { SessionProvider } from './session/SessionContext';
import type { SessionStore } from './session/store';
import { SiteProvider } from './site/SiteContext';
import type { SiteStore } from './site/siteStore';

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
        <SiteProvider store={props.site}>{props.children}</SiteProvider>
      </ApiProvider>
    </SessionProvider>
  );
}
