import { useEffect } from 'react';
import { useLocation, useNavigate } from 'react-router-dom';
import { PostList } from '../../components/PostList';
import { useSite } from '../../site/SiteContext';

export const SEARCH_PAGE_SIZE = 15;

/** Search results replace the routed page while a query is active (SPEC.md §2). */
export function SearchResults({ query }: { query: string }) {
  const site = useSite();
  const navigate = useNavigate();
  const { pathname } = useLocation();

  useEffect(() => {
    if (site) document.title = site.searchTitle;
  }, [site, query]);

  return (
    <section aria-labelledby="search-heading" className="search-results">
      <div className="search-results-header">
        <h1 id="search-heading">Search Results for &quot;{query}&quot;</h1>
        <button type="button" className="button button-secondary" onClick={() => navigate(pathname)}>
          Clear search
        </button>
      </div>
      <PostList
        query={{ search: query }}
        pageSize={SEARCH_PAGE_SIZE}
        variant="search"
        loadingText="Searching..."
        emptyText={`No posts found matching "${query}"`}
        label="Search results"
      />
    </section>
  );
}
