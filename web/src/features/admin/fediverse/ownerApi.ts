import type {
  FollowingListResult,
  FollowingView,
  NotificationsPage,
  OwnReactionKind,
  OwnReactionResult,
  ReaderPage,
} from '@blog/contracts/fediverse-owner';
import type { ApiClient } from '../../../api/client';

/** The owner's side of the fediverse: following, the Reader, likes and boosts, notifications (docs/api.md). */
export const follow = (api: ApiClient, account: string) =>
  api.request<FollowingView>('/api/admin/fediverse/following', { method: 'POST', body: { account } });

export const listFollowing = (api: ApiClient, signal?: AbortSignal) =>
  api.request<FollowingListResult>('/api/admin/fediverse/following', { signal });

export const unfollow = (api: ApiClient, id: number) =>
  api.request<{ removed: true }>(`/api/admin/fediverse/following/${id}`, { method: 'DELETE' });

export const readerPage = (api: ApiClient, cursor: string | null, signal?: AbortSignal) =>
  api.request<ReaderPage>(
    `/api/admin/fediverse/reader${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ''}`,
    {
      signal,
    },
  );

/** A like or boost (`active`), or its Undo. */
export const react = (api: ApiClient, kind: OwnReactionKind, object: string, active: boolean) =>
  api.request<OwnReactionResult>(`/api/admin/fediverse/${kind === 'like' ? 'likes' : 'boosts'}`, {
    method: active ? 'POST' : 'DELETE',
    body: { object },
  });

/** A reply to a post in the fediverse: a note of the blog's with `inReplyTo`. */
export const replyTo = (api: ApiClient, inReplyTo: string, content: string) =>
  api.request<{ id: number; url: string }>('/api/admin/fediverse/notes', {
    method: 'POST',
    body: { content, inReplyTo },
  });

export const listNotifications = (api: ApiClient, cursor: string | null, signal?: AbortSignal) =>
  api.request<NotificationsPage>(
    `/api/admin/fediverse/notifications${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ''}`,
    { signal },
  );

export const unreadNotifications = async (api: ApiClient, signal?: AbortSignal) =>
  (await api.request<{ unread: number }>('/api/admin/fediverse/notifications/unread', { signal })).unread;

export const markNotificationsRead = (api: ApiClient) =>
  api.request<{ marked: number }>('/api/admin/fediverse/notifications/read', { method: 'POST', body: {} });
