/**
 * LocalFolderStorage's own rules on disk: folders made as needed, the content type in a hidden
 * sidecar (or from the extension without one), no temp file left by a failed put, and no
 * symlink followed out of the root.
 */
import { lstat, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidKeyError, LocalFolderStorage } from '../src/storage/index.js';
import { generated, MB } from './support/storage-harness.js';

describe('LocalFolderStorage on disk', () => {
  let dir: string;
  let root: string;
  let storage: LocalFolderStorage;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'blog-storage-disk-'));
    root = join(dir, 'data', 'uploads');
    storage = new LocalFolderStorage(root);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  async function allFiles(folder: string): Promise<string[]> {
    const entries = await readdir(folder, { recursive: true });
    return entries.map(String).sort();
  }

  it('creates folders as needed and keeps the type in a hidden sidecar', async () => {
    await storage.put('media/2026/03/x.bin', Buffer.from('hello'), { contentType: 'video/webm' });
    expect(await readFile(join(root, 'media/2026/03/x.bin'), 'utf8')).toBe('hello');
    expect(JSON.parse(await readFile(join(root, 'media/2026/03/.x.bin.meta.json'), 'utf8'))).toEqual({
      contentType: 'video/webm',
    });
    expect(await storage.list()).toEqual(['media/2026/03/x.bin']);
    await storage.delete('media/2026/03/x.bin');
    expect((await allFiles(root)).filter((f) => !(f.endsWith('media') || /\d$/.test(f)))).toEqual([]);
  });

  it('derives the type from the extension for a file without sidecar', async () => {
    await mkdir(join(root, 'hand'), { recursive: true });
    await writeFile(join(root, 'hand/photo.JPG'), 'jpeg bytes');
    await writeFile(join(root, 'hand/blob.xyz'), 'bytes');
    expect(await storage.stat('hand/photo.JPG')).toEqual({ size: 10, contentType: 'image/jpeg' });
    expect(await storage.stat('hand/blob.xyz')).toEqual({ size: 5, contentType: 'application/octet-stream' });
    await storage.deleteMany(['hand/photo.JPG', 'hand/blob.xyz']);
  });

  it('removes its temp file when a put fails', async () => {
    const { stream } = generated(8 * MB, 3 * MB);
    await expect(storage.put('media/fail/y.bin', stream, { contentType: 'video/mp4' })).rejects.toThrow();
    expect(await allFiles(join(root, 'media/fail'))).toEqual([]);
  });

  it('never follows a symlink out of the root', async () => {
    const outside = join(dir, 'outside');
    await mkdir(outside, { recursive: true });
    await writeFile(join(outside, 'secret.txt'), 'TOP SECRET');
    await symlink(outside, join(root, 'evil'));
    await symlink(join(outside, 'secret.txt'), join(root, 'link.txt'));

    expect(await storage.get('evil/secret.txt')).toBeNull();
    expect(await storage.stat('evil/secret.txt')).toBeNull();
    expect(await storage.get('link.txt')).toBeNull();
    expect(await storage.list()).not.toContain('evil/secret.txt');
    expect(await storage.list()).not.toContain('link.txt');
    expect(await storage.list('evil/')).toEqual([]);
    expect(await storage.list('evil/sec')).toEqual([]);
    await expect(
      storage.put('evil/new.txt', Buffer.from('x'), { contentType: 'text/plain' }),
    ).rejects.toThrow(InvalidKeyError);
    await storage.delete('evil/secret.txt');
    await storage.delete('link.txt'); // removes the link itself, never its target
    expect(await readFile(join(outside, 'secret.txt'), 'utf8')).toBe('TOP SECRET');
    await expect(lstat(join(root, 'link.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await readdir(outside)).toEqual(['secret.txt']);
  });
});
