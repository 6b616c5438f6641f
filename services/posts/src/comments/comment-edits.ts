import type { CommentText } from './comments.repository.js';

/**
 * What an author's new text (`Update{Note}`, sanitised) does to their comment; null when it
 * changes nothing. Readers never see text the owner did not approve: a change to an approved
 * comment waits (pending, in `pendingHtml`) while the approved text stays, unless the author is
 * one the auto-approval lets in at once (`autoApproved`). A comment readers do not see (pending,
 * spam) simply takes the new text.
 */
export function editOf(comment: CommentText, html: string, autoApproved: boolean): CommentText | null {
  const approved = comment.status === 'approved' || comment.pendingHtml !== null;
  if (!approved) return html === comment.contentHtml ? null : { ...comment, contentHtml: html };
  if (html === (comment.pendingHtml ?? comment.contentHtml)) return null;
  // Back to the approved text (a change taken back), or one the owner lets in at once.
  if (html === comment.contentHtml || autoApproved)
    return { status: 'approved', contentHtml: html, pendingHtml: null };
  return { status: 'pending', contentHtml: comment.contentHtml, pendingHtml: html };
}
