import { useEffect, useRef } from 'react';
import { Outlet, useLocation, useSearchParams } from 'react-router-dom';
import { activeQuery } from '../features/search/searchParams';
import { useViewBeacon } from '../hooks/useViewBeacon';
import { SearchResults } from '../features/search/SearchResults';
import { Footer } from './Footer';
import { NavBar } from './NavBar';
import { SiteHeader } from './SiteHeader';
import { TopBar } from './TopBar';

/** Page frame shared by every route: top bar, header banner, navigation, the page, footer. */
export function Layout() {
  const mainRef = useRef<HTMLElement>(null);
  const { pathname, search } = useLocation();
  const [params] = useSearchParams();
  const query = activeQuery(params);
  const firstLocation = useRef(pathname + search);
  useViewBeacon();

  // After an in-app navigation, keyboard and screen-reader users start at the new page's content.
  useEffect(() => {
    if (pathname + search === firstLocation.current) return;
    firstLocation.current = '';
    mainRef.current?.focus({ preventScroll: true });
    // Only a new page or a new query moves focus; a page change within a list keeps it there.
  }, [pathname, query]);

  return (
    <div className="app">
      <a className="skip-link" href="#main">
        Skip to main content
      </a>
      <TopBar />
      <SiteHeader />
      <NavBar />
      <main id="main" ref={mainRef} className="main" tabIndex={-1}>
        {query ? <SearchResults key={query} query={query} /> : <Outlet />}
      </main>
      <Footer />
    </div>
  );
}
