import { ImportFileError } from './source-post.js';

/**
 * What one import may hold in memory, whatever the file's shape (the posts service runs with a
 * small heap). A file past one of these fails with a message naming the limit; a post past
 * POST_HTML_MAX fails alone.
 */
export const IMPORT_LIMITS = {
  /** One text of a file: a text node or CDATA section, an attribute, a JSON string, key or number. */
  text: 4 * 1024 * 1024,
  /** One item of a WordPress export, or one row of a Ghost export or blog.json, all its texts together. */
  item: 16 * 1024 * 1024,
  /** One XML comment (an export's are a line or two). */
  comment: 64 * 1024,
  /** Elements or arrays inside each other. */
  depth: 64,
  /** A WordPress export's attachments: their addresses and alt texts together (kept for the posts). */
  attachments: 32 * 1024 * 1024,
  /** A Ghost export's tags, their links to posts, and the posts' meta rows. */
  ghostTags: 10_000,
  ghostTagLinks: 100_000,
  ghostMeta: 100_000,
  ghostMembers: 100_000,
  /** Ghost's own comments, kept for their posts: how many, and their HTML together. */
  ghostComments: 100_000,
  ghostCommentBytes: 32 * 1024 * 1024,
  /** This blog's own export: the bytes its zip expands to while read (each read counted), and its entries. */
  archiveBytes: 8 * 1024 * 1024 * 1024,
  archiveEntries: 100_000,
  /** Files of the banner's folder in a blog archive (the banner and its renderings). */
  bannerFiles: 50,
  /** Media of one post (the form's limit), checked before any is fetched. */
  postMedia: 200,
  /** One post's HTML: five times what a post holds (200,000 characters), so the conversion stays short. */
  postHtml: 1024 * 1024,
} as const;

const MB = 1024 * 1024;
/** "4 MB": how the messages name a limit. */
export const describeBytes = (bytes: number) =>
  bytes % MB === 0 ? `${bytes / MB} MB` : bytes % 1024 === 0 ? `${bytes / 1024} KB` : `${bytes} bytes`;

/** A file past one of the limits: the whole import fails, even when a single post was being read. */
export class ImportLimitError extends ImportFileError {}

/** The error of a file past one limit: "The file has a text of more than 4 MB (the limit of an import)". */
export function overLimit(what: string): ImportLimitError {
  return new ImportLimitError(`The file has ${what} (the limit of an import)`);
}

/**
 * A pause for the event loop every `everyMs` of work: a reader whose input is already
 * buffered runs on promise callbacks alone, which starve timers and sockets (a site's reads
 * waited seconds behind an import). Call it once per unit of work; it awaits only when due.
 */
export function breather(everyMs = 10): () => Promise<void> {
  let since = performance.now();
  return async () => {
    if (performance.now() - since < everyMs) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    since = performance.now();
  };
}
