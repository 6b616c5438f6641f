import type { PostVisibility } from '@blog/contracts';
import type { Post } from './post.entity.js';

/**
 * Who sees which posts: a visitor, published posts dated by now; the admin, everything, or
 * one status. Decided in the queries, by the database's clock (`now()`), so a scheduled post
 * appears at its minute with nothing running then, and a single post's read (Post.datedByNow,
 * the same comparison made in the same query) never disagrees with the lists when the Node
 * process's clock and the database's differ.
 */
export type PostVisibilityFilter = 'visible' | 'all' | 'published' | 'scheduled' | 'draft';
/** As SQL on the posts table (alias p): `visible` is every visitor's, the others the admin's status filter. */
export const VISIBILITY_SQL: Record<PostVisibilityFilter, string | null> = {
  visible: `p.status = 'published' AND p.created_at <= now()`,
  published: `p.status = 'published' AND p.created_at <= now()`,
  scheduled: `p.status = 'published' AND p.created_at > now()`,
  draft: `p.status = 'draft'`,
  all: null,
};

/**
 * What a reader is told of a post's state: a published post dated ahead is scheduled. A post
 * read from the database carries the database's answer (`datedByNow`); `now` decides only for
 * one that was not (a write's own answer, the in-memory repositories of the rules tests).
 */
export function visibilityOf(
  post: Pick<Post, 'status' | 'createdAt' | 'datedByNow'>,
  now = Date.now(),
): PostVisibility {
  if (post.status === 'draft') return 'draft';
  const datedByNow = post.datedByNow ?? post.createdAt.getTime() <= now;
  return datedByNow ? 'published' : 'scheduled';
}
