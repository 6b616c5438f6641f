import { Link } from '../../../components/Link';
import { ADMIN_PREVIEW_LENGTH, ADMIN_ROW_THUMBNAILS } from '@blog/contracts/admin';
import { byOrder } from '@blog/contracts/media';
import type { PostView } from '@blog/contracts/posts';
import { formatDateTime, preview } from '../../../lib/format';
import { EmailBadge } from '../newsletter/EmailBadge';
import { MediaThumb } from './MediaThumb';
import { reactionsText } from '../fediverse/reactionsText';

interface PostRowProps {
  post: PostView;
  deleting: boolean;
  /** Views in the last 30 days; null while unknown. */
  views: number | null;
  /** Likes and boosts from the fediverse; null when none (or not known). */
  reactions?: { likes: number; announces: number; quotes?: number } | null;
  onEdit(): void;
  onDelete(): void;
}

const STATUS_LABEL = { published: 'Published', scheduled: 'Scheduled', draft: 'Draft' } as const;

/** A list row: title, status, place, date, the first 100 characters and up to 6 thumbnails in order. */
export function PostRow({ post, views, reactions, deleting, onEdit, onDelete }: PostRowProps) {
  const media = [...post.media].sort(byOrder).slice(0, ADMIN_ROW_THUMBNAILS);
  const place = [post.category, post.submenu1, post.submenu2].filter(Boolean).join(' › ');
  const missingAlt = post.images.filter((image) => !image.alt?.trim()).length;
  return (
    <li className="admin-post-row" aria-labelledby={`post-${post.id}-title`}>
      <div className="admin-post-main">
        <h3 id={`post-${post.id}-title`} className="admin-post-title">
          {post.url ? <a href={post.url}>{post.title}</a> : post.title}
        </h3>
        <p className="admin-post-badges">
          <span className={`admin-status admin-status-${post.status}`}>{STATUS_LABEL[post.status]}</span>
          {post.status === 'scheduled' && <> for {formatDateTime(post.created_at)}</>}
          <EmailBadge post={post} />
          {missingAlt > 0 && (
            <span
              className="admin-status admin-status-warning"
              title="Screen readers say nothing about a picture without alt text"
            >
              {missingAlt === 1 ? '1 image without alt text' : `${missingAlt} images without alt text`}
            </span>
          )}
        </p>
        <p className="admin-post-meta">
          {place} · {formatDateTime(post.created_at)}
          {post.tags.length > 0 && <> · {post.tags.join(', ')}</>}
          {views !== null && (
            <>
              {' · '}
              {/* The visible words start the link's name (WCAG 2.5.3); the hidden ones say whose. */}
              <Link to={`/admin?tab=stats&post=${post.id}`}>
                {views} {views === 1 ? 'view' : 'views'} in 30 days
                <span className="visually-hidden">: statistics of {post.title}</span>
              </Link>
            </>
          )}
          {reactions && <> · {reactionsText(reactions)}</>}
        </p>
        {post.excerpt && <p className="admin-post-preview">{preview(post.excerpt, ADMIN_PREVIEW_LENGTH)}</p>}
        {media.length > 0 && (
          <ul className="admin-thumbs" aria-label="Media">
            {media.map((item, index) => (
              <li key={item.id}>
                <MediaThumb item={item} index={index} />
              </li>
            ))}
          </ul>
        )}
      </div>
      <div className="admin-post-actions">
        <button
          type="button"
          className="button button-secondary button-small"
          onClick={onEdit}
          aria-label={`Edit ${post.title}`}
        >
          Edit
        </button>
        <button
          type="button"
          className="button button-danger button-small"
          onClick={onDelete}
          disabled={deleting}
          aria-label={`Delete ${post.title}`}
        >
          {deleting ? 'Deleting...' : 'Delete'}
        </button>
      </div>
    </li>
  );
}
