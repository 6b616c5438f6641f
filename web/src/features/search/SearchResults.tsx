import { useEffect } from 'react';
import { useLocation } from 'react-router-dom';
import { Link } from '../../components/Link';
import { PostList } from '../../components/PostList';
import { SEARCH_PAGE_SIZE, type ListData } from '../../loaders';
import { useSite } from '../../site/SiteContext';

/** Search results replace the routed page while a query is active (docs/product.md#screens). */
export function SearchResults({ query, posts }: { query: string; posts: ListData }) {
  const site = useSite();
  const { pathname } = useLocation();

  useEffect(() => {
    document.title = site.searchTitle;
  }, [site, query]);

  return (
    <section aria-labelledby="search-heading" className="search-results">
      <div className="search-results-header">
        <h1 id="search-heading">Search Results for &quot;{query}&quot;</h1>
        <Link className="button button-secondary" to={pathname}>
          Clear search
        </Link>
      </div>
      <PostList
        posts={posts}
        pageSize={SEARCH_PAGE_SIZE}
        variant="search"
        loadingText="Searching..."
        emptyText={`No posts found matching "${query}"`}
        label="Search results"
      />
    </section>
  );
}
