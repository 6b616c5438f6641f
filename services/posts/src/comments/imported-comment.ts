import { COMMENT_REMOTE_HTML_MAX, httpUrlOrNull, type CommentStatus } from '@blog/contracts';
import { sanitiseRemoteHtml } from './comment-html.js';
import type { NewComment } from './comments.repository.js';

/**
 * A comment brought with an imported post (WordPress, Ghost, this blog's own archive). Its
 * `sourceId` makes it this comment: an import run again finds it and adds nothing.
 * `parentSourceId` names the comment it answers, among the same post's.
 */
export interface ImportedComment {
  sourceId: string;
  parentSourceId: string | null;
  status: CommentStatus;
  /** HTML as the source had it: sanitised with the remote allow-list before it is stored. */
  html: string;
  authorName: string;
  authorHandle: string | null;
  authorUrl: string | null;
  local: boolean;
  remoteObjectId: string | null;
  remoteActorUri: string | null;
  via: string | null;
  createdAt: Date | null;
  updatedAt?: Date | null;
}

/** Comments one imported post brings at most; more are left out (and reported). */
export const IMPORTED_COMMENTS_MAX = 5_000;

/**
 * An imported post's comments as they are stored (`postId` is its id here), parents first: each
 * sanitised with the remote allow-list, one left empty by it dropped, links kept only when
 * http(s); at most IMPORTED_COMMENTS_MAX.
 */
export function importedRows(
  postId: number,
  comments: ImportedComment[],
): (NewComment & { sourceId: string; parentSourceId: string | null })[] {
  const kept = comments.slice(0, IMPORTED_COMMENTS_MAX).flatMap((comment) => {
    const contentHtml = sanitiseRemoteHtml(comment.html.slice(0, COMMENT_REMOTE_HTML_MAX));
    if (!contentHtml) return [];
    return [
      {
        postId,
        parentId: null,
        parentSourceId: comment.parentSourceId,
        status: comment.status,
        contentHtml,
        authorName: comment.authorName.trim().slice(0, 300) || 'Anonymous',
        authorHandle: comment.authorHandle,
        authorUrl: httpUrlOrNull(comment.authorUrl),
        authorAvatarKey: null,
        local: comment.local,
        userId: null,
        remoteObjectId: httpUrlOrNull(comment.remoteObjectId),
        remoteActorUri: httpUrlOrNull(comment.remoteActorUri),
        via: comment.via,
        sourceId: comment.sourceId,
        createdAt: comment.createdAt ?? undefined,
        updatedAt: comment.updatedAt ?? undefined,
      },
    ];
  });
  // Parents first, whatever order the source listed them in.
  const order = new Map(kept.map((comment, i) => [comment.sourceId, i]));
  const depth = (comment: (typeof kept)[number]) =>
    comment.parentSourceId !== null && order.has(comment.parentSourceId) ? 1 : 0;
  return kept.sort((a, b) => depth(a) - depth(b));
}

/**
 * Plain text with line breaks, as WordPress stores a comment (it adds the paragraphs when it
 * shows it), as HTML paragraphs; text that has its own paragraphs is left as it is.
 */
export function paragraphsOf(html: string): string {
  if (/<p[\s>]/i.test(html)) return html;
  return html
    .replace(/\r\n?/g, '\n')
    .split(/\n\s*\n/)
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => `<p>${part.replace(/\n/g, '<br />')}</p>`)
    .join('');
}
