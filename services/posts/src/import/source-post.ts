import type { ArchivePost } from '@blog/contracts';
import type { ImportedComment } from '../comments/imported-comment.js';

/** One post as a source blog had it, before it becomes one of ours. */
export interface SourcePost {
  /** Its identity there: "wxr:<site>:<post id>", "ghost:<id>". */
  sourceId: string;
  /**
   * Identities an earlier version of the importer gave the same post ("wxr:<guid>"): a post
   * imported under one of them is updated (and takes `sourceId`), not doubled.
   */
  formerSourceIds?: string[];
  title: string;
  slug: string;
  /** A restricted post (see `restricted`) is always a draft. */
  status: 'published' | 'draft';
  /** Why the source kept it from the public ("password-protected", "members only", …), if it did. */
  restricted?: string;
  /** The post's date (a published one dated ahead is scheduled); null: now. */
  date: Date | null;
  html: string;
  tags: string[];
  /** Category slugs (WordPress) or tag slugs (Ghost), looked up in the import's categoryMap. */
  categories: { slug: string; name: string }[];
  featuredImage?: { url: string; alt?: string; caption?: string };
  /** Old paths that answer 301 to the post: "/2019/05/12/my-post", "/?p=123". */
  oldPaths: string[];
  /** Its approved comments, brought along as approved comments. */
  comments?: ImportedComment[];
}

/** What a reader yields for each item of the file. */
export type SourceEntry =
  | { kind: 'post'; post: SourcePost }
  /** A post of this blog's own export. */
  | { kind: 'archive'; post: ArchivePost }
  | { kind: 'skipped'; reason: string; item: string };

/** A file that cannot be imported: the import fails with this message. */
export class ImportFileError extends Error {}

/**
 * The paths an old post may be asked for: its own link's path, and the permalink forms
 * WordPress sites commonly used (day and name, month and name, post name), without a
 * trailing slash; "/?p=ID" for the plain form.
 */
export function oldPathsOf(
  link: string | undefined,
  slug: string,
  date: Date | null,
  postId?: string,
): string[] {
  const paths = new Set<string>();
  if (link) {
    try {
      const url = new URL(link, 'http://old.invalid');
      const path = url.pathname.replace(/\/+$/, '');
      const p = url.searchParams.get('p');
      if (p && /^\d+$/.test(p)) paths.add(`/?p=${p}`);
      else if (path && path !== '') paths.add(path);
    } catch {
      // not a URL: the other forms still apply
    }
  }
  if (postId && /^\d+$/.test(postId)) paths.add(`/?p=${postId}`);
  if (slug) {
    const encoded = encodeURIComponent(slug);
    if (date) {
      const y = String(date.getUTCFullYear());
      const m = String(date.getUTCMonth() + 1).padStart(2, '0');
      const d = String(date.getUTCDate()).padStart(2, '0');
      paths.add(`/${y}/${m}/${d}/${encoded}`);
      paths.add(`/${y}/${m}/${encoded}`);
    }
    paths.add(`/${encoded}`);
  }
  return [...paths].filter((path) => path.length <= 1000);
}

/** A request's path and query as an old path is stored ("/?p=123", "/2019/05/my-post"), or null. */
export function oldPathKey(path: string, query: URLSearchParams): string | null {
  const p = query.get('p');
  if ((path === '/' || path === '') && p && /^\d+$/.test(p)) return `/?p=${p}`;
  const clean = path.replace(/\/+$/, '');
  return clean ? clean : null;
}
