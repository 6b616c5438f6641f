/**
 * A blog archive read in place from storage (a real local folder): every entry is counted as
 * it inflates, against its own limit and the import's total budget, so a small zip that
 * expands to gigabytes stops at the budget; names that point outside refuse the file.
 */
import { LocalFolderStorage } from '@blog/server-kit';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { ZipFile } from 'yazl';
import { openStoredArchive } from './archive-reader.js';

const MB = 1024 * 1024;

async function zip(files: Record<string, Buffer>): Promise<Buffer> {
  const file = new ZipFile();
  for (const [name, data] of Object.entries(files)) file.addBuffer(data, name);
  file.end();
  const chunks: Buffer[] = [];
  for await (const chunk of file.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
async function size(stream: Readable): Promise<number> {
  let bytes = 0;
  for await (const chunk of stream) bytes += (chunk as Buffer).length;
  return bytes;
}

describe('openStoredArchive', () => {
  let dir: string;
  let storage: LocalFolderStorage;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'archive-reader-'));
    storage = new LocalFolderStorage(dir);
    await storage.ensureReady();
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('reads entries within their limit; one past it is refused before a byte is inflated', async () => {
    await storage.put(
      'private/imports/a',
      await zip({ small: Buffer.alloc(1000), big: Buffer.alloc(3 * MB) }),
      {
        contentType: 'application/zip',
      },
    );
    const archive = await openStoredArchive(storage, 'private/imports/a', {
      totalBytes: 10 * MB,
      entries: 10,
    });
    try {
      expect(await size(await archive.open('small', 2 * MB))).toBe(1000);
      await expect(archive.open('big', 2 * MB)).rejects.toThrow(
        'big is larger than 2 MB (the limit of a file)',
      );
      expect(await size(await archive.open('big'))).toBe(3 * MB);
    } finally {
      archive.close();
    }
  });

  it('stops reading at the total budget, each read counted (the same entry read again too)', async () => {
    // 6 MB of zeros compress to a few KB: reading it twice passes a 10 MB budget.
    const file = await zip({ zeros: Buffer.alloc(6 * MB) });
    expect(file.length).toBeLessThan(64 * 1024);
    await storage.put('private/imports/b', file, { contentType: 'application/zip' });
    const archive = await openStoredArchive(storage, 'private/imports/b', {
      totalBytes: 10 * MB,
      entries: 10,
    });
    try {
      expect(await size(await archive.open('zeros'))).toBe(6 * MB);
      await expect(size(await archive.open('zeros'))).rejects.toThrow(
        'The file has a zip that expands to more than 10 MB when read (the limit of an import)',
      );
    } finally {
      archive.close();
    }
  });

  it('refuses a zip with more entries than the limit, or an entry pointing outside it', async () => {
    await storage.put(
      'private/imports/c',
      await zip(Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`e${i}`, Buffer.from('x')]))),
      { contentType: 'application/zip' },
    );
    await expect(
      openStoredArchive(storage, 'private/imports/c', { totalBytes: MB, entries: 10 }),
    ).rejects.toThrow('The file has more than 10 entries in its zip (the limit of an import)');
    const outside = Buffer.from(
      (await zip({ 'blog.json': Buffer.from('{}'), 'xx/passwd': Buffer.from('x') }))
        .toString('latin1')
        .replaceAll('xx/passwd', '../passwd'),
      'latin1',
    );
    await storage.put('private/imports/d', outside, { contentType: 'application/zip' });
    await expect(openStoredArchive(storage, 'private/imports/d')).rejects.toThrow(
      'The zip has an entry that points outside it (invalid relative path: ../passwd): it is refused',
    );
  });
});
