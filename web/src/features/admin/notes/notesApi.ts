import type { CommentReplyResult, NotesPage, NoteView } from '@blog/contracts/notes';
import type { ApiClient } from '../../../api/client';

/** The owner's notes and replies to comments (docs/api.md, "Notes"). */
export const listNotes = (api: ApiClient, cursor: string | null, signal?: AbortSignal) =>
  api.request<NotesPage>(
    `/api/admin/fediverse/notes${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ''}`,
    { signal },
  );

export const createNote = (api: ApiClient, content: string) =>
  api.request<NoteView>('/api/admin/fediverse/notes', { method: 'POST', body: { content } });

export const editNote = (api: ApiClient, id: number, content: string) =>
  api.request<NoteView>(`/api/admin/fediverse/notes/${id}`, { method: 'PATCH', body: { content } });

export const deleteNote = (api: ApiClient, id: number) =>
  api.request<{ deleted: true }>(`/api/admin/fediverse/notes/${id}`, { method: 'DELETE' });

/** The owner's answer under a post (shown there as the author's; sent to the fediverse when the comment came from there). */
export const replyToComment = (api: ApiClient, commentId: number, content: string) =>
  api.request<CommentReplyResult>(`/api/admin/comments/${commentId}/reply`, {
    method: 'POST',
    body: { content },
  });
