import { Link } from 'react-router-dom';
import { site } from '../config';

export function Footer() {
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
      <p className="copyright">
        © {site.copyrightYear} {site.title}
      </p>
    </footer>
  );
}
