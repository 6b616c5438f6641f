import { Inject, Injectable } from '@nestjs/common';
import {
  BLOG_ARCHIVE_FORMAT,
  BLOG_ARCHIVE_VERSION,
  BANNER_FOLDER,
  keyFromUploadsPath,
  UPLOADS_PREFIX,
  MAIL_PAGE_MAX,
  type ArchiveNote,
  type ArchivePost,
  type ArchiveShortNote,
} from '@blog/contracts';
import type { ObjectStorage } from '@blog/server-kit';
import { PassThrough, Readable } from 'node:stream';
import { stringify } from 'yaml';
import { ZipFile } from 'yazl';
import { BlogIdentity } from '../import/blog-identity.js';
import { MailClient } from './mail-client.js';
import { SiteSettings } from '../site/site-settings.js';
import { STORAGE } from '../tokens.js';
import { AuthClient } from './auth-client.js';
import { SocialClient } from './social-client.js';
import { PostsRepository, type ExportBatch } from '../posts/posts.repository.js';
import { LocationStripper, type Stripped } from './strip-location.js';
import { CommentsService } from '../comments/comments.service.js';
import { NotesRepository, type ExportNoteRow } from '../notes/notes.repository.js';
import { mentionOf } from '../notes/notes.service.js';

/** What the writer has put in the archive so far (the export job's progress). */
export interface ArchiveProgress {
  posts: number;
  files: number;
  leftOut: number;
}

const BATCH = 200;

/**
 * "media/12/0-red car.jpg" (a post's), "media/notes/3/0-garden.png" (a note's): a file name kept
 * readable, without path separators or control characters.
 */
function archiveName(folder: string, position: number, name: string | null): string {
  // eslint-disable-next-line no-control-regex -- control characters have no place in a file name
  const safe = (name ?? 'file').replace(/[/\\\u0000-\u001f]/g, '_').slice(0, 120) || 'file';
  return `${folder}/${position}-${safe}`;
}

/** The post as a Markdown file with front matter; its media references become archive paths. */
function markdownFile(post: ArchivePost): string {
  const byId = new Map(post.media.map((m) => [m.id, m]));
  const body = post.content.replace(
    /!\[([^\]]*)\]\(media:([A-Za-z0-9_-]+)\)/g,
    (all, alt: string, id: string) => {
      const item = byId.get(id);
      if (!item) return all;
      if (item.type === 'youtube')
        return `[${alt || item.title || 'YouTube video'}](${item.youtubeUrl ?? ''})`;
      return `![${alt}](../${item.file})`;
    },
  );
  const front = stringify({
    title: post.title,
    date: post.createdAt,
    slug: post.slug,
    draft: post.status === 'draft',
    status: post.status,
    category: [post.category, post.submenu1, post.submenu2]
      .filter((part) => part && part !== 'General')
      .join('/'),
    tags: post.tags,
  });
  return `---\n${front}---\n\n${body}\n`;
}

/**
 * The owner's whole blog as one .zip, written as it is sent: blog.json (the format in
 * @blog/contracts/blog-archive, each post with its comments, the fediverse followers as
 * handles, the notes), each original under media/ (a note's under media/notes/) and
 * each post as Markdown under posts/. Posts are read a page at a time and each original is opened only when the zip
 * reaches it, so memory stays flat however large the blog; blog.json, the one document that
 * lists everything, is written last, from the pages as they went by.
 */
@Injectable()
export class ArchiveWriter {
  constructor(
    private readonly posts: PostsRepository,
    private readonly settings: SiteSettings,
    private readonly identity: BlogIdentity,
    private readonly auth: AuthClient,
    private readonly mail: MailClient,
    @Inject(STORAGE) private readonly storage: ObjectStorage,
    private readonly stripper: LocationStripper,
    private readonly comments: CommentsService,
    private readonly social: SocialClient,
    private readonly notes: NotesRepository,
  ) {}

  /** The zip as a stream; `signal` stops the walk; `progress` hears of each post and file written. */
  archive(signal: AbortSignal, progress: (done: ArchiveProgress) => void = () => undefined): Readable {
    const zip = new ZipFile();
    const out = new PassThrough();
    zip.outputStream.pipe(out);
    zip.outputStream.on('error', (error) => out.destroy(error));
    const fail = (error: Error) => out.destroy(error);
    this.fill(zip, signal, progress, fail).catch(fail);
    return out;
  }

  private async fill(
    zip: ZipFile,
    signal: AbortSignal,
    progress: (done: ArchiveProgress) => void,
    fail: (error: Error) => void,
  ): Promise<void> {
    const leftOut: ArchiveNote[] = [];
    const written: ArchiveProgress = { posts: 0, files: 0, leftOut: 0 };
    // One file is cleaned ahead of the one the zip is writing: the walk waits for the zip to
    // reach each file before it prepares the next, so memory holds at most two originals.
    let reached: Promise<void> = Promise.resolve();
    let prepared: Readable | null = null;
    signal.addEventListener('abort', () => prepared?.destroy(), { once: true });
    const addFile = async (name: string, open: () => Promise<Stripped>) => {
      await reached;
      if (signal.aborted) throw new Error('export cancelled');
      const stripped = await open();
      if ('leftOut' in stripped) {
        leftOut.push({ file: name, note: `left out: ${stripped.leftOut}` });
        written.leftOut++;
        return;
      }
      written.files++;
      prepared = stripped.stream;
      let start!: () => void;
      reached = new Promise<void>((resolve) => (start = resolve));
      // Stored, not deflated: pictures and videos are compressed already.
      zip.addReadStreamLazy(name, { compress: false }, (done) => {
        start();
        prepared = null;
        done(null, stripped.stream);
      });
    };
    const original = async (key: string, mimeType: string | null): Promise<Stripped> => {
      const object = await this.storage.get(key);
      return object ? this.stripper.strip(object.body, mimeType) : { stream: emptyStream() };
    };

    for await (const page of this.pages(signal)) {
      for (const [i, post] of page.entries()) {
        for (const item of post.media) {
          if (!item.file || !item.originalKey) continue;
          await addFile(item.file, () => original(item.originalKey!, item.mimeType ?? null));
        }
        const markdown = Buffer.from(markdownFile(toArchivePost(post)));
        const name = `posts/${post.createdAt.slice(0, 10)}-${post.slug}.md`;
        // Deflated when the zip reaches it, one entry at a time: addBuffer deflates at once, and a
        // page's hundreds of deflate states alive together fragmented the heap (200 MB kept).
        if (i < page.length - 1) zip.addReadStreamLazy(name, (done) => done(null, Readable.from([markdown])));
        else {
          // At most two pages of posts wait in the zip's queue: the next page is read once
          // the zip has reached the last file of the page before.
          await reached;
          let start!: () => void;
          reached = new Promise<void>((resolve) => (start = resolve));
          zip.addReadStreamLazy(name, (done) => {
            start();
            done(null, Readable.from([markdown]));
          });
        }
        written.posts++;
        progress({ ...written });
      }
    }
    await this.addBanner(addFile);
    for await (const page of this.notePages(signal))
      for (const note of page)
        for (const picture of note.pictures)
          if (picture.originalKey)
            await addFile(picture.file, () => original(picture.originalKey!, picture.mimeType));
    // blog.json last, from a second walk: the one document that lists everything is streamed
    // too, never held whole.
    const json = Readable.from(this.blogJson(signal, leftOut));
    // The zip does not pass on its sources' errors: a service that fails mid-way (auth, mail,
    // social) would otherwise leave the archive waiting forever.
    json.once('error', fail);
    zip.addReadStream(json, 'blog.json');
    zip.end();
  }

  /** The site's own banner, when one was uploaded: its folder of variants under site/, as stored. */
  private async addBanner(
    addFile: (name: string, open: () => Promise<Stripped>) => Promise<void>,
  ): Promise<void> {
    const site = this.settings.current();
    if (!site.bannerImage.startsWith(`${UPLOADS_PREFIX}${BANNER_FOLDER}`)) return;
    const key = keyFromUploadsPath(site.bannerImage);
    const folder = key.slice(0, key.lastIndexOf('/') + 1);
    // The media service's renderings, which keep no metadata: as stored.
    for (const file of await this.storage.list(folder))
      await addFile(`site/${file}`, async () => {
        const object = await this.storage.get(file);
        return { stream: object ? object.body : emptyStream() };
      });
  }

  /** The posts a page at a time, each with its media's archive paths. */
  private async *pages(signal: AbortSignal): AsyncGenerator<ExportPost[]> {
    for (let afterId = 0; ;) {
      if (signal.aborted) throw new Error('export cancelled');
      const batch = await this.posts.exportPage(afterId, BATCH);
      if (batch.posts.length) yield batch.posts.map(withFiles);
      if (batch.lastId === null || batch.posts.length < BATCH) return;
      afterId = batch.lastId;
    }
  }

  /** The notes a page at a time, each with its pictures' archive paths. */
  private async *notePages(signal: AbortSignal): AsyncGenerator<ExportNote[]> {
    for (let afterId = 0; ;) {
      if (signal.aborted) throw new Error('export cancelled');
      const rows = await this.notes.exportPage(afterId, BATCH);
      if (rows.length) yield rows.map(withNoteFiles);
      if (rows.length < BATCH) return;
      afterId = rows[rows.length - 1]!.id;
    }
  }

  private async *blogJson(signal: AbortSignal, notes: ArchiveNote[]): AsyncGenerator<string> {
    const site = this.settings.current();
    const blog = await this.identity.current();
    yield `{"format":${JSON.stringify(BLOG_ARCHIVE_FORMAT)},"version":${BLOG_ARCHIVE_VERSION},"exportedAt":${JSON.stringify(new Date().toISOString())},"blog":${JSON.stringify(blog)},"site":${JSON.stringify(site)},"posts":[`;
    let first = true;
    for await (const page of this.pages(signal)) {
      const comments = await this.comments.archiveOf(page.map((post) => post.id));
      yield page
        .map((post, i) => {
          const archived: ArchivePost = { ...toArchivePost(post), comments: comments.get(post.id) ?? [] };
          return `${first && i === 0 ? '' : ','}${JSON.stringify(archived)}`;
        })
        .join('');
      first = false;
    }
    const users = await this.auth.listUsers();
    yield `],"users":${JSON.stringify(users.map((u) => ({ username: u.username, role: u.role, createdAt: u.created_at })))},"subscribers":[`;
    first = true;
    for (let page = 1; ; page++) {
      const result = await this.mail.listSubscribers(page, MAIL_PAGE_MAX);
      yield result.items
        .map(
          (s, i) =>
            `${first && i === 0 ? '' : ','}${JSON.stringify({ email: s.email, status: s.status, createdAt: s.created_at, confirmedAt: s.confirmed_at, unsubscribedAt: s.unsubscribed_at })}`,
        )
        .join('');
      if (result.items.length) first = false;
      if (page * MAIL_PAGE_MAX >= result.total || result.items.length === 0) break;
    }
    // The followers as a list another server's owner can read (handles), never restored: a
    // server cannot be made to follow a blog. The social service down fails the export.
    yield `],"followers":[`;
    first = true;
    for await (const followers of this.social.followers()) {
      yield followers.map((f, i) => `${first && i === 0 ? '' : ','}${JSON.stringify(f)}`).join('');
      first = false;
    }
    yield `],"shortNotes":[`;
    first = true;
    for await (const page of this.notePages(signal)) {
      yield page.map((n, i) => `${first && i === 0 ? '' : ','}${JSON.stringify(toArchiveNote(n))}`).join('');
      first = false;
    }
    yield `],"notes":${JSON.stringify(notes)}}`;
  }
}

type ExportPost = ExportBatch['posts'][number] & {
  media: (ExportBatch['posts'][number]['media'][number] & { file?: string })[];
};

function withFiles(post: ExportBatch['posts'][number]): ExportPost {
  return {
    ...post,
    media: post.media.map((item) =>
      item.originalKey && item.type !== 'youtube'
        ? { ...item, file: archiveName(`media/${post.id}`, item.position, item.name ?? null) }
        : item,
    ),
  };
}

function toArchivePost(post: ExportPost): ArchivePost {
  return { ...post, media: post.media.map(({ originalKey: _key, position: _position, ...item }) => item) };
}

type ExportNote = Omit<ExportNoteRow, 'pictures'> & {
  pictures: (ExportNoteRow['pictures'][number] & { file: string })[];
};

function withNoteFiles(note: ExportNoteRow): ExportNote {
  return {
    ...note,
    pictures: note.pictures.map((p) => ({
      ...p,
      file: archiveName(`media/notes/${note.id}`, p.position, p.name),
    })),
  };
}

function toArchiveNote(note: ExportNote): ArchiveShortNote {
  return {
    id: note.id,
    content: note.content,
    inReplyTo: note.inReplyTo,
    mention: mentionOf(note),
    createdAt: new Date(note.createdAt).toISOString(),
    updatedAt: note.updatedAt ? new Date(note.updatedAt).toISOString() : null,
    deletedAt: note.deletedAt ? new Date(note.deletedAt).toISOString() : null,
    // A picture whose original is gone is not listed (there is nothing to bring back).
    pictures: note.pictures
      .filter((p) => p.originalKey)
      .map((p) => ({ file: p.file, name: p.name, mimeType: p.mimeType, alt: p.alt })),
  };
}

function emptyStream(): Readable {
  const stream = new PassThrough();
  stream.end();
  return stream;
}
