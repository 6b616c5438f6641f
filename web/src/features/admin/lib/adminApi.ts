import type { ContactMessageView, DigestRunResult } from '@blog/contracts/mail';
import type { PostPreview, PostView } from '@blog/contracts/posts';
import type { ImageSettings } from '@blog/contracts/settings';
import type { SiteConfig } from '@blog/contracts/site';
import type { ApiClient, Page } from '../../../api/client';

/** The admin calls of docs/api.md (all with the Bearer token). */
export const deletePost = (api: ApiClient, id: number) =>
  api.request<{ success: true }>(`/api/posts/${id}`, { method: 'DELETE' });

export const retryMedia = (api: ApiClient, postId: number, itemId: string) =>
  api.request<PostView>(`/api/posts/${postId}/media/${encodeURIComponent(itemId)}/retry`, { method: 'POST' });

/** The server's renderer on unsaved text: exactly the HTML visitors will get. */
export const previewPost = (
  api: ApiClient,
  content: string,
  postId: number | undefined,
  signal?: AbortSignal,
) => api.request<PostPreview>('/api/posts/preview', { method: 'POST', body: { content, postId }, signal });

export const getSettings = (api: ApiClient, signal?: AbortSignal) =>
  api.request<ImageSettings>('/api/settings', { signal });

export const saveSettings = (api: ApiClient, settings: ImageSettings) =>
  api.request<ImageSettings>('/api/settings', { method: 'PUT', body: { settings } });

export const runDigest = (api: ApiClient) =>
  api.request<DigestRunResult>('/api/admin/digest', { method: 'POST' });

export const MAIL_PAGE_SIZE = 20;

export const listMessages = (
  api: ApiClient,
  page: number,
  signal?: AbortSignal,
): Promise<Page<ContactMessageView>> =>
  api.list(`/api/admin/messages?page=${page}&limit=${MAIL_PAGE_SIZE}`, { signal });

/** The stored configuration (the page's preloaded copy may be older; a signed-in read skips the caches). */
export const getSite = (api: ApiClient, signal?: AbortSignal) =>
  api.request<SiteConfig>('/api/site', { signal });

/** The whole configuration, with `moves` for the posts of removed nodes ({ from, to } node ids). */
export const saveSite = (api: ApiClient, site: SiteConfig, moves: { from: string; to: string }[] = []) =>
  api.request<SiteConfig>('/api/admin/site', { method: 'PUT', body: { ...site, moves } });

/** A new banner image: processed on the server; answers the site with its new bannerImage. */
export const uploadBanner = (api: ApiClient, file: File) => {
  const form = new FormData();
  form.append('file', file);
  return api.request<SiteConfig>('/api/admin/site/banner', { method: 'POST', form });
};
