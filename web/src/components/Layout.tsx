import { Outlet } from 'react-router-dom';
import { Footer } from './Footer';
import { NavBar } from './NavBar';
import { SiteHeader } from './SiteHeader';
import { TopBar } from './TopBar';

/** Page frame shared by every route: top bar, header banner, navigation, the page, footer. */
export function Layout() {
  return (
    <div className="app">
      <a className="skip-link" href="#main">
        Skip to main content
      </a>
      <TopBar />
      <SiteHeader />
      <NavBar />
      <main id="main" className="main" tabIndex={-1}>
        <Outlet />
      </main>
      <Footer />
    </div>
  );
}
