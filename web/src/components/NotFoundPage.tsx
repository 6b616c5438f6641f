import { Link } from './Link';
import { usePageTitle } from '../hooks/usePageTitle';

export function NotFoundPage() {
  usePageTitle();
  return (
    <section className="card" aria-labelledby="not-found-heading">
      <h1 id="not-found-heading">Page not found</h1>
      <p>
        <Link to="/">Back to Home</Link>
      </p>
    </section>
  );
}
