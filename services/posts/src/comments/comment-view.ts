import type { CommentView } from '@blog/contracts';
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
    createdAt: new Date(row.createdAt).toISOString(),
    updatedAt: new Date(row.updatedAt).toISOString(),
  };
}
