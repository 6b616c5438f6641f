import { Link } from 'react-router-dom';
import { site } from '../config';

/** The banner area with the site title (the banner image and search box come later). */
export function SiteHeader() {
  return (
    <header className="site-header">
      <div className="banner">
        <Link to="/" className="site-title">
          {site.title}
        </Link>
      </div>
    </header>
  );
}
