import { z } from 'zod';
import { archiveCommentSchema } from './comments.js';
import { NOTE_ALT_MAX, NOTE_CONTENT_MAX, NOTE_PICTURES_MAX, noteMentionSchema } from './notes.js';
import { remoteUri } from './social.js';
import type { SiteConfig } from './site.js';

/**
 * The owner's whole blog in one .zip (GET /api/admin/export), and what an import of it reads
 * back. The archive holds:
 * - `blog.json`: this document;
 * - `media/<post id>/<position>-<file name>`: each file item's original as uploaded (GPS and
 *   other location data removed), named by `ArchiveMedia.file`; a file whose location data
 *   could not be removed is left out and listed in `notes`;
 * - `posts/<date>-<slug>.md`: each post as Markdown with YAML front matter (title, date,
 *   tags, category, slug, status), for Hugo, Jekyll, Eleventy or any editor;
 * - `site/<storage key>`: the uploaded banner's files (under BANNER_FOLDER), when there is one;
 * - `media/notes/<note id>/<position>-<file name>`: each note picture's original, named by
 *   `ArchiveShortNote.pictures[].file`.
 *
 * Its `followers` (the accepted fediverse followers) are a list, not something an import brings
 * back: another server cannot be made to follow a blog, so they follow the new address again.
 */

/** Where an uploaded banner's folder of variants lives in storage (media/site/banner-<id>/). */
export const BANNER_FOLDER = 'media/site/banner-';
export const BLOG_ARCHIVE_FORMAT = 'blog-archive';
export const BLOG_ARCHIVE_VERSION = 1;

const mediaSchema = z.object({
  type: z.enum(['image', 'video', 'youtube']),
  /** The original's path in the archive (files), absent for YouTube items. */
  file: z.string().max(1000).optional(),
  name: z.string().max(300).nullable().optional(),
  mimeType: z.string().max(100).nullable().optional(),
  youtubeUrl: z.string().max(500).nullable().optional(),
  title: z.string().nullable().optional(),
  alt: z.string().max(300).nullable().optional(),
  caption: z.string().max(500).nullable().optional(),
  crop: z.object({ x: z.number(), y: z.number(), scale: z.number() }).nullable().optional(),
  /** Its id in this blog: the content's `![alt](media:ID)` references name it. */
  id: z.string().max(100),
});
export type ArchiveMedia = z.infer<typeof mediaSchema>;

const postSchema = z.object({
  id: z.number().int(),
  title: z.string().max(200),
  slug: z.string().max(120),
  status: z.enum(['draft', 'published']),
  /** The post's date (a published post dated ahead is scheduled). */
  createdAt: z.string(),
  updatedAt: z.string(),
  category: z.string(),
  submenu1: z.string(),
  submenu2: z.string().nullable(),
  placeId: z.string().nullable(),
  tags: z.array(z.string()),
  /** The Markdown source. */
  content: z.string(),
  /** Where it came from when it was imported ("wxr:<guid>", …), else null. */
  sourceId: z.string().nullable(),
  /** Old addresses that answer 301 to it. */
  oldPaths: z.array(z.string()),
  media: z.array(mediaSchema),
  /** Its comments, every status (absent in archives made before comments). */
  comments: z.array(archiveCommentSchema).optional(),
});
export type ArchivePost = z.infer<typeof postSchema>;

/**
 * The blog that made the archive: its stable id (made once per database) and its public
 * address (SITE_URL, null when unset). An import keeps the subscribers' confirmations only
 * for an archive made by the same blog (same id, or moved to a new server at the same address).
 */
export const archiveBlogSchema = z.object({
  id: z.string().max(100),
  url: z.string().max(500).nullable(),
});
export type ArchiveBlog = z.infer<typeof archiveBlogSchema>;

/**
 * A fediverse follower: `handle` is `@user@server` (null when its actor named none), `actorUri`
 * its actor document, `since` when it followed (null when unknown).
 */
export const archiveFollowerSchema = z.object({
  handle: z.string().max(300).nullable(),
  actorUri: z.string().max(2000),
  since: z.string().max(40).nullable(),
});
export type ArchiveFollower = z.infer<typeof archiveFollowerSchema>;

/**
 * One of the blog's Notes (its short posts at /notes): the Markdown as written, what it answers
 * and whom that mentions, its dates, and its pictures' originals in the archive. A deleted note is
 * kept as its id and `deletedAt` only, so the blog restored at its address answers 410 there and
 * gives no new note its address. (`shortNotes`: `notes` already names the files an export left out.)
 */
export const archiveShortNoteSchema = z.object({
  id: z.number().int().positive().max(2_147_483_647),
  content: z.string().max(NOTE_CONTENT_MAX),
  inReplyTo: remoteUri.nullable(),
  mention: noteMentionSchema.nullable(),
  createdAt: z.string().max(40),
  updatedAt: z.string().max(40).nullable(),
  deletedAt: z.string().max(40).nullable().optional(),
  pictures: z
    .array(
      z.object({
        file: z.string().max(1000),
        name: z.string().max(300).nullable(),
        mimeType: z.string().max(100).nullable(),
        alt: z.string().max(NOTE_ALT_MAX).nullable(),
      }),
    )
    .max(NOTE_PICTURES_MAX),
});
export type ArchiveShortNote = z.infer<typeof archiveShortNoteSchema>;

const archiveNoteSchema = z.object({ file: z.string(), note: z.string() });
export type ArchiveNote = z.infer<typeof archiveNoteSchema>;

export const blogArchiveSchema = z.object({
  format: z.literal(BLOG_ARCHIVE_FORMAT),
  version: z.literal(BLOG_ARCHIVE_VERSION),
  exportedAt: z.string(),
  /** Absent in archives made before it was added: those count as another blog's. */
  blog: archiveBlogSchema.optional(),
  site: z.record(z.string(), z.unknown()),
  posts: z.array(postSchema),
  /** Without password hashes or two-factor secrets. */
  users: z.array(z.object({ username: z.string(), role: z.string(), createdAt: z.string() })),
  subscribers: z.array(
    z.object({
      email: z.string(),
      status: z.string(),
      createdAt: z.string(),
      confirmedAt: z.string().nullable(),
      unsubscribedAt: z.string().nullable(),
    }),
  ),
  /** The accepted fediverse followers, oldest first (absent in archives made before followers). */
  followers: z.array(archiveFollowerSchema).optional(),
  /** The blog's Notes, oldest first (absent in archives made before notes were exported). */
  shortNotes: z.array(archiveShortNoteSchema).optional(),
  /** Files named in `posts` or `shortNotes` that are not in the archive, each with the reason (e.g. a video whose location could not be removed). */
  notes: z.array(archiveNoteSchema).optional(),
});
export type BlogArchive = Omit<z.infer<typeof blogArchiveSchema>, 'site'> & { site: SiteConfig };

export type ExportState = 'queued' | 'running' | 'done' | 'failed';

/** Where an export job stands (posts.export.report), and what its archive holds once done. */
export interface ExportReport {
  id: string;
  state: ExportState;
  percent: number;
  /** Posts in the blog when the export began, and those written to the archive so far. */
  total: number;
  posts: number;
  /** Originals and banner files written, and those left out (each named in blog.json's notes). */
  files: number;
  leftOut: number;
  /** The archive's size in bytes, once done. */
  bytes: number | null;
  /** Why the export failed. */
  reason?: string;
  createdAt: string;
  updatedAt: string;
}

/** A finished archive is kept this long (in private storage) for its download; a later export removes it after. */
export const EXPORT_KEEP_HOURS = 24;

/** Where an export's archive waits for its download: a private key, never served under /uploads. */
export function exportArchiveKey(id: string): string {
  return `private/exports/${id}.zip`;
}
