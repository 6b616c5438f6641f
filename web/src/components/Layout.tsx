import { useEffect, useRef, type ReactNode } from 'react';
import { Outlet, useLocation, useNavigation, useRouteLoaderData } from 'react-router-dom';
import { activeQuery } from '../lib/searchParams';
import { useViewBeacon } from '../hooks/useViewBeacon';
import { loadingTextFor } from '../lib/loadingText';
import type { RootData } from '../loaders';
import { useSite } from '../site/SiteContext';
import { Footer } from './Footer';
import { NavBar } from './NavBar';
import { SiteHeader } from './SiteHeader';
import { TopBar } from './TopBar';

type Search = NonNullable<RootData['search']>;

/**
 * Page frame shared by every route: top bar, header banner, navigation, the page, footer. A
 * search (`?q=` on any page) shows `searchResults` in place of the page; the app shell passes
 * them in, so this frame depends on no feature.
 */
export function Layout({ searchResults }: { searchResults(search: Search): ReactNode }) {
  const mainRef = useRef<HTMLElement>(null);
  const { pathname, search } = useLocation();
  const query = activeQuery(new URLSearchParams(search));
  const root = useRouteLoaderData('root') as RootData | undefined;
  const site = useSite();
  const navigation = useNavigation();
  const firstLocation = useRef(pathname + search);
  useViewBeacon();

  // The app runs in the page (hydrated, or drawn in the browser); browser tests wait for this mark.
  useEffect(() => {
    document.documentElement.dataset.hydrated = 'true';
  }, []);

  // After an in-app navigation, keyboard and screen-reader users start at the new page's content.
  useEffect(() => {
    if (pathname + search === firstLocation.current) return;
    firstLocation.current = '';
    mainRef.current?.focus({ preventScroll: true });
    // Only a new page or a new query moves focus; a page change within a list keeps it there.
  }, [pathname, query]);

  // Another page (or another search) on its way: its loading text stands in for this page. A
  // new page number of the same list keeps the page, and the list says it is loading.
  const next = navigation.state === 'loading' ? navigation.location : null;
  const leaving =
    next !== null && (next.pathname !== pathname || activeQuery(new URLSearchParams(next.search)) !== query);

  return (
    <div className="app">
      <a className="skip-link" href="#main">
        Skip to main content
      </a>
      <TopBar />
      <SiteHeader />
      <NavBar />
      <main id="main" ref={mainRef} className="main" tabIndex={-1}>
        {leaving ? (
          <p role="status" className="loading">
            {loadingTextFor(site, next)}
          </p>
        ) : root?.search ? (
          searchResults(root.search)
        ) : (
          <Outlet />
        )}
      </main>
      <Footer />
    </div>
  );
}

/** The site configuration itself could not be loaded: nothing else can be drawn. */
export function RootError() {
  return (
    <main id="main" className="main">
      <p role="alert" className="form-error">
        The site could not be loaded. Please reload the page.
      </p>
    </main>
  );
}
