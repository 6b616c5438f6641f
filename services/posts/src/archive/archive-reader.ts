import type { ObjectStorage } from '@blog/server-kit';
import { channel } from 'node:diagnostics_channel';
import { PassThrough, Transform, type Readable } from 'node:stream';
import yauzl from 'yauzl';
import { describeBytes, IMPORT_LIMITS, overLimit } from '../import/import-limits.js';
import { ImportFileError } from '../import/source-post.js';

/** What reading an archive may cost: a zip of a few KB can expand to terabytes. */
export interface ArchiveBudget {
  /** Uncompressed bytes of all entries read during the import, each read counted (blog.json is read a few times). */
  totalBytes: number;
  /** Entries in the archive (yauzl keeps each in memory). */
  entries: number;
}

export const ARCHIVE_BUDGET: ArchiveBudget = {
  totalBytes: IMPORT_LIMITS.archiveBytes,
  entries: IMPORT_LIMITS.archiveEntries,
};

/** What each read of an entry published when it ended (tests and tracing subscribe to it). */
export interface ArchiveEntryRead {
  name: string;
  /** Inflated bytes of this read. */
  bytes: number;
  /** The archive's budget used so far, this read included. */
  budgetUsed: number;
}
/** The channel (node:diagnostics_channel) each ended read of an entry is published on. */
export const ARCHIVE_ENTRY_READ = 'blog:archive-entry-read';
const entryRead = channel(ARCHIVE_ENTRY_READ);

/** Byte ranges of a stored zip for yauzl: it asks for the central directory, then for each entry it opens. */
function storedZipReader(storage: ObjectStorage, key: string): yauzl.RandomAccessReader {
  // Abstract in the typings only: yauzl's own reader needs just _readStreamForRange.
  const Reader = yauzl.RandomAccessReader as unknown as new () => yauzl.RandomAccessReader;
  const reader = new Reader();
  reader._readStreamForRange = (start: number, end: number): Readable => {
    const out = new PassThrough();
    if (end <= start) {
      out.end();
      return out;
    }
    storage.get(key, { start, end: end - 1 }).then(
      (object) => (object ? object.body.pipe(out) : out.destroy(new Error('the archive is gone'))),
      (error: Error) => out.destroy(error),
    );
    return out;
  };
  return reader;
}

/** This blog's own export (a .zip), read in place from storage: the entries, and each opened on demand. */
export interface StoredArchive {
  names(): string[];
  has(name: string): boolean;
  /** The entry's bytes, ended with an ImportFileError past `maxBytes` or past the archive's budget. */
  open(name: string, maxBytes?: number): Promise<Readable>;
  close(): void;
}

/**
 * The zip's entries, each read as it streams: counted against the entry's limit and the
 * import's total budget, and stopped (the inflating with it) the moment either is passed. An
 * entry whose name points outside the archive (`../`, an absolute path) refuses the whole file.
 */
export async function openStoredArchive(
  storage: ObjectStorage,
  key: string,
  budget: ArchiveBudget = ARCHIVE_BUDGET,
): Promise<StoredArchive> {
  const stat = await storage.stat(key);
  if (!stat) throw new ImportFileError('The uploaded file is gone');
  const reader = storedZipReader(storage, key);
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.fromRandomAccessReader(reader, stat.size, { lazyEntries: true, autoClose: false }, (error, file) =>
      error || !file
        ? reject(new ImportFileError(`The file is not a readable zip: ${error?.message}`))
        : resolve(file),
    ),
  );
  const entries = new Map<string, yauzl.Entry>();
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      if (entries.size >= budget.entries) {
        zip.close();
        return reject(overLimit(`more than ${budget.entries.toLocaleString('en-US')} entries in its zip`));
      }
      entries.set(entry.fileName, entry);
      zip.readEntry();
    });
    zip.on('end', () => resolve());
    zip.on('error', (error: Error) =>
      reject(
        new ImportFileError(
          /absolute path|invalid relative path|invalid characters/.test(error.message)
            ? `The zip has an entry that points outside it (${error.message}): it is refused`
            : `The zip is damaged: ${error.message}`,
        ),
      ),
    );
    zip.readEntry();
  }).catch((error: unknown) => {
    zip.close();
    throw error;
  });
  let read = 0;
  /** Counts an entry's bytes as they stream; passing a limit ends the stream with its error. */
  const counted = (name: string, maxBytes: number) => {
    let size = 0;
    const out = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        size += chunk.length;
        read += chunk.length;
        if (size > maxBytes)
          return done(
            new ImportFileError(`${name} is larger than ${describeBytes(maxBytes)} (the limit of a file)`),
          );
        if (read > budget.totalBytes)
          return done(
            overLimit(`a zip that expands to more than ${describeBytes(budget.totalBytes)} when read`),
          );
        done(null, chunk);
      },
    });
    out.once('close', () => {
      if (entryRead.hasSubscribers)
        entryRead.publish({ name, bytes: size, budgetUsed: read } satisfies ArchiveEntryRead);
    });
    return out;
  };
  return {
    names: () => [...entries.keys()],
    has: (name) => entries.has(name),
    open: (name, maxBytes = budget.totalBytes) =>
      new Promise((resolve, reject) => {
        const entry = entries.get(name);
        if (!entry) return reject(new ImportFileError(`The archive has no ${name}`));
        // The size the zip declares (yauzl also checks the inflated bytes against it).
        if (entry.uncompressedSize > maxBytes)
          return reject(
            new ImportFileError(`${name} is larger than ${describeBytes(maxBytes)} (the limit of a file)`),
          );
        zip.openReadStream(entry, (error, stream) => {
          if (error || !stream) return reject(new ImportFileError(`${name}: ${error?.message}`));
          const out = counted(name, maxBytes);
          // An error on either side ends both: the inflating stops with the reader.
          stream.on('error', (e) => out.destroy(e));
          out.on('close', () => stream.destroy());
          resolve(stream.pipe(out));
        });
      }),
    close: () => zip.close(),
  };
}
