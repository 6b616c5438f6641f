import { Inject, Injectable } from '@nestjs/common';
import {
  BANNER_FOLDER,
  escapeRegExp,
  findSiteNode,
  MAX_FILE_BYTES,
  siteNodes,
  type ArchiveComment,
  type ArchivePost,
  type ArchiveShortNote,
  type NotePictureUpload,
  type SiteConfig,
  type UploadedFile,
} from '@blog/contracts';
import {
  contentTypeForKey,
  MediaFileRefused,
  ORIGINALS_PREFIX,
  storeMediaOriginal,
  type ObjectStorage,
} from '@blog/server-kit';
import { createHash } from 'node:crypto';
import { BlogIdentity, madeByThisBlog } from '../import/blog-identity.js';
import { placeOf } from '../import/category-map.js';
import { errorMessage } from '../import/import-job.js';
import { IMPORT_LIMITS, ImportLimitError } from '../import/import-limits.js';
import { MediaClient } from '../import/media-client.js';
import { NotesService } from '../notes/notes.service.js';
import { reportError, type StoredReport } from '../import/import-report.js';
import { MailClient } from './mail-client.js';
import type { PostToWrite } from '../import/post-writer.js';
import { ImportFileError } from '../import/source-post.js';
import { SiteSettings } from '../site/site-settings.js';
import { STORAGE } from '../tokens.js';
import {
  archiveShortNotes,
  archiveSubscribers,
  openBlogArchive,
  shareArchiveFiles,
  type OpenedArchive,
} from './archive-entries.js';
import type { StoredArchive } from './archive-reader.js';
import type { ImportedComment } from '../comments/imported-comment.js';

/** One run of an import of this blog's own export: the archive read in place, and what it stored. */
export interface ArchiveRun {
  opened: OpenedArchive;
  /** Whether this blog made the archive (same id, or the same address on a new server). */
  madeHere: boolean;
  /**
   * Each entry read during this run: the original it was stored as (or why it was refused).
   * A later post naming the entry gets a copy of that original, not a second read.
   */
  storedEntries: Map<string, Promise<UploadedFile>>;
}

/**
 * Bringing back this blog's own export (the reading side of the archive's format): its site
 * settings and banner first, then each post mapped with its files from the zip, then its notes,
 * and at the end its subscribers.
 */
@Injectable()
export class ArchiveRestore {
  constructor(
    @Inject(STORAGE) private readonly storage: ObjectStorage,
    private readonly settings: SiteSettings,
    private readonly mail: MailClient,
    private readonly identity: BlogIdentity,
    private readonly notes: NotesService,
    private readonly media: MediaClient,
  ) {}

  /**
   * Opens the archive; on a first run (nothing processed yet) the settings go first, so the
   * posts find their places: a tree the blog's own posts would not fit in is refused and
   * reported, and the posts then go where their labels lead.
   */
  async begin(key: string, report: StoredReport): Promise<ArchiveRun> {
    const opened = await openBlogArchive(this.storage, key);
    report.total = opened.total;
    if (report.processed === 0) {
      try {
        await this.restoreBanner(opened.archive, opened.site);
        await this.settings.update(opened.site, []);
      } catch (error) {
        reportError(report, 'site settings', `not restored: ${errorMessage(error)}`);
      }
    }
    const madeHere = madeByThisBlog(opened.blog, await this.identity.current());
    return { opened, madeHere, storedEntries: new Map() };
  }

  /** A post of the export: its Markdown as it was, its place by id or labels, its files from the archive. */
  mapPost(archived: ArchivePost, run: ArchiveRun): PostToWrite {
    const post = shareArchiveFiles(archived);
    const nodes = siteNodes(this.settings.current());
    const byLabels = findSiteNode(
      nodes,
      [post.category, post.submenu1, post.submenu2].filter(Boolean).join(' / '),
    );
    const byId = post.placeId ? nodes.find((n) => n.id === post.placeId) : undefined;
    const leaf =
      [byId, byLabels].find((n) => n?.leaf) ??
      placeOf(this.settings.current(), { categories: [], tags: [] }, { categoryMap: {} }).leaf;
    const main = post.media.find((m) => m.type === 'image');
    const sourceId = post.sourceId ?? `blog:${post.id}`;
    return {
      sourceId,
      title: post.title,
      slug: post.slug,
      // The text's `media:ID` references are the items' ids in the exported blog: each item
      // carries that id as its ref, so they point at the new items once saved.
      content: post.content,
      status: post.status,
      date: new Date(post.createdAt),
      leaf,
      tags: post.tags,
      oldPaths: post.oldPaths,
      crop: main?.crop ?? undefined,
      media: post.media.map((item) => ({
        ref: item.id,
        kind: item.type,
        url: item.youtubeUrl ?? '',
        identity: item.file ?? item.youtubeUrl ?? item.id,
        alt: item.alt ?? undefined,
        caption: item.caption ?? undefined,
        title: item.title ?? undefined,
        fetch: item.file ? (key) => this.storeEntry(run, item.file!, item.name ?? 'file', key) : undefined,
      })),
      comments: archivedComments(sourceId, post.comments ?? []),
    };
  }

  /**
   * After the posts: the subscribers back (no e-mail sent), confirmed only when the archive is
   * this blog's own (they confirmed to this blog, not to another); its accounts and its
   * fediverse followers are not (each is named in the report).
   */
  async restorePeople({ opened, madeHere }: ArchiveRun, report: StoredReport): Promise<void> {
    let unconfirmed = 0;
    for await (const batch of archiveSubscribers(opened.archive, 500)) {
      try {
        unconfirmed += (await this.mail.restoreSubscribers(batch, madeHere)).unconfirmed;
      } catch (error) {
        reportError(report, 'subscribers', `not restored: ${errorMessage(error)}`);
        break;
      }
    }
    if (unconfirmed)
      reportError(
        report,
        'subscribers',
        `${unconfirmed} confirmed subscriber(s) restored as unconfirmed: the archive was made by another blog, so they get no digest until they subscribe here and confirm`,
      );
    if (opened.users)
      reportError(
        report,
        'users',
        `${opened.users} account(s) not restored: an export holds no passwords (register them again)`,
      );
    if (opened.followers)
      reportError(
        report,
        'followers',
        `${opened.followers} fediverse follower(s) not restored: another server cannot be made to follow this blog, so they follow it again (blog.json lists their handles)`,
      );
  }

  /**
   * After the posts: the notes as they were, each with its pictures from the zip (queued for the
   * media worker). A note the same archive brought before is passed over, so a resumed or repeated
   * import adds none twice; a note keeps its id (its address) when the archive is this blog's own
   * and the id is free, and a deleted one comes back deleted (its page answers 410), without text
   * or pictures. A picture that cannot be brought is named in the report; its note comes without it.
   */
  async restoreNotes(
    run: ArchiveRun,
    importId: string,
    report: StoredReport,
    check: () => void,
  ): Promise<void> {
    const blog = run.opened.blog?.id ?? 'archive';
    for await (const entry of archiveShortNotes(run.opened.archive)) {
      check();
      if ('invalid' in entry) {
        report.skipped++;
        report.skippedBy.note = (report.skippedBy.note ?? 0) + 1;
        continue;
      }
      const { note } = entry;
      // A deleted note matters only at the address it had: it keeps that address from a new note.
      if (note.deletedAt && !run.madeHere) continue;
      const sourceId = `blog:${blog}:note:${note.id}`;
      const item = `note ${note.id}`;
      if (await this.notes.hasSource(sourceId)) continue;
      const pictures = note.deletedAt
        ? []
        : await this.notePictures(run, importId, sourceId, note, (message) =>
            reportError(report, item, message),
          );
      try {
        const restored = await this.notes.restore(
          {
            sourceId,
            id: run.madeHere ? note.id : null,
            content: note.deletedAt ? '' : note.content,
            inReplyTo: note.inReplyTo,
            mention: note.mention,
            createdAt: validDate(note.createdAt) ?? new Date(),
            updatedAt: note.updatedAt ? validDate(note.updatedAt) : null,
            deletedAt: note.deletedAt ? (validDate(note.deletedAt) ?? new Date()) : null,
          },
          pictures,
        );
        if (!restored || note.deletedAt) continue;
        report.notes = (report.notes ?? 0) + 1;
        const pending = restored.pictures.filter((p) => p.status === 'pending').map((p) => p.id);
        if (pending.length) this.media.enqueue(pending);
      } catch (error) {
        await this.storage.deleteMany(pictures.map((p) => p.file.key)).catch(() => undefined);
        reportError(report, item, `not restored: ${errorMessage(error)}`);
      }
    }
  }

  /** A note's pictures stored from the zip as originals (images only); each refusal is reported. */
  private async notePictures(
    run: ArchiveRun,
    importId: string,
    sourceId: string,
    note: ArchiveShortNote,
    refused: (message: string) => void,
  ): Promise<NotePictureUpload[]> {
    const pictures: NotePictureUpload[] = [];
    for (const picture of note.pictures) {
      const base = createHash('sha256').update(`${sourceId}\n${picture.file}`).digest('hex').slice(0, 32);
      try {
        const file = await this.storeEntry(
          run,
          picture.file,
          picture.name ?? 'picture',
          (ext) => `${ORIGINALS_PREFIX}/import/${base}.${importId}.${ext}`,
        );
        if (file.type !== 'image') {
          await this.storage.delete(file.key).catch(() => undefined);
          throw new ImportFileError('a note takes pictures only');
        }
        pictures.push({ file: { ...file, type: 'image' }, alt: picture.alt ?? '' });
      } catch (error) {
        if (error instanceof ImportLimitError) throw error; // the archive's budget: the import stops
        refused(`${picture.file}: ${errorMessage(error)}`);
      }
    }
    return pictures;
  }

  /** The uploaded banner's files, back where the settings point (`site/<key>` in the archive). */
  private async restoreBanner(archive: StoredArchive, site: SiteConfig): Promise<void> {
    const named = JSON.stringify(site);
    const banner = new RegExp(`^site/(${escapeRegExp(BANNER_FOLDER)}[0-9a-f-]{36}/[A-Za-z0-9._-]{1,100})$`);
    let files = 0;
    for (const name of archive.names()) {
      const key = banner.exec(name)?.[1];
      // Only the folder the settings name (the banner and its variants), a few files, each at
      // most what an upload may be.
      if (!key || !named.includes(key.slice(0, key.lastIndexOf('/') + 1))) continue;
      if (++files > IMPORT_LIMITS.bannerFiles)
        throw new ImportFileError(`more than ${IMPORT_LIMITS.bannerFiles} banner files`);
      if (await this.storage.stat(key)) continue;
      await this.storage.put(key, await archive.open(name, MAX_FILE_BYTES), {
        contentType: contentTypeForKey(key),
        maxBytes: MAX_FILE_BYTES,
      });
    }
  }

  /**
   * An archive entry stored as a post's original at `key`: read from the zip the first time
   * the import meets it, copied inside the store from that first original afterwards, so an
   * entry is read (and counted against the archive's budget) once however many posts name it.
   * An entry refused for what it holds is refused again without a read; when the first
   * original is gone (its post failed), the entry is read again.
   */
  private async storeEntry(
    run: ArchiveRun,
    entry: string,
    name: string,
    key: (ext: string) => string,
  ): Promise<UploadedFile> {
    const leftOut = run.opened.leftOut.get(entry);
    if (leftOut !== undefined && !run.opened.archive.has(entry))
      throw new ImportFileError(`not in the archive (its export noted: ${leftOut})`);
    const first = run.storedEntries.get(entry);
    if (first) {
      const stored = await first;
      const copyKey = key(stored.key.slice(stored.key.lastIndexOf('.') + 1));
      if (await this.storage.copy(stored.key, copyKey)) return { ...stored, key: copyKey, name };
    }
    const reading = run.opened.archive
      .open(entry, MAX_FILE_BYTES)
      .then((stream) => storeMediaOriginal(this.storage, stream, { name, key }));
    run.storedEntries.set(entry, reading);
    // Only a refusal of the bytes themselves is remembered (a lost connection may do better next time).
    reading.catch((error: unknown) => {
      if (!(error instanceof MediaFileRefused || error instanceof ImportFileError))
        run.storedEntries.delete(entry);
    });
    return reading;
  }
}

/**
 * An archived post's comments, as they were (status, author, dates); each keeps the identity it
 * had, or takes one from the post's and its id there, so a restore run again adds none twice.
 */
function archivedComments(postSourceId: string, comments: ArchiveComment[]): ImportedComment[] {
  const identity = new Map(
    comments.map((c) => [c.id, c.sourceId ?? `${postSourceId}:comment:${c.id}`.slice(0, 400)]),
  );
  return comments.map((c) => ({
    sourceId: identity.get(c.id)!,
    parentSourceId: c.parentId === null ? null : (identity.get(c.parentId) ?? null),
    status: c.status,
    html: c.content,
    authorName: c.author.name,
    authorHandle: c.author.handle,
    authorUrl: c.author.url,
    local: c.author.local,
    remoteObjectId: c.remoteObjectId,
    remoteActorUri: c.remoteActorUri,
    via: c.via,
    createdAt: validDate(c.createdAt),
    updatedAt: validDate(c.updatedAt),
  }));
}

const validDate = (text: string): Date | null => {
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? null : date;
};
