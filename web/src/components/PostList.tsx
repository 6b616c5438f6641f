import { useRef } from 'react';
import { useApi } from '../api/ApiContext';
import { listPosts, postQueryString, type PostQuery } from '../api/posts';
import { useAsync } from '../hooks/useAsync';
import { usePageParam } from '../hooks/usePageParam';
import { Pagination } from './Pagination';
import { PostCard, type PostCardVariant } from './PostCard';

interface PostListProps {
  /** The filters; paging is the list's own, from the URL (`?page=`). */
  query: Omit<PostQuery, 'page' | 'limit'>;
  pageSize: number;
  variant: PostCardVariant;
  loadingText: string;
  /** Shown when the list is empty, and when it failed to load (SPEC.md §8: failures only logged). */
  emptyText: string;
  /** Names the list for the pagination bars. */
  label: string;
  headingLevel?: 'h2' | 'h3';
}

/**
 * One page of posts from the API (filtered and paged there), as cards with the bar above and
 * below; a page change scrolls to the list top.
 */
export function PostList(props: PostListProps) {
  const { query, pageSize, variant, label } = props;
  const api = useApi();
  const [page, setPage] = usePageParam();
  const state = useAsync(
    // The public lists show what visitors see, also to a signed-in admin (drafts live in the dashboard).
    (signal) => listPosts(api, { ...query, status: 'published', page, limit: pageSize }, signal),
    [api, postQueryString(query), page, pageSize],
  );
  const top = useRef<HTMLDivElement>(null);
  const changePage = (next: number) => {
    setPage(next);
    top.current?.scrollIntoView({ behavior: 'smooth', block: 'start' });
  };

  if (state.status === 'loading') {
    return (
      <p role="status" className="loading">
        {props.loadingText}
      </p>
    );
  }
  if (state.status === 'error') console.error('Loading posts failed', state.error);
  const { items, total } = state.status === 'ready' ? state.data : { items: [], total: 0 };
  if (items.length === 0) return <p className="empty">{props.emptyText}</p>;

  const bar = (position: string) => (
    <Pagination
      page={page}
      pageSize={pageSize}
      total={total}
      onPageChange={changePage}
      label={`${label}, pages (${position})`}
    />
  );
  return (
    <div ref={top} className="post-list">
      {bar('top')}
      <div className={`post-cards post-cards-${variant}`}>
        {items.map((post, index) => (
          <PostCard
            key={post.id}
            post={post}
            variant={variant}
            eager={index === 0}
            headingLevel={props.headingLevel}
          />
        ))}
      </div>
      {bar('bottom')}
    </div>
  );
}
