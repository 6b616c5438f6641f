import type { PostView } from '@blog/contracts/posts';
import { buildListingPath } from '@blog/contracts/urls';
import { useLocation, useRouteLoaderData } from 'react-router-dom';
import { Link } from '../../components/Link';
import { usePageTitle } from '../../hooks/usePageTitle';
import { useDateFormat } from '../../lib/format';
import { carouselItems } from '../../lib/media';
import { useSite } from '../../site/SiteContext';
import { searchHref } from '../../lib/searchParams';
import type { TreeData } from '../../loaders';
import { carouselPart } from './carouselPart';
import { PostComments } from './PostComments';
import './comments.css';
import './post-content.css';

/** A post's page at {section path}/{slug} (docs/product.md#a-post); null when it could not be loaded. */
export function PostPage({ post }: { post: PostView | null }) {
  usePageTitle(post);
  if (!post) {
    return (
      <section className="card" aria-labelledby="no-post-heading">
        <h1 id="no-post-heading">No posts yet</h1>
        <p>
          <Link to="/">Back to Home</Link>
        </p>
      </section>
    );
  }
  return <PostDetail post={post} />;
}

/** Only the admin reaches a draft or a post scheduled for later: say what visitors see. */
function StatusBanner({ post }: { post: PostView }) {
  const formatDate = useDateFormat();
  return (
    <p className="post-status-banner" role="note">
      <strong>{post.status === 'draft' ? 'Draft' : 'Scheduled'}</strong>
      {post.status === 'draft'
        ? ' — a preview only you can see. Visitors get "page not found" until it is published.'
        : ` — visitors see this post from ${formatDate('dateTime', post.created_at)}.`}
    </p>
  );
}

function PostDetail({ post }: { post: PostView }) {
  const site = useSite();
  const formatDate = useDateFormat();
  const { pathname } = useLocation();
  const media = carouselItems(post.media);
  // The post's loader brought the carousel's code when the post has media.
  const MediaCarousel = carouselPart.get()?.MediaCarousel;
  const categoryPath = buildListingPath(site, { category: post.category });
  const submenuPath = buildListingPath(site, post);
  const submenuLabel = post.submenu2 && post.submenu2 !== 'General' ? post.submenu2 : post.submenu1;
  const tree = useRouteLoaderData('tree') as TreeData | undefined;
  const comments = tree?.kind === 'post' ? (tree.comments ?? null) : null;
  return (
    <>
      <article className="post-detail">
        <p className="back-link">
          <Link to="/">← Back to Home</Link>
        </p>
        {post.status !== 'published' && <StatusBanner post={post} />}
        <header className="post-header">
          <h1>{post.title}</h1>
          <p className="post-meta">
            <time dateTime={post.created_at}>{formatDate('dateTime', post.created_at)}</time>
            {categoryPath ? (
              <Link className="badge" to={categoryPath}>
                {post.category}
              </Link>
            ) : (
              <span className="badge">{post.category}</span>
            )}
            {submenuLabel && submenuLabel !== 'General' && submenuPath && (
              <Link className="badge badge-muted" to={submenuPath}>
                {submenuLabel}
              </Link>
            )}
          </p>
          {post.tags.length > 0 && (
            <ul className="tag-buttons" aria-label="Tags">
              {post.tags.map((tag) => (
                <li key={tag}>
                  <Link
                    className="tag"
                    to={searchHref(pathname, tag)}
                    aria-label={`Search posts tagged ${tag}`}
                  >
                    #{tag}
                  </Link>
                </li>
              ))}
            </ul>
          )}
        </header>
        {media.length > 0 && MediaCarousel && <MediaCarousel items={media} title={post.title} />}
        {post.contentHtml && (
          // Rendered and sanitised by the server when the post was saved (services/posts/src/content).
          <div className="post-content" dangerouslySetInnerHTML={{ __html: post.contentHtml }} />
        )}
        <footer className="post-footer">
          <p>Published {formatDate('longDate', post.created_at)}</p>
          <p>
            <Link to="/">← Back to Home</Link>
          </p>
        </footer>
      </article>
      {/* A draft or a later post has no readers yet, so no comments. */}
      {post.status === 'published' && <PostComments key={post.id} postId={post.id} initial={comments} />}
    </>
  );
}
