import { useEffect, useRef } from 'react';
import { Outlet, useLocation } from 'react-router-dom';
import { Footer } from './Footer';
import { NavBar } from './NavBar';
import { SiteHeader } from './SiteHeader';
import { TopBar } from './TopBar';

/** Page frame shared by every route: top bar, header banner, navigation, the page, footer. */
export function Layout() {
  const mainRef = useRef<HTMLElement>(null);
  const { pathname } = useLocation();
  const firstPath = useRef(pathname);

  // After an in-app navigation, keyboard and screen-reader users start at the new page's content.
  useEffect(() => {
    if (pathname === firstPath.current) return;
    firstPath.current = '';
    mainRef.current?.focus({ preventScroll: true });
  }, [pathname]);

  return (
    <div className="app">
      <a className="skip-link" href="#main">
        Skip to main content
      </a>
      <TopBar />
      <SiteHeader />
      <NavBar />
      <main id="main" ref={mainRef} className="main" tabIndex={-1}>
        <Outlet />
      </main>
      <Footer />
    </div>
  );
}
