import type { CommentReplyResult, NotesPage, NoteView } from '@blog/contracts/notes';
import type { ApiClient } from '../../../api/client';

/** The owner's notes and replies to comments (docs/api.md, "Notes"). */
export const listNotes = (api: ApiClient, cursor: string | null, signal?: AbortSignal) =>
  api.request<NotesPage>(
    `/api/admin/fediverse/notes${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ''}`,
    { signal },
  );

/** A picture chosen in the composer, with its alt text. */
export interface PictureChoice {
  file: File;
  alt: string;
}

/** JSON without pictures; with some, the multipart form (the files, and their alt texts in order). */
export const createNote = (api: ApiClient, content: string, pictures: PictureChoice[] = []) => {
  if (pictures.length === 0)
    return api.request<NoteView>('/api/admin/fediverse/notes', { method: 'POST', body: { content } });
  const form = new FormData();
  form.append('content', content);
  form.append('alts', JSON.stringify(pictures.map((p) => p.alt.trim())));
  for (const picture of pictures) form.append('pictures', picture.file, picture.file.name);
  return api.request<NoteView>('/api/admin/fediverse/notes', { method: 'POST', form });
};

/**
 * JSON when the pictures stay as they are; else the form: `keepPictures` (the ids that stay) and
 * the new pictures with their alt texts.
 */
export const editNote = (
  api: ApiClient,
  id: number,
  content: string,
  pictures?: { keep: string[]; added: PictureChoice[] },
) => {
  const path = `/api/admin/fediverse/notes/${id}`;
  if (!pictures) return api.request<NoteView>(path, { method: 'PATCH', body: { content } });
  const form = new FormData();
  form.append('content', content);
  form.append('keepPictures', JSON.stringify(pictures.keep));
  form.append('alts', JSON.stringify(pictures.added.map((p) => p.alt.trim())));
  for (const picture of pictures.added) form.append('pictures', picture.file, picture.file.name);
  return api.request<NoteView>(path, { method: 'PATCH', form });
};

export const deleteNote = (api: ApiClient, id: number) =>
  api.request<{ deleted: true }>(`/api/admin/fediverse/notes/${id}`, { method: 'DELETE' });

/** The owner's answer under a post (shown there as the author's; sent to the fediverse when the comment came from there). */
export const replyToComment = (api: ApiClient, commentId: number, content: string) =>
  api.request<CommentReplyResult>(`/api/admin/comments/${commentId}/reply`, {
    method: 'POST',
    body: { content },
  });
