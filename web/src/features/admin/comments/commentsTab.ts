import type { AdminCommentItem } from '@blog/contracts/comment-edits';
import { COMMENT_STATUSES, type AdminCommentsResult, type CommentStatus } from '@blog/contracts/comments';
import type { CommentAction } from '../../../api/comments';

/** The Comments tab's status in the URL (`?status=`); pending when absent or unknown. */
export function statusFromParams(params: URLSearchParams): CommentStatus {
  const value = params.get('status');
  return COMMENT_STATUSES.find((status) => status === value) ?? 'pending';
}

/** The URL after choosing a status: page 1 of it (pending, the default, leaves the parameter out). */
export function withStatus(current: URLSearchParams, status: CommentStatus): URLSearchParams {
  const next = new URLSearchParams(current);
  if (status === 'pending') next.delete('status');
  else next.set('status', status);
  next.delete('page');
  return next;
}

export const STATUS_LABELS: Record<CommentStatus, string> = {
  pending: 'Pending',
  approved: 'Approved',
  spam: 'Spam',
};

export const EMPTY_TEXTS: Record<CommentStatus, string> = {
  pending: 'No comments wait for approval.',
  approved: 'No approved comments yet.',
  spam: 'No comments marked as spam.',
};

/** The actions a row of each status offers (a comment is never moved to the status it has). */
export function actionsFor(status: CommentStatus): CommentAction[] {
  if (status === 'approved') return ['spam', 'delete'];
  if (status === 'spam') return ['approve', 'delete'];
  return ['approve', 'spam', 'delete'];
}

export const ACTION_TEXTS: Record<
  CommentAction,
  { label: string; pending: string; done: string; failed: string }
> = {
  approve: {
    label: 'Approve',
    pending: 'Approving...',
    done: 'Comment approved.',
    failed: 'The comment could not be approved.',
  },
  spam: {
    label: 'Mark as spam',
    pending: 'Marking...',
    done: 'Comment marked as spam.',
    failed: 'The comment could not be marked as spam.',
  },
  delete: {
    label: 'Delete',
    pending: 'Deleting...',
    done: 'Comment deleted.',
    failed: 'The comment could not be deleted.',
  },
};

type ActionTexts = (typeof ACTION_TEXTS)[CommentAction];

/**
 * A comment whose author changed it after approval: approving takes the change, deleting
 * refuses it (the comment stays with its approved text); spam still hides the whole comment.
 */
const CHANGE_TEXTS: Partial<Record<CommentAction, ActionTexts>> = {
  approve: {
    label: 'Approve change',
    pending: 'Approving...',
    done: 'Change approved: readers see the new text.',
    failed: 'The change could not be approved.',
  },
  delete: {
    label: 'Refuse change',
    pending: 'Refusing...',
    done: 'Change refused: readers keep the approved text.',
    failed: 'The change could not be refused.',
  },
};

/** Whether the row is an approved comment's change waiting for the owner. */
export const isChange = (comment: AdminCommentItem) => Boolean(comment.proposedContent);

export function actionTexts(action: CommentAction, comment: AdminCommentItem): ActionTexts {
  return (isChange(comment) && CHANGE_TEXTS[action]) || ACTION_TEXTS[action];
}

const TARGET: Record<CommentAction, CommentStatus | null> = {
  approve: 'approved',
  spam: 'spam',
  delete: null,
};

/**
 * The list once the server has done `action` on comment `id`: the comment leaves this status's
 * list, and the counts move with it (to approved or spam; a deletion only lowers its own, but
 * a refused change leaves its comment approved).
 */
export function afterAction(
  result: AdminCommentsResult,
  id: number,
  action: CommentAction,
): AdminCommentsResult {
  const item = result.items.find((candidate) => candidate.id === id);
  if (!item) return result;
  const counts = { ...result.counts, [result.status]: Math.max(0, result.counts[result.status] - 1) };
  const target = action === 'delete' && isChange(item) ? 'approved' : TARGET[action];
  if (target && target !== result.status) counts[target] += 1;
  return {
    ...result,
    items: result.items.filter((item) => item.id !== id),
    total: Math.max(0, result.total - 1),
    counts,
  };
}
