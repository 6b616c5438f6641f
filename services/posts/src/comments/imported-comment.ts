import type { CommentStatus } from '@blog/contracts';

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
