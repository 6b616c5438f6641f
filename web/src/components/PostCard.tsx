import type { PostView } from '@blog/contracts/posts';
import { Link } from './Link';
import { preview, useDateFormat } from '../lib/format';
import { CardMedia } from './CardMedia';

/** The post's page: its category/slug path, else the /post/{id} redirect. */
export const postHref = (post: PostView) => post.url ?? `/post/${post.id}`;

export type PostCardVariant = 'home' | 'category' | 'search';

interface PostCardProps {
  post: PostView;
  variant: PostCardVariant;
  /** The first card's media is likely in view: it loads at once. */
  eager?: boolean;
  headingLevel?: 'h2' | 'h3';
}

/**
 * The one post card (docs/product.md#screens): home cards show the created time, the category badge and
 * 'Read more...'; category cards the long-form date; search cards the date, category,
 * submenu and #tags.
 */
export function PostCard({ post, variant, eager = false, headingLevel: Heading = 'h2' }: PostCardProps) {
  const href = postHref(post);
  const formatDate = useDateFormat();
  const date = formatDate(
    variant === 'home' ? 'dateTime' : variant === 'category' ? 'longDate' : 'shortDate',
    post.created_at,
  );
  const submenu = post.submenu2 && post.submenu2 !== 'General' ? post.submenu2 : post.submenu1;
  return (
    <article className="card post-card">
      <Link to={href} className="post-card-media-link" tabIndex={-1} aria-hidden="true">
        <CardMedia post={post} eager={eager} />
      </Link>
      <div className="post-card-body">
        <Heading className="post-card-title">
          <Link to={href}>{post.title}</Link>
        </Heading>
        <p className="post-meta">
          <time dateTime={post.created_at}>{date}</time>
          {variant !== 'category' && <span className="badge">{post.category}</span>}
          {variant === 'search' && submenu && submenu !== 'General' && (
            <span className="badge badge-muted">{submenu}</span>
          )}
        </p>
        {post.excerpt && <p className="post-preview">{preview(post.excerpt)}</p>}
        {variant === 'search' && post.tags.length > 0 && (
          <p className="tags">
            {post.tags.map((tag) => (
              <span key={tag} className="tag">
                #{tag}
              </span>
            ))}
          </p>
        )}
        <Link to={href} className="read-more">
          Read more<span className="visually-hidden"> of {post.title}</span>...
        </Link>
      </div>
    </article>
  );
}
