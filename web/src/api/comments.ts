import type {
  AdminCommentsResult,
  CommentCreateInput,
  CommentSettings,
  CommentStatus,
  CommentView,
  PostCommentSettings,
  PostCommentsResult,
} from '@blog/contracts/comments';
import type { ApiClient } from './client';

/** A post's approved comments, threaded one level deep (public). */
export function getPostComments(
  api: ApiClient,
  postId: number,
  signal?: AbortSignal,
): Promise<PostCommentsResult> {
  return api.request<PostCommentsResult>(`/api/posts/${postId}/comments`, { signal });
}

/** A signed-in reader's comment: answered 202 with the comment, pending until the owner approves it. */
export function createComment(
  api: ApiClient,
  postId: number,
  input: CommentCreateInput,
): Promise<CommentView> {
  return api.request<CommentView>(`/api/posts/${postId}/comments`, { method: 'POST', body: input });
}

/** The dashboard's list of one status (admin). */
export function listAdminComments(
  api: ApiClient,
  query: { status: CommentStatus; page: number },
  signal?: AbortSignal,
): Promise<AdminCommentsResult> {
  const params = new URLSearchParams({ status: query.status, page: String(query.page) });
  return api.request<AdminCommentsResult>(`/api/admin/comments?${params}`, { signal });
}

export type CommentAction = 'approve' | 'spam' | 'delete';

/** Approve, mark as spam or delete one comment (admin). */
export function moderateComment(api: ApiClient, id: number, action: CommentAction): Promise<unknown> {
  return action === 'delete'
    ? api.request(`/api/admin/comments/${id}`, { method: 'DELETE' })
    : api.request(`/api/admin/comments/${id}/${action}`, { method: 'POST' });
}

/** The site-wide "approve automatically from known commenters" (admin). */
export function getCommentSettings(api: ApiClient, signal?: AbortSignal): Promise<CommentSettings> {
  return api.request<CommentSettings>('/api/admin/comments/settings', { signal });
}

export function saveCommentSettings(api: ApiClient, settings: CommentSettings): Promise<CommentSettings> {
  return api.request<CommentSettings>('/api/admin/comments/settings', { method: 'PUT', body: settings });
}

/** One post's own switch (admin); a comment is auto-approved when it or the site-wide one is on. */
export function getPostCommentSettings(
  api: ApiClient,
  postId: number,
  signal?: AbortSignal,
): Promise<PostCommentSettings> {
  return api.request<PostCommentSettings>(`/api/admin/posts/${postId}/comments/settings`, { signal });
}

export function savePostCommentSettings(
  api: ApiClient,
  postId: number,
  settings: CommentSettings,
): Promise<PostCommentSettings> {
  return api.request<PostCommentSettings>(`/api/admin/posts/${postId}/comments/settings`, {
    method: 'PUT',
    body: settings,
  });
}
