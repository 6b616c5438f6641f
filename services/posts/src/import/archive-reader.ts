import type { ObjectStorage } from '@blog/server-kit';
import { PassThrough, type Readable } from 'node:stream';
import yauzl from 'yauzl';
import { ImportFileError } from './source-post.js';

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
  open(name: string): Promise<Readable>;
  close(): void;
}

export async function openStoredArchive(storage: ObjectStorage, key: string): Promise<StoredArchive> {
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
      entries.set(entry.fileName, entry);
      zip.readEntry();
    });
    zip.on('end', () => resolve());
    zip.on('error', (error: Error) => reject(new ImportFileError(`The zip is damaged: ${error.message}`)));
    zip.readEntry();
  });
  return {
    names: () => [...entries.keys()],
    has: (name) => entries.has(name),
    open: (name) =>
      new Promise((resolve, reject) => {
        const entry = entries.get(name);
        if (!entry) return reject(new ImportFileError(`The archive has no ${name}`));
        zip.openReadStream(entry, (error, stream) =>
          error || !stream ? reject(new ImportFileError(`${name}: ${error?.message}`)) : resolve(stream),
        );
      }),
    close: () => zip.close(),
  };
}
