import { ADMIN_PAGE_SIZE } from '@blog/contracts/admin';
import { POST_STATUS_FILTERS, type PostStatusFilter } from '@blog/contracts/posts';
import type { PostQuery } from '../../../api/posts';
import { parsePage } from '../../../lib/pagination';

/** The Posts tab's filters, kept in the URL (reload and back keep them). */
export interface PostFilters {
  search: string;
  category: string;
  submenu1: string;
  submenu2: string;
  from: string;
  to: string;
  /** '' for every status (the API's `all`). */
  status: '' | Exclude<PostStatusFilter, 'all'>;
}

export const FILTER_KEYS = ['search', 'category', 'submenu1', 'submenu2', 'from', 'to', 'status'] as const;
const STATUS = new Set<string>(POST_STATUS_FILTERS.filter((s) => s !== 'all'));
const DATE = /^\d{4}-\d{2}-\d{2}$/;

export function filtersFromParams(params: URLSearchParams): PostFilters {
  const read = (key: string) => params.get(key) ?? '';
  return {
    search: read('search'),
    category: read('category'),
    submenu1: read('submenu1'),
    submenu2: read('submenu2'),
    from: DATE.test(read('from')) ? read('from') : '',
    to: DATE.test(read('to')) ? read('to') : '',
    status: STATUS.has(read('status')) ? (read('status') as PostFilters['status']) : '',
  };
}

export function hasFilters(filters: PostFilters): boolean {
  return FILTER_KEYS.some((key) => filters[key].trim() !== '');
}

/**
 * The URL after one filter changed (docs/product.md#the-dashboards-post-list): back to page 1; a new category
 * resets the submenu and date filters; a new submenu1 resets submenu2.
 */
export function changeFilter(
  params: URLSearchParams,
  key: keyof PostFilters,
  value: string,
): URLSearchParams {
  const next = new URLSearchParams(params);
  next.delete('page');
  const clear: (keyof PostFilters)[] =
    key === 'category' ? ['submenu1', 'submenu2', 'from', 'to'] : key === 'submenu1' ? ['submenu2'] : [];
  for (const k of clear) next.delete(k);
  if (value) next.set(key, value);
  else next.delete(key);
  return next;
}

/** Every filter and the page removed; the tab stays. */
export function clearFilters(params: URLSearchParams): URLSearchParams {
  const next = new URLSearchParams(params);
  for (const key of [...FILTER_KEYS, 'page']) next.delete(key);
  return next;
}

/** The API query of one page: every filter runs in the database. */
export function postQuery(filters: PostFilters, page: number): PostQuery {
  return {
    search: filters.search.trim() || undefined,
    category: filters.category || undefined,
    submenu1: filters.submenu1 || undefined,
    submenu2: filters.submenu2 || undefined,
    from: filters.from || undefined,
    to: filters.to || undefined,
    status: filters.status || 'all',
    page,
    limit: ADMIN_PAGE_SIZE,
  };
}

export const pageFromParams = (params: URLSearchParams) => parsePage(params.get('page'));

/** 'Showing X-Y of N' bounds of a page; 0-0 for an empty list. */
export function shownRange(page: number, total: number, pageSize = ADMIN_PAGE_SIZE): [number, number] {
  if (total === 0) return [0, 0];
  const from = (page - 1) * pageSize + 1;
  return [Math.min(from, total), Math.min(page * pageSize, total)];
}
