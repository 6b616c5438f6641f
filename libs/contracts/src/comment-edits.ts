import type { AdminCommentsResult } from './comments.js';

/**
 * A comment in the dashboard's list. When its author changed it after it was approved,
 * `proposedContent` is the new text (sanitised HTML) that waits for the owner: the comment is
 * pending, and readers keep seeing `content`, the approved text, until the change is approved
 * (it then replaces `content`) or refused (it is dropped). Null otherwise; absent from an older
 * posts service.
 */
export type AdminCommentItem = AdminCommentsResult['items'][number] & { proposedContent?: string | null };
