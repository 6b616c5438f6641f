import type { CommentThread, CommentView, PostCommentsResult } from '@blog/contracts/comments';
import { lazy, Suspense, useState } from 'react';
import { useLocation } from 'react-router-dom';
import { useApi } from '../../api/ApiContext';
import { getPostComments } from '../../api/comments';
import { Link } from '../../components/Link';
import { LoadFailed } from '../../components/ui';
import { useHydrated } from '../../hooks/useHydrated';
import { useDateFormat } from '../../lib/format';
import { useSession } from '../../session/SessionContext';
import { commentCountLabel, signInToCommentHref } from './commentRules';

// Only a signed-in reader writes: the form's code (and the comment schema) never reaches a guest.
const CommentForm = lazy(() => import('./CommentForm').then((m) => ({ default: m.CommentForm })));

type Loaded = { status: 'ready'; data: PostCommentsResult } | { status: 'error' } | { status: 'loading' };

/**
 * A post's approved comments, threaded one level deep, drawn on the server with
 * the post. A signed-in reader writes one (or replies to a top comment); a guest gets a link to
 * sign in that comes back here.
 */
export function PostComments({ postId, initial }: { postId: number; initial: PostCommentsResult | null }) {
  const api = useApi();
  const { session } = useSession();
  const signedIn = useHydrated() && session !== null;
  const { pathname } = useLocation();
  const [loaded, setLoaded] = useState<Loaded>(
    initial ? { status: 'ready', data: initial } : { status: 'error' },
  );
  const [replyTo, setReplyTo] = useState<number | null>(null);

  const retry = () => {
    setLoaded({ status: 'loading' });
    getPostComments(api, postId).then(
      (data) => setLoaded({ status: 'ready', data }),
      () => setLoaded({ status: 'error' }),
    );
  };

  // A comment approved at once (a known commenter): the list fetched again shows it.
  const refresh = () => {
    getPostComments(api, postId).then(
      (data) => setLoaded({ status: 'ready', data }),
      () => undefined,
    );
  };

  const count = loaded.status === 'ready' ? loaded.data.count : null;
  return (
    <section id="comments" className="post-comments" aria-labelledby="comments-heading">
      <h2 id="comments-heading">{count === null ? 'Comments' : commentCountLabel(count)}</h2>
      {loaded.status === 'loading' && (
        <p role="status" className="loading">
          Loading comments...
        </p>
      )}
      {loaded.status === 'error' && (
        <LoadFailed className="comments-error" error="The comments could not be loaded." onRetry={retry} />
      )}
      {loaded.status === 'ready' && loaded.data.comments.length > 0 && (
        <ol className="comment-list">
          {loaded.data.comments.map((thread) => (
            <TopComment
              key={thread.id}
              thread={thread}
              postId={postId}
              canReply={signedIn}
              replying={replyTo === thread.id}
              onReply={(open) => setReplyTo(open ? thread.id : null)}
              onPublished={refresh}
            />
          ))}
        </ol>
      )}
      {signedIn ? (
        <Suspense fallback={<p className="loading">Loading...</p>}>
          <CommentForm postId={postId} idPrefix="comment" label="Your comment" onPublished={refresh} />
        </Suspense>
      ) : (
        <p className="comment-sign-in">
          <Link to={signInToCommentHref(pathname)}>Sign in to comment</Link>
        </p>
      )}
    </section>
  );
}

interface TopCommentProps {
  thread: CommentThread;
  postId: number;
  canReply: boolean;
  replying: boolean;
  onReply(open: boolean): void;
  onPublished(): void;
}

function TopComment({ thread, postId, canReply, replying, onReply, onPublished }: TopCommentProps) {
  const formId = `reply-form-${thread.id}`;
  return (
    <li className="comment-thread">
      <Comment comment={thread} />
      {canReply && (
        <button
          type="button"
          className="button button-small button-secondary comment-reply"
          aria-expanded={replying}
          aria-controls={replying ? formId : undefined}
          onClick={() => onReply(!replying)}
        >
          {replying ? 'Cancel reply' : 'Reply'}
          <span className="visually-hidden"> to {thread.author.name}</span>
        </button>
      )}
      {canReply && replying && (
        <div id={formId} className="comment-reply-form">
          <Suspense fallback={<p className="loading">Loading...</p>}>
            <CommentForm
              postId={postId}
              parentId={thread.id}
              idPrefix={`reply-${thread.id}`}
              label={`Your reply to ${thread.author.name}`}
              autoFocus
              onPublished={onPublished}
            />
          </Suspense>
        </div>
      )}
      {thread.replies.length > 0 && (
        <ol className="comment-replies" aria-label={`Replies to ${thread.author.name}`}>
          {thread.replies.map((reply) => (
            <li key={reply.id}>
              <Comment comment={reply} />
            </li>
          ))}
        </ol>
      )}
    </li>
  );
}

function Comment({ comment }: { comment: CommentView }) {
  const formatDate = useDateFormat();
  const { author } = comment;
  // The handle adds nothing when it is the name again (a site reader's handle is their user name).
  const handle = author.handle && author.handle !== author.name ? author.handle : null;
  return (
    <article
      className={comment.byOwner ? 'comment comment-by-owner' : 'comment'}
      id={`comment-${comment.id}`}
      aria-label={`Comment by ${author.name}${comment.byOwner ? ', the author' : ''}`}
    >
      <header className="comment-meta">
        {author.avatarUrl && (
          <img
            className="comment-avatar"
            src={author.avatarUrl}
            alt=""
            width={40}
            height={40}
            loading="lazy"
          />
        )}
        <div className="comment-byline">
          <p className="comment-author">
            {author.url ? (
              <a href={author.url} rel="nofollow ugc noopener">
                {author.name}
              </a>
            ) : (
              <span>{author.name}</span>
            )}
            {handle && <span className="comment-handle"> {handle}</span>}
            {/* The blog owner's reply: said in words, not by colour alone. */}
            {comment.byOwner && (
              <>
                {' '}
                <span className="comment-badge">Author</span>
              </>
            )}
          </p>
          <p className="comment-date">
            <time dateTime={comment.createdAt}>{formatDate('dateTime', comment.createdAt)}</time>
            {comment.via && <span className="comment-via"> · via {comment.via}</span>}
          </p>
        </div>
      </header>
      {/* Sanitised by the posts service when the comment was stored (like a post's HTML). */}
      <div className="comment-content" dangerouslySetInnerHTML={{ __html: comment.content }} />
    </article>
  );
}
