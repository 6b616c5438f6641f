import type { PostView } from '@blog/contracts/posts';
import { useRef } from 'react';
import type { AsyncState } from '../hooks/useAsync';
import type { Page } from '../api/client';
import { Pagination } from './Pagination';
import { PostCard, type PostCardVariant } from './PostCard';

interface PostListProps {
  state: AsyncState<Page<PostView>>;
  page: number;
  pageSize: number;
  onPageChange(page: number): void;
  variant: PostCardVariant;
  loadingText: string;
  /** Shown when the list is empty, and when it failed to load (SPEC.md §8: failures only logged). */
  emptyText: string;
  /** Names the list for the pagination bars. */
  label: string;
  headingLevel?: 'h2' | 'h3';
}

/** A paged list of post cards with the bar above and below; a page change scrolls to the list top. */
export function PostList(props: PostListProps) {
  const { state, page, pageSize, variant, label } = props;
  const top = useRef<HTMLDivElement>(null);
  const changePage = (next: number) => {
    props.onPageChange(next);
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
