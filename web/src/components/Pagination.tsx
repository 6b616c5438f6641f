import { pageCount, pageLinks } from '../lib/pagination';

interface PaginationProps {
  page: number;
  pageSize: number;
  total: number;
  onPageChange(page: number): void;
  /** Names the list for screen readers when a page has two bars (above and below the list). */
  label: string;
}

/**
 * The one pagination bar of every list (SPEC.md §2): Previous and Next, page numbers in a
 * window of 5 with ellipses, and 'Page X of Y (N total results)'.
 */
export function Pagination({ page, pageSize, total, onPageChange, label }: PaginationProps) {
  const pages = pageCount(total, pageSize);
  if (total <= pageSize && page <= 1) return null;
  return (
    <nav className="pagination" aria-label={label}>
      <button
        type="button"
        className="button button-secondary"
        onClick={() => onPageChange(page - 1)}
        disabled={page <= 1}
      >
        Previous
      </button>
      <ul className="pagination-pages">
        {pageLinks(page, pages).map((link) =>
          typeof link === 'number' ? (
            <li key={link}>
              <button
                type="button"
                className={link === page ? 'page-button current' : 'page-button'}
                aria-current={link === page ? 'page' : undefined}
                aria-label={`Page ${link}`}
                onClick={() => link !== page && onPageChange(link)}
              >
                {link}
              </button>
            </li>
          ) : (
            <li key={link} className="pagination-ellipsis" aria-hidden="true">
              …
            </li>
          ),
        )}
      </ul>
      <button
        type="button"
        className="button button-secondary"
        onClick={() => onPageChange(page + 1)}
        disabled={page >= pages}
      >
        Next
      </button>
      <p className="pagination-info">
        Page {Math.min(page, pages)} of {pages} ({total} total results)
      </p>
    </nav>
  );
}
