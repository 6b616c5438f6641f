/**
 * ObjectStorage's reads and writes, against both implementations (support/storage-harness.ts):
 * streamed puts read back byte-exact, ranges, stat, list, delete and delete-many, content types,
 * copies, overwrites, and the key rules (invalid keys refused everywhere, 512 characters allowed).
 */
import { randomBytes } from 'node:crypto';
import {
  InvalidKeyError,
  newObjectKey,
  RangeNotSatisfiableError,
  type ObjectStorage,
} from '../src/storage/index.js';
import {
  chunked,
  implementations,
  MB,
  readAll,
  sha256,
  sha256Of,
  useStorage,
} from './support/storage-harness.js';

describe.each(implementations)('%s', (_name, start) => {
  const rig = useStorage(start);
  let storage: ObjectStorage;
  beforeAll(() => ({ storage } = rig));

  const data = randomBytes(12 * MB + 12345); // > two 5 MiB S3 parts: the S3 put goes multipart

  it('streams a put of a few MB and reads it back byte-exact, with its size and type', async () => {
    const key = newObjectKey('media', 'mp4');
    expect(key).toMatch(/^media\/\d{4}\/\d{2}\/[0-9a-f-]{36}\.mp4$/);
    const result = await storage.put(key, chunked(data), { contentType: 'video/mp4' });
    expect(result).toEqual({ key, size: data.length });
    expect(await storage.stat(key)).toEqual({ size: data.length, contentType: 'video/mp4' });
    const got = await storage.get(key);
    expect(got).toMatchObject({ size: data.length, contentType: 'video/mp4' });
    expect(got!.range).toBeUndefined();
    expect(await sha256Of(got!.body)).toBe(sha256(data));
    expect(storage.publicUrl(key)).toBe(`/uploads/${key}`);
  });

  it('reads ranges byte-exact: first bytes, middle, suffix to the end, one byte, end clamped', async () => {
    const key = 'media/2026/01/ranges.bin';
    await storage.put(key, chunked(data), { contentType: 'application/octet-stream' });
    const size = data.length;
    const cases: [{ start: number; end?: number }, { start: number; end: number }][] = [
      [
        { start: 0, end: 99 },
        { start: 0, end: 99 },
      ],
      [
        { start: 5 * MB - 17, end: 9 * MB + 3 },
        { start: 5 * MB - 17, end: 9 * MB + 3 },
      ],
      [{ start: size - 4321 }, { start: size - 4321, end: size - 1 }],
      [
        { start: 0, end: 0 },
        { start: 0, end: 0 },
      ],
      [{ start: size - 1 }, { start: size - 1, end: size - 1 }],
      [
        { start: 10, end: size + 1000 },
        { start: 10, end: size - 1 },
      ],
    ];
    for (const [asked, expected] of cases) {
      const got = await storage.get(key, asked);
      expect(got).toMatchObject({ size, range: expected });
      const bytes = await readAll(got!.body);
      expect(bytes.length).toBe(expected.end - expected.start + 1);
      expect(sha256(bytes)).toBe(sha256(data.subarray(expected.start, expected.end + 1)));
    }
    await expect(storage.get(key, { start: size })).rejects.toBeInstanceOf(RangeNotSatisfiableError);
    await expect(storage.get(key, { start: size + 10, end: size + 20 })).rejects.toMatchObject({ size });
    await expect(storage.get(key, { start: 10, end: 5 })).rejects.toThrow(RangeError);
    expect(await storage.get('media/missing.bin', { start: 0, end: 1 })).toBeNull();
  });

  it('stats, lists, deletes (idempotently) and deletes many', async () => {
    const keys = ['media/2026/01/a.jpg', 'media/2026/02/b.jpg', 'private/originals/c.jpg', 'thumbs/d.webp'];
    for (const key of keys) await storage.put(key, Buffer.from(key), { contentType: 'image/jpeg' });
    expect(await storage.list()).toEqual([...keys].sort());
    expect(await storage.list('media/')).toEqual(['media/2026/01/a.jpg', 'media/2026/02/b.jpg']);
    expect(await storage.list('media/2026/0')).toEqual(['media/2026/01/a.jpg', 'media/2026/02/b.jpg']);
    expect(await storage.list('media/2026/02')).toEqual(['media/2026/02/b.jpg']);
    expect(await storage.list('nothing/')).toEqual([]);
    expect(await storage.stat('media/2026/01/a.jpg')).toEqual({
      size: 'media/2026/01/a.jpg'.length,
      contentType: 'image/jpeg',
    });
    expect(await storage.stat('media/2026/01/zzz.jpg')).toBeNull();
    expect(await storage.get('media/2026/01/zzz.jpg')).toBeNull();

    await storage.delete('media/2026/01/a.jpg');
    await storage.delete('media/2026/01/a.jpg');
    await storage.delete('never/was/there.jpg');
    expect(await storage.stat('media/2026/01/a.jpg')).toBeNull();
    expect(await storage.list()).toEqual(['media/2026/02/b.jpg', 'private/originals/c.jpg', 'thumbs/d.webp']);

    await storage.deleteMany(['media/2026/02/b.jpg', 'thumbs/d.webp', 'missing/e.jpg', 'thumbs/d.webp']);
    expect(await storage.list()).toEqual(['private/originals/c.jpg']);
    await storage.deleteMany([]);
  });

  it('round-trips content types, a Buffer body and an empty object', async () => {
    const types = [
      'video/mp4',
      'image/jpeg',
      'image/webp',
      'application/octet-stream',
      'text/plain; charset=utf-8',
    ];
    for (const [i, contentType] of types.entries()) {
      await storage.put(`types/${i}.bin`, Buffer.from(`body ${i}`), { contentType });
    }
    for (const [i, contentType] of types.entries()) {
      expect(await storage.stat(`types/${i}.bin`)).toEqual({ size: `body ${i}`.length, contentType });
      const got = await storage.get(`types/${i}.bin`);
      expect(got!.contentType).toBe(contentType);
      expect((await readAll(got!.body)).toString()).toBe(`body ${i}`);
    }
    expect(await storage.put('empty/zero.bin', Buffer.alloc(0), { contentType: 'image/png' })).toEqual({
      key: 'empty/zero.bin',
      size: 0,
    });
    const empty = await storage.get('empty/zero.bin');
    expect(empty).toMatchObject({ size: 0, contentType: 'image/png' });
    expect((await readAll(empty!.body)).length).toBe(0);
    await expect(storage.get('empty/zero.bin', { start: 0 })).rejects.toBeInstanceOf(
      RangeNotSatisfiableError,
    );
    await expect(
      storage.put('types/bad.bin', Buffer.from('x'), { contentType: 'text/html\r\nSet-Cookie: a=b' }),
    ).rejects.toThrow(/content type/);
  });

  it('copies an object inside the store: same bytes and type, independent of its source', async () => {
    await storage.put('private/originals/from.mp4', chunked(data), { contentType: 'video/mp4' });
    expect(await storage.copy('private/originals/from.mp4', 'private/originals/to/copy.mp4')).toEqual({
      key: 'private/originals/to/copy.mp4',
      size: data.length,
    });
    expect(await storage.stat('private/originals/to/copy.mp4')).toEqual({
      size: data.length,
      contentType: 'video/mp4',
    });
    await storage.delete('private/originals/from.mp4');
    const copy = await storage.get('private/originals/to/copy.mp4');
    expect(await sha256Of(copy!.body)).toBe(sha256(data));
    await storage.put('empty/zero.png', Buffer.alloc(0), { contentType: 'image/png' });
    expect(await storage.copy('empty/zero.png', 'empty/copy.png')).toEqual({
      key: 'empty/copy.png',
      size: 0,
    });
    expect(await storage.stat('empty/copy.png')).toEqual({ size: 0, contentType: 'image/png' });
    expect(await storage.copy('private/originals/from.mp4', 'private/originals/never.mp4')).toBeNull();
    expect(await storage.stat('private/originals/never.mp4')).toBeNull();
    await expect(storage.copy('empty/zero.png', '../out.png')).rejects.toBeInstanceOf(InvalidKeyError);
    await expect(storage.copy('../in.png', 'empty/x.png')).rejects.toBeInstanceOf(InvalidKeyError);
  });

  it('overwrites a key with a whole new object', async () => {
    await storage.put('media/same.bin', Buffer.from('first version'), { contentType: 'text/plain' });
    await storage.put('media/same.bin', Buffer.from('second'), { contentType: 'image/png' });
    const got = await storage.get('media/same.bin');
    expect(got).toMatchObject({ size: 6, contentType: 'image/png' });
    expect((await readAll(got!.body)).toString()).toBe('second');
  });

  const invalidKeys = [
    '../x',
    '/abs',
    'a//b',
    'a/../b',
    '',
    'a/./b',
    '.hidden',
    'a/.b',
    'a\\b',
    'a b',
    'a/',
    'é',
    'x'.repeat(513),
    `a/${'b'.repeat(201)}`,
  ];

  it.each(invalidKeys)('rejects the invalid key %j everywhere', async (key) => {
    await expect(storage.put(key, Buffer.from('x'), { contentType: 'text/plain' })).rejects.toBeInstanceOf(
      InvalidKeyError,
    );
    await expect(
      storage.put(key, chunked(Buffer.from('x')), { contentType: 'text/plain' }),
    ).rejects.toBeInstanceOf(InvalidKeyError);
    await expect(storage.get(key)).rejects.toBeInstanceOf(InvalidKeyError);
    await expect(storage.stat(key)).rejects.toBeInstanceOf(InvalidKeyError);
    await expect(storage.delete(key)).rejects.toBeInstanceOf(InvalidKeyError);
    await expect(storage.deleteMany(['fine/key.txt', key])).rejects.toBeInstanceOf(InvalidKeyError);
    expect(() => storage.publicUrl(key)).toThrow(InvalidKeyError);
    expect(await storage.list()).toEqual([]);
  });

  it('accepts a 512-character key and rejects bad list prefixes', async () => {
    const key = `a/${'b'.repeat(200)}/${'c'.repeat(200)}/${'d'.repeat(106)}.x`;
    expect(key).toHaveLength(512);
    await storage.put(key, Buffer.from('long'), { contentType: 'text/plain' });
    expect(await storage.list('a/')).toEqual([key]);
    await expect(storage.list('../')).rejects.toBeInstanceOf(InvalidKeyError);
    await expect(storage.list('/abs')).rejects.toBeInstanceOf(InvalidKeyError);
  });
});
