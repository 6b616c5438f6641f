import {
  archiveBlogSchema,
  archiveShortNoteSchema,
  BLOG_ARCHIVE_FORMAT,
  BLOG_ARCHIVE_VERSION,
  blogArchiveSchema,
  type ArchiveBlog,
  type ArchiveShortNote,
  type BlogArchive,
  type SiteConfig,
} from '@blog/contracts';
import type { ArchivePost } from '@blog/contracts';
import type { ObjectStorage } from '@blog/server-kit';
import { openStoredArchive, type StoredArchive } from './archive-reader.js';
import { jsonAt } from '../import/json-stream.js';
import { ImportFileError, type SourceEntry } from '../import/source-post.js';

const postSchema = blogArchiveSchema.shape.posts.element;
const subscriberSchema = blogArchiveSchema.shape.subscribers.element;
const noteSchema = blogArchiveSchema.shape.notes.unwrap().element;
/** Notes kept from blog.json at most (one per file left out; more are not read). */
const MAX_NOTES = 10_000;

export interface OpenedArchive {
  archive: StoredArchive;
  site: SiteConfig;
  /** The blog that made it (absent in archives made before they carried it). */
  blog?: ArchiveBlog;
  total: number;
  users: number;
  /** Fediverse followers the archive lists (never restored: they follow again). */
  followers: number;
  /**
   * Files the export left out, by name, with its reason (blog.json's `notes`, e.g. a video
   * whose location could not be removed): an item naming one is reported with that reason
   * rather than as a file missing from the zip.
   */
  leftOut: ReadonlyMap<string, string>;
}

/** This blog's own export: its blog.json checked (format, version) and its posts counted, streamed. */
export async function openBlogArchive(storage: ObjectStorage, key: string): Promise<OpenedArchive> {
  const archive = await openStoredArchive(storage, key);
  try {
    if (!archive.has('blog.json'))
      throw new ImportFileError('The zip has no blog.json: it is not an export of this blog');
    const head: { format?: unknown; version?: unknown; site?: SiteConfig } = {};
    for await (const value of jsonAt<unknown>(await archive.open('blog.json'), /^(format|version|site)$/, {
      elements: false,
    })) {
      if (typeof value === 'string') head.format = value;
      else if (typeof value === 'number') head.version = value;
      else head.site = value as SiteConfig;
    }
    if (head.format !== BLOG_ARCHIVE_FORMAT)
      throw new ImportFileError('blog.json is not a blog-archive document');
    if (head.version !== BLOG_ARCHIVE_VERSION)
      throw new ImportFileError(
        `blog.json is version ${String(head.version)}; this blog reads version ${BLOG_ARCHIVE_VERSION}`,
      );
    if (!head.site) throw new ImportFileError('blog.json has no site');
    let blog: ArchiveBlog | undefined;
    for await (const value of jsonAt<unknown>(await archive.open('blog.json'), /^blog$/, {
      elements: false,
    })) {
      blog = archiveBlogSchema.safeParse(value).data;
      break;
    }
    let total = 0;
    for await (const _post of jsonAt(await archive.open('blog.json'), /^posts$/)) total++;
    let users = 0;
    for await (const _user of jsonAt(await archive.open('blog.json'), /^users$/)) users++;
    let followers = 0;
    for await (const _follower of jsonAt(await archive.open('blog.json'), /^followers$/)) followers++;
    const leftOut = new Map<string, string>();
    for await (const value of jsonAt(await archive.open('blog.json'), /^notes$/)) {
      const note = noteSchema.safeParse(value);
      if (note.success) leftOut.set(note.data.file, note.data.note.slice(0, 300));
      if (leftOut.size >= MAX_NOTES) break;
    }
    return { archive, site: head.site, blog, total, users, followers, leftOut };
  } catch (error) {
    archive.close();
    throw error;
  }
}

/** Each post of the archive, checked against the format; one that does not fit is skipped and named. */
export async function* archiveEntries(archive: StoredArchive): AsyncGenerator<SourceEntry> {
  for await (const value of jsonAt<Record<string, unknown>>(await archive.open('blog.json'), /^posts$/)) {
    const parsed = postSchema.safeParse(value);
    if (parsed.success) yield { kind: 'archive', post: parsed.data };
    else yield { kind: 'skipped', reason: 'invalid', item: String(value?.title ?? value?.id ?? 'a post') };
  }
}

/** The archive's notes, each checked against the format; one that does not fit is skipped and named. */
export async function* archiveShortNotes(
  archive: StoredArchive,
): AsyncGenerator<{ note: ArchiveShortNote } | { invalid: string }> {
  for await (const value of jsonAt<Record<string, unknown>>(
    await archive.open('blog.json'),
    /^shortNotes$/,
  )) {
    const parsed = archiveShortNoteSchema.safeParse(value);
    if (parsed.success) yield { note: parsed.data };
    else yield { invalid: `note ${String(value?.id ?? '')}`.trim().slice(0, 40) };
  }
}

/** The archive's subscribers, checked against the format, `size` at a time. */
export async function* archiveSubscribers(
  archive: StoredArchive,
  size: number,
): AsyncGenerator<BlogArchive['subscribers']> {
  let batch: BlogArchive['subscribers'] = [];
  for await (const value of jsonAt(await archive.open('blog.json'), /^subscribers$/)) {
    const parsed = subscriberSchema.safeParse(value);
    if (!parsed.success) continue;
    batch.push(parsed.data);
    if (batch.length >= size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length) yield batch;
}

/**
 * A post's items that name the same file of the archive become one item (the text's
 * references to the others point at it); across posts, the import copies the original it
 * stored the first time (ArchiveRestore.storeEntry).
 */
export function shareArchiveFiles(post: ArchivePost): ArchivePost {
  const firstByFile = new Map<string, string>();
  let content = post.content;
  const media = post.media.filter((item) => {
    if (!item.file) return true;
    const first = firstByFile.get(item.file);
    if (first === undefined) {
      firstByFile.set(item.file, item.id);
      return true;
    }
    content = content.replaceAll(`(media:${item.id})`, `(media:${first})`);
    return false;
  });
  return { ...post, content, media };
}
