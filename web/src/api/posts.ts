import type { PostStatusFilter, PostView } from '@blog/contracts';
import type { ApiClient, Page } from './client';

/** Filters of GET /api/posts; every one runs in the database (docs/api.md#get-apiposts). */
export interface PostQuery {
  category?: string;
  submenu1?: string;
  submenu2?: string;
  tag?: string;
  search?: string;
  from?: string;
  to?: string;
  page?: number;
  limit?: number;
  /** The admin's filter; a visitor only ever gets published posts. */
  status?: PostStatusFilter;
}

export function postQueryString(query: PostQuery): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== '') params.set(key, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

export function listPosts(api: ApiClient, query: PostQuery, signal?: AbortSignal): Promise<Page<PostView>> {
  return api.list<PostView>(`/api/posts${postQueryString(query)}`, { signal });
}

export function getPost(api: ApiClient, id: string | number, signal?: AbortSignal): Promise<PostView> {
  return api.request<PostView>(`/api/posts/${encodeURIComponent(String(id))}`, { signal });
}

export function getPostBySlug(api: ApiClient, slug: string, signal?: AbortSignal): Promise<PostView> {
  return api.request<PostView>(`/api/posts/by-slug/${encodeURIComponent(slug)}`, { signal });
}
