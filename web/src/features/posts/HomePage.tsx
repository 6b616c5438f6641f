import { useLoaderData } from 'react-router-dom';
import { PostList } from '../../components/PostList';
import { usePageTitle } from '../../hooks/usePageTitle';
import { HOME_PAGE_SIZE, type ListData } from '../../loaders';
import { useSite } from '../../site/SiteContext';

/** Home: the author's welcome card and the Latest Posts, 15 a page (docs/product.md#screens). */
export function HomePage() {
  const site = useSite();
  const { posts } = useLoaderData() as { posts: ListData };
  usePageTitle();

  return (
    <>
      <section className="card welcome-card" aria-labelledby="welcome-heading">
        <h1 id="welcome-heading">{site.welcome.title}</h1>
        <p>{site.welcome.text}</p>
      </section>
      <section aria-labelledby="latest-heading">
        <h2 id="latest-heading">Latest Posts</h2>
        <PostList
          posts={posts}
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
