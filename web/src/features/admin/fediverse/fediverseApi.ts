import type {
  BlockListResult,
  BlockResult,
  DeliveryFailureListResult,
  FollowerListResult,
  FollowerStatus,
  FollowerView,
  ReactionCounts,
} from '@blog/contracts/social';
import type { ApiClient } from '../../../api/client';

/** The dashboard's fediverse calls (admin; docs/api.md). */
export function listFollowers(
  api: ApiClient,
  query: { status: FollowerStatus; page: number; pageSize?: number },
  signal?: AbortSignal,
): Promise<FollowerListResult> {
  const params = new URLSearchParams({ status: query.status, page: String(query.page) });
  if (query.pageSize) params.set('pageSize', String(query.pageSize));
  return api.request<FollowerListResult>(`/api/admin/fediverse/followers?${params}`, { signal });
}

export const removeFollower = (api: ApiClient, id: number) =>
  api.request<{ removed: true }>(`/api/admin/fediverse/followers/${id}`, { method: 'DELETE' });

export const approveFollower = (api: ApiClient, id: number) =>
  api.request<FollowerView>(`/api/admin/fediverse/followers/${id}/approve`, { method: 'POST' });

export const listBlocks = (api: ApiClient, signal?: AbortSignal) =>
  api.request<BlockListResult>('/api/admin/fediverse/blocks', { signal });

/** A block also deletes the blocked author's comments; the answer counts both. */
export type BlockAnswer = BlockResult & { removedComments: number };

export const addBlock = (api: ApiClient, target: { actor: string } | { domain: string }) =>
  api.request<BlockAnswer>('/api/admin/fediverse/blocks', { method: 'POST', body: target });

export const removeBlock = (api: ApiClient, id: number) =>
  api.request<{ removed: true }>(`/api/admin/fediverse/blocks/${id}`, { method: 'DELETE' });

/** Likes, boosts and quotes of the listed posts; none when the server could not count them. */
export const reactionCounts = (api: ApiClient, postIds: number[], signal?: AbortSignal) =>
  countsOf(api, 'ids', postIds, signal);

/** The same of the listed notes. */
export const noteReactionCounts = (api: ApiClient, noteIds: number[], signal?: AbortSignal) =>
  countsOf(api, 'notes', noteIds, signal);

const countsOf = (api: ApiClient, of: 'ids' | 'notes', ids: number[], signal?: AbortSignal) =>
  ids.length === 0
    ? Promise.resolve({} as ReactionCounts)
    : api.request<ReactionCounts>(`/api/admin/fediverse/reactions?${of}=${ids.join(',')}`, { signal });

/** Servers deliveries were given up for, the most recent first. */
export const listDeliveryFailures = (api: ApiClient, signal?: AbortSignal) =>
  api.request<DeliveryFailureListResult>('/api/admin/fediverse/deliveries', { signal });

export const dismissDeliveryFailure = (api: ApiClient, host: string) =>
  api.request<{ removed: boolean }>(`/api/admin/fediverse/deliveries/${encodeURIComponent(host)}`, {
    method: 'DELETE',
  });
