import { ADMIN_PAGE_SIZE, AdminText } from '@blog/contracts/admin';
import type { PostView } from '@blog/contracts/posts';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { useApi } from '../../../api/ApiContext';
import { listPosts } from '../../../api/posts';
import { Pagination } from '../../../components/Pagination';
import { ErrorLine } from '../../../components/ui';
import { useAsync } from '../../../hooks/useAsync';
import { pageCount } from '../../../lib/pagination';
import { useSite } from '../../../site/SiteContext';
import { PostForm } from '../form/PostForm';
import { deletePost } from '../lib/adminApi';
import {
  changeFilter,
  clearFilters,
  filtersFromParams,
  hasFilters,
  pageFromParams,
  postQuery,
  shownRange,
  type PostFilters,
} from '../lib/filters';
import { fetchPostsError } from '../lib/saveErrors';
import { PostFiltersBar } from './PostFiltersBar';
import { PostRow } from './PostRow';
import { reactionCounts } from '../fediverse/fediverseApi';

interface PostsTabProps {
  creating: boolean;
  onCreatingChange(creating: boolean): void;
}

/** Posts tab (docs/product.md#screens, #the-dashboards-post-list): filtered and paged in the API, 10 a page. */
export function PostsTab({ creating, onCreatingChange }: PostsTabProps) {
  const api = useApi();
  const site = useSite();
  const [params, setParams] = useSearchParams();
  const query = params.toString();
  const filters = useMemo(() => filtersFromParams(new URLSearchParams(query)), [query]);
  const page = pageFromParams(params);
  const [reload, setReload] = useState(0);
  const [editing, setEditing] = useState<number | null>(null);
  const [deleting, setDeleting] = useState<number | null>(null);
  const [deleteError, setDeleteError] = useState<string | null>(null);
  const headingRef = useRef<HTMLHeadingElement>(null);

  // The answer carries its page, so a render between a page change and the new answer never
  // pairs the old rows with the new page's count line.
  const list = useAsync(
    async (signal) => ({ page, ...(await listPosts(api, postQuery(filters, page), signal)) }),
    [api, filters, page, reload],
  );
  // Each listed post's views in the last 30 days (the Stats tab has the rest).
  const ids = list.status === 'ready' ? list.data.items.map((p) => p.id).join(',') : '';
  const views = useAsync(
    (signal) =>
      ids
        ? api.request<Record<number, number>>(`/api/admin/stats/recent?ids=${ids}`, { signal })
        : Promise.resolve({} as Record<number, number>),
    [api, ids],
  );
  // Likes and boosts from the fediverse (none shown when they could not be counted).
  const reactions = useAsync(
    (signal) => reactionCounts(api, ids ? ids.split(',').map(Number) : [], signal),
    [api, ids],
  );
  // The unfiltered total, for '(filtered from M total)'.
  const all = useAsync((signal) => listPosts(api, { page: 1, limit: 1 }, signal), [api, reload]);

  const onFilter = useCallback(
    (key: keyof PostFilters, value: string) => setParams((current) => changeFilter(current, key, value)),
    [setParams],
  );
  const onClear = () => setParams((current) => clearFilters(current));
  const goToPage = (next: number) => {
    setEditing(null);
    setParams((current) => {
      const copy = new URLSearchParams(current);
      if (next <= 1) copy.delete('page');
      else copy.set('page', String(next));
      return copy;
    });
    scrollToHeader(headingRef.current);
  };

  // A delete can leave the last page empty: show the new last page.
  const total = list.status === 'ready' ? list.data.total : 0;
  const lastPage = pageCount(total, ADMIN_PAGE_SIZE);
  const emptyPastEnd =
    list.status === 'ready' && list.data.items.length === 0 && total > 0 && page > lastPage;
  useEffect(() => {
    if (emptyPastEnd) goToPage(lastPage);
  });

  const remove = async (post: PostView) => {
    if (!window.confirm(`Delete "${post.title}"? This cannot be undone.`)) return;
    setDeleting(post.id);
    setDeleteError(null);
    try {
      await deletePost(api, post.id);
      if (editing === post.id) setEditing(null);
      setReload((n) => n + 1);
    } catch {
      setDeleteError(AdminText.deleteFailed);
    } finally {
      setDeleting(null);
    }
  };
  const saved = () => {
    onCreatingChange(false);
    setEditing(null);
    setReload((n) => n + 1);
  };

  const [from, to] = shownRange(list.status === 'ready' ? list.data.page : page, total);
  const allTotal = all.status === 'ready' ? all.data.total : total;
  return (
    <section className="card admin-posts" aria-labelledby="posts-heading">
      <h2 id="posts-heading" ref={headingRef} tabIndex={-1}>
        Posts
      </h2>
      {creating && <PostForm onSaved={saved} onCancel={() => onCreatingChange(false)} />}
      <PostFiltersBar site={site} filters={filters} onChange={onFilter} onClear={onClear} />
      {deleteError && <ErrorLine error={deleteError} />}
      {list.status === 'loading' && (
        <p role="status" className="loading">
          Loading posts...
        </p>
      )}
      {list.status === 'error' && <ErrorLine error={fetchPostsError(list.error)} />}
      {list.status === 'ready' && (
        <>
          <p className="admin-count" role="status">
            {AdminText.showing(from, to, total, allTotal)}
          </p>
          {list.data.items.length === 0 ? (
            hasFilters(filters) ? (
              <div className="empty">
                <p>{AdminText.noMatches}</p>
                <button type="button" className="button button-secondary" onClick={onClear}>
                  Clear Filters
                </button>
              </div>
            ) : (
              <p className="empty">{AdminText.noPosts}</p>
            )
          ) : (
            <ul className="admin-post-list">
              {list.data.items.map((post) =>
                editing === post.id ? (
                  <li key={post.id} className="admin-post-row editing">
                    <PostForm post={post} onSaved={saved} onCancel={() => setEditing(null)} />
                  </li>
                ) : (
                  <PostRow
                    key={post.id}
                    post={post}
                    views={views.status === 'ready' ? (views.data[post.id] ?? 0) : null}
                    reactions={reactions.status === 'ready' ? (reactions.data[post.id] ?? null) : null}
                    deleting={deleting === post.id}
                    onEdit={() => setEditing(post.id)}
                    onDelete={() => void remove(post)}
                  />
                ),
              )}
            </ul>
          )}
          <Pagination
            page={page}
            pageSize={ADMIN_PAGE_SIZE}
            total={total}
            onPageChange={goToPage}
            label="Post list pages"
          />
        </>
      )}
    </section>
  );
}

/** Brings the section header into view after a page change; retries while the list re-renders (up to 3). */
function scrollToHeader(element: HTMLElement | null, tries = 3) {
  if (!element || tries <= 0) return;
  requestAnimationFrame(() => {
    element.scrollIntoView({ block: 'start' });
    element.focus({ preventScroll: true });
    setTimeout(() => {
      if (Math.abs(element.getBoundingClientRect().top) > 2) scrollToHeader(element, tries - 1);
    }, 100);
  });
}
