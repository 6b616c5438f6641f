import { useApi } from '../../api/ApiContext';
import { listPosts } from '../../api/posts';
import { PostList } from '../../components/PostList';
import { useAsync } from '../../hooks/useAsync';
import { usePageTitle } from '../../hooks/usePageTitle';
import { usePageParam } from '../../hooks/usePageParam';
import { useSite } from '../../site/SiteContext';

/** Home list page size (SPEC.md §9: 15; the spec's other reading, 30, is the category pages'). */
export const HOME_PAGE_SIZE = 15;

/** Home: the author's welcome card and the Latest Posts, 15 a page (SPEC.md §2). */
export function HomePage() {
  const api = useApi();
  const site = useSite();
  const [page, setPage] = usePageParam();
  const state = useAsync((signal) => listPosts(api, { page, limit: HOME_PAGE_SIZE }, signal), [api, page]);
  usePageTitle();

  return (
    <>
      <section className="card welcome-card" aria-labelledby="welcome-heading">
        <h1 id="welcome-heading">{site?.welcome.title ?? 'Welcome!'}</h1>
        {site && <p>{site.welcome.text}</p>}
      </section>
      <section aria-labelledby="latest-heading">
        <h2 id="latest-heading">Latest Posts</h2>
        <PostList
          state={state}
          page={page}
          pageSize={HOME_PAGE_SIZE}
          onPageChange={setPage}
          variant="home"
          loadingText="Loading posts..."
          emptyText="No posts yet."
          label="Latest posts"
          headingLevel="h3"
        />
      </section>
    </>
  );
}
