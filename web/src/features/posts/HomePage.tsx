import { PostList } from '../../components/PostList';
import { usePageTitle } from '../../hooks/usePageTitle';
import { useSite } from '../../site/SiteContext';

/** Home list page size (SPEC.md §9: 15; the spec's other reading, 30, is the category pages'). */
export const HOME_PAGE_SIZE = 15;

/** Home: the author's welcome card and the Latest Posts, 15 a page (SPEC.md §2). */
export function HomePage() {
  const site = useSite();
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
          query={{}}
          pageSize={HOME_PAGE_SIZE}
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
