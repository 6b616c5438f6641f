import type { PostView } from '@blog/contracts/posts';
import { useRef } from 'react';
import { useLocation, useNavigation } from 'react-router-dom';
import type { ListData } from '../loaders';
import { usePageParam } from '../hooks/usePageParam';
import { Pagination } from './Pagination';
import { PostCard, type PostCardVariant } from './PostCard';

interface PostListProps {
  /** One page of posts, loaded by the route's loader (null when it failed). */
  posts: ListData;
  pageSize: number;
  variant: PostCardVariant;
  /** Shown while another page of this list loads. */
  loadingText: string;
  /** Shown when the list is empty, and when it failed to load (docs/product.md#error-texts: failures only logged). */
  emptyText: string;
  /** Names the list for the pagination bars. */
  label: string;
  headingLevel?: 'h2' | 'h3';
}

/**
 * One page of posts (filtered and paged by the API, `?page=` in the URL) as cards, with the
 * pagination bar above and below; following a page link scrolls to the list top.
 */
export function PostList(props: PostListProps) {
  const { posts, pageSize, variant, label } = props;
  const [page] = usePageParam();
  const { pathname } = useLocation();
  const navigation = useNavigation();
  const top = useRef<HTMLDivElement>(null);

  if (navigation.state === 'loading' && navigation.location.pathname === pathname) {
    return (
      <p role="status" className="loading">
        {props.loadingText}
      </p>
    );
  }
  const items: PostView[] = posts?.items ?? [];
  if (items.length === 0) return <p className="empty">{props.emptyText}</p>;

  const bar = (position: string) => (
    <Pagination
      page={page}
      pageSize={pageSize}
      total={posts?.total ?? 0}
      onFollow={() => top.current?.scrollIntoView({ behavior: 'smooth', block: 'start' })}
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
