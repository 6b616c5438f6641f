import { z } from 'zod';
import type { ArticleImageView } from './federation.js';
import type { MediaStatus } from './media.js';
import { remoteUri } from './social.js';

/**
 * Notes: the owner's short posts (Markdown, no title), each with its own page `/notes/{id}` and
 * delivered to the fediverse as a `Note`. They are not posts: no category, no digest, no e-mail.
 * A note may answer something in the fediverse (`inReplyTo`); it then mentions that author.
 */

export const NOTE_CONTENT_MAX = 5000;
export const NOTES_PAGE = 20;
/** Pictures a note carries at most (uploaded through the media pipeline, images only). */
export const NOTE_PICTURES_MAX = 4;
export const NOTE_ALT_MAX = 300;

export const NoteErrors = {
  content: 'content is required',
  contentTooLong: `A note is at most ${NOTE_CONTENT_MAX} characters`,
  inReplyTo: 'inReplyTo must be the http(s) URL of a post or note in the fediverse',
  replyTarget: 'The post or note being answered could not be fetched, or names no author',
  cursor: "cursor must be a notes page's next",
  notFound: 'Note not found',
  commentNotFound: 'Comment not found',
  commentNotReplyable: 'Only an approved comment under a post can be answered',
  tooManyPictures: `A note has at most ${NOTE_PICTURES_MAX} pictures`,
  pictureNotImage: (name: string) => `File "${name}" is a video: a note takes pictures only.`,
  alts: `alts must be a JSON array of texts (at most ${NOTE_ALT_MAX} characters each), one per picture`,
  keepPictures: 'keepPictures must be a JSON array of the ids of pictures this note has',
} as const;

const content = z
  .string({ error: NoteErrors.content })
  .trim()
  .min(1, NoteErrors.content)
  .max(NOTE_CONTENT_MAX, NoteErrors.contentTooLong);

/** The dashboard's note: Markdown, and what it answers (a remote object's id), if anything. */
export const noteWriteSchema = z.strictObject({
  content,
  inReplyTo: z.string({ error: NoteErrors.inReplyTo }).pipe(remoteUri).optional(),
});
export type NoteWrite = z.infer<typeof noteWriteSchema>;

/** An edit: the text only (what a note answers never changes). */
export const noteEditSchema = z.strictObject({ content });
export type NoteEdit = z.infer<typeof noteEditSchema>;

/** The author of what a reply answers, as the Note's `Mention` names them. */
export const noteMentionSchema = z.object({
  actorUri: remoteUri,
  /** `user@host` (no leading @). */
  handle: z.string().min(3).max(300),
});
export type NoteMention = z.infer<typeof noteMentionSchema>;

export const noteIdSchema = z.coerce.number().int().positive().max(2_147_483_647);

export const notesQuerySchema = z.object({
  cursor: z
    .string({ error: NoteErrors.cursor })
    .regex(/^[1-9][0-9]{0,9}$/, NoteErrors.cursor)
    .optional(),
});
export type NotesQuery = z.infer<typeof notesQuerySchema>;

/** A picture stored by the gateway for a note (an image file already in storage), with its alt text. */
export const notePictureUploadSchema = z.object({
  file: z.object({
    key: z.string().min(1),
    type: z.literal('image'),
    mimeType: z.string(),
    name: z.string(),
    size: z.number().int().nonnegative(),
  }),
  alt: z.string().trim().max(NOTE_ALT_MAX, NoteErrors.alts).default(''),
});
export type NotePictureUpload = z.infer<typeof notePictureUploadSchema>;

/** The form fields besides the files of a multipart note: the alt texts, one per uploaded picture. */
export const noteAltsSchema = z
  .array(z.string().max(NOTE_ALT_MAX), { error: NoteErrors.alts })
  .max(NOTE_PICTURES_MAX, NoteErrors.tooManyPictures);

/** An edit's pictures to keep (the others go); absent: all are kept. */
export const noteKeepSchema = z
  .array(z.uuid({ error: NoteErrors.keepPictures }), { error: NoteErrors.keepPictures })
  .max(NOTE_PICTURES_MAX, NoteErrors.tooManyPictures);

/** One of a note's pictures. Until processed (`pending`) or when processing failed it has no `src`. */
export interface NotePictureView {
  id: string;
  status: MediaStatus;
  /** The file the page draws (a path under /uploads), null until ready. */
  src: string | null;
  /** The same picture at other widths (an `<img srcset>`), '' when there are none. */
  srcset: string;
  width: number | null;
  height: number | null;
  alt: string;
  /** The type of `src`. */
  mediaType: string;
}

/** A note as the dashboard and its public page show it. */
export interface NoteView {
  id: number;
  /** The Markdown source. */
  content: string;
  /** Rendered and sanitised once per save. */
  html: string;
  /** Its page and its ActivityPub id: `/notes/{id}` (a path; the site's origin is the caller's). */
  url: string;
  inReplyTo: string | null;
  mention: NoteMention | null;
  published: string;
  updated: string | null;
  /** In order; visitors' pages show the ready ones only. */
  pictures: NotePictureView[];
}

export interface NotesPage {
  items: NoteView[];
  /** The cursor of the next page, or null on the last. */
  next: string | null;
}

/** null: no such note (404); gone: deleted (410). */
export type NoteAnswer = NoteView | { gone: true } | null;

/** What a federation event of a note or an owner's reply names (the Note the followers get). */
export const federatedNoteQuerySchema = z.object({
  kind: z.enum(['note', 'comment']),
  id: z.coerce.number().int().positive(),
});

/** A Note as the federation sends it: every link absolute. */
export interface FederatedNoteView {
  /** The Note's id: `{origin}/notes/{id}`, or an owner's reply's comment URL under its post. */
  uri: string;
  /** Where a reader sees it. */
  url: string;
  html: string;
  published: string;
  updated: string | null;
  inReplyTo: string | null;
  mention: NoteMention | null;
  /** Its ready pictures (the Note's `Image` attachments); an owner's reply has none. */
  images: ArticleImageView[];
}
/**
 * gone: deleted; `uri` and `mention` (when known) are what its Delete names and whom it reaches.
 */
export type FederatedNoteAnswer =
  FederatedNoteView | { gone: true; uri?: string; mention?: NoteMention | null } | null;

/** The owner's answer to a comment under a post (shown there as the author's, and sent as a Note). */
export const commentReplySchema = z.strictObject({ content });
export type CommentReply = z.infer<typeof commentReplySchema>;

export interface CommentReplyResult {
  /** The reply's comment id, under `postId`. */
  id: number;
  postId: number;
  /** Sent to the fediverse too (the answered comment came from there). */
  federated: boolean;
}
