import { ApiError } from '../../api/client';

/** "No comments yet", "1 comment", "3 comments": the heading of a post's comments. */
export function commentCountLabel(count: number): string {
  if (count <= 0) return 'No comments yet';
  return count === 1 ? '1 comment' : `${count} comments`;
}

/**
 * The sign-in page with the way back to this post's comments: the path alone (never another
 * origin), which the sign-in page checks again before following it.
 */
export function signInToCommentHref(pathname: string): string {
  return `/login?${new URLSearchParams({ next: `${pathname}#comments` })}`;
}

/** "3,990 characters left" or "10 characters too many", counted as the server counts (trimmed). */
export function characterCount(content: string, max: number): { text: string; over: boolean } {
  const left = max - content.trim().length;
  if (left >= 0) return { text: `${left.toLocaleString('en-US')} characters left`, over: false };
  const over = -left;
  return {
    text: `${over.toLocaleString('en-US')} ${over === 1 ? 'character' : 'characters'} too many`,
    over: true,
  };
}

/** "in 1 minute", "in 12 minutes", "in 2 hours": when a refused reader may send again. */
export function waitText(seconds: number): string {
  const minutes = Math.max(1, Math.ceil(seconds / 60));
  if (minutes < 60) return `in ${minutes} ${minutes === 1 ? 'minute' : 'minutes'}`;
  const hours = Math.ceil(minutes / 60);
  return `in ${hours} ${hours === 1 ? 'hour' : 'hours'}`;
}

/**
 * What the field says after a refused comment: the server's words (400, 404, 429), with the
 * wait a 429 names; the fallback when the server gave none (no answer, a 5xx).
 */
export function commentFailureText(error: unknown, tooMany: string, fallback: string): string {
  if (!(error instanceof ApiError)) return fallback;
  if (error.status === 429) {
    const text = error.serverMessage ?? tooMany;
    if (error.retryAfter === null) return text;
    return `${text.replace(/\.$/, '')}. You can comment again ${waitText(error.retryAfter)}.`;
  }
  if (error.status >= 400 && error.status < 500 && error.serverMessage) return error.serverMessage;
  return fallback;
}
