import type { NewsletterStatus, NewsletterTestResult } from '@blog/contracts/newsletter';
import type { ApiClient } from '../../../api/client';

/** A post's e-mail (docs/api.md#a-post-by-e-mail-apiadminpostsidemail). */
export const getEmailStatus = (api: ApiClient, postId: number, signal?: AbortSignal) =>
  api.request<NewsletterStatus>(`/api/admin/posts/${postId}/email`, { signal });

export const sendTestEmail = (api: ApiClient, postId: number) =>
  api.request<NewsletterTestResult>(`/api/admin/posts/${postId}/email/test`, { method: 'POST' });

/** How many subscribers a post's e-mail reaches now. */
export const getAudience = (api: ApiClient, signal?: AbortSignal) =>
  api.request<{ eachPost: number }>('/api/admin/newsletter/audience', { signal });
