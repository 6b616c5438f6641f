import type { MouseEvent } from 'react';
import { useLocation } from 'react-router-dom';
import { Link } from './Link';
import { pageCount, pageLinks } from '../lib/pagination';

interface PaginationProps {
  page: number;
  pageSize: number;
  total: number;
  /** Names the list for screen readers when a page has two bars (above and below the list). */
  label: string;
  /** Called instead of following the link (the dashboard's lists keep their own state too). */
  onPageChange?(page: number): void;
  /** Called as a page link is followed (the public lists scroll to their top). */
  onFollow?(): void;
}

/** This location with `?page=` set to `page` (page 1 leaves it out), other parameters kept. */
function pageHref(search: string, pathname: string, page: number): string {
  const params = new URLSearchParams(search);
  if (page <= 1) params.delete('page');
  else params.set('page', String(page));
  const query = params.toString();
  return query ? `${pathname}?${query}` : pathname;
}

/**
 * The one pagination bar of every list (docs/product.md#screens): Previous and Next, page numbers in a
 * window of 5 with ellipses, and 'Page X of Y (N total results)'. Each is a real link
 * (`?page=`), so a list pages without JavaScript and a page can be opened in a new tab.
 */
export function Pagination({ page, pageSize, total, label, onPageChange, onFollow }: PaginationProps) {
  const { pathname, search } = useLocation();
  const pages = pageCount(total, pageSize);
  if (total <= pageSize && page <= 1) return null;
  const follow = (target: number) => (event: MouseEvent) => {
    if (onPageChange) {
      event.preventDefault();
      onPageChange(target);
    }
    onFollow?.();
  };
  const step = (target: number, text: string, enabled: boolean) =>
    enabled ? (
      <Link
        className="button button-secondary"
        to={pageHref(search, pathname, target)}
        onClick={follow(target)}
      >
        {text}
      </Link>
    ) : (
      <span className="button button-secondary" aria-disabled="true">
        {text}
      </span>
    );
  return (
    <nav className="pagination" aria-label={label}>
      {step(page - 1, 'Previous', page > 1)}
      <ul className="pagination-pages">
        {pageLinks(page, pages).map((link) =>
          typeof link === 'number' ? (
            <li key={link}>
              <Link
                className={link === page ? 'page-button current' : 'page-button'}
                aria-current={link === page ? 'page' : undefined}
                aria-label={`Page ${link}`}
                to={pageHref(search, pathname, link)}
                onClick={follow(link)}
              >
                {link}
              </Link>
            </li>
          ) : (
            <li key={link} className="pagination-ellipsis" aria-hidden="true">
              …
            </li>
          ),
        )}
      </ul>
      {step(page + 1, 'Next', page < pages)}
      <p className="pagination-info">
        Page {Math.min(page, pages)} of {pages} ({total} total results)
      </p>
    </nav>
  );
}
