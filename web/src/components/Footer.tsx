import { Link } from './Link';
import { useSite } from '../site/SiteContext';
import { FollowOnMastodon } from './FediverseHandle';

export function Footer() {
  const site = useSite();
  return (
    <footer className="site-footer">
      <nav aria-label="Footer">
        <ul className="footer-links">
          <li>
            <Link to="/about">About</Link>
          </li>
          <li>
            <Link to="/contact">Contact</Link>
          </li>
        </ul>
      </nav>
      <FollowOnMastodon variant="footer" />
      <p className="copyright">{site.footerText}</p>
    </footer>
  );
}
