import type { ArchiveComment, CommentView } from '@blog/contracts';
import type { CommentRow } from './comments.repository.js';

/** A row as every answer shows it; the avatar is the locally cached copy, never the remote URL. */
export function toView(row: CommentRow): CommentView {
  return {
    id: row.id,
    postId: row.postId,
    parentId: row.parentId,
    status: row.status,
    content: row.contentHtml,
    author: {
      name: row.authorName,
      handle: row.authorHandle,
      url: row.authorUrl,
      actorUri: row.remoteActorUri,
      avatarUrl: row.authorAvatarKey ? `/uploads/${row.authorAvatarKey}` : null,
      local: row.local,
    },
    via: row.via,
    ...(row.byOwner ? { byOwner: true as const } : {}),
    createdAt: new Date(row.createdAt).toISOString(),
    updatedAt: new Date(row.updatedAt).toISOString(),
  };
}

/**
 * A comment as readers get it: one whose change waits shows its approved text, so it is
 * approved for them.
 */
export function publicView(row: CommentRow): CommentView {
  return { ...toView(row), status: row.pendingHtml !== null ? 'approved' : row.status };
}

/** A comment as the blog archive carries it: a change that waits is not carried, so as readers see it. */
export function archiveView(row: CommentRow): ArchiveComment {
  return {
    id: row.id,
    parentId: row.parentId,
    status: row.pendingHtml !== null ? 'approved' : row.status,
    content: row.contentHtml,
    author: { name: row.authorName, handle: row.authorHandle, url: row.authorUrl, local: row.local },
    remoteObjectId: row.remoteObjectId,
    remoteActorUri: row.remoteActorUri,
    via: row.via,
    sourceId: row.sourceId,
    createdAt: new Date(row.createdAt).toISOString(),
    updatedAt: new Date(row.updatedAt).toISOString(),
  };
}
