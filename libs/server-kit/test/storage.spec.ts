/**
 * One behavioural suite for ObjectStorage, run against both implementations:
 *
 * - LocalFolderStorage in a fresh temp folder (`mkdtemp`), removed afterwards.
 * - S3Storage against a real S3-compatible server from `startTestS3()`: the compose file's
 *   MinIO image in a container when the run has an engine, else `s3rver` in this process on a
 *   free port; the bucket is made by `S3Storage.ensureBucket()` (called twice to show it is
 *   idempotent); the server is removed in afterAll.
 *
 * Needs no network beyond 127.0.0.1 and no environment variables.
 */
import { createHash, randomBytes } from 'node:crypto';
import { lstat, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { startTestS3 } from '@blog/server-kit/testing';
import {
  InvalidKeyError,
  LocalFolderStorage,
  newObjectKey,
  ObjectTooLargeError,
  RangeNotSatisfiableError,
  type ObjectStorage,
} from '../src/storage/index.js';
import { S3Storage } from '../src/storage/s3-storage.js';

const MB = 1024 * 1024;

/**
 * Runs a full garbage collection, so RSS measures live memory rather than garbage V8 has
 * not collected yet (Buffers live outside the JS heap and are collected lazily).
 */
const gc = (() => {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as (options?: { type: 'minor' | 'major' }) => void;
})();
const collectGarbage = () => gc();
/** A scavenge only: cheap, and it frees the short-lived chunk Buffers of a stream. */
const collectYoungGarbage = () => gc({ type: 'minor' });

/**
 * A Readable of `total` random bytes in 64 KiB chunks, hashing what it produced; fails
 * at `failAt` when given; collects garbage every `gcEvery` bytes when given.
 */
function generated(total: number, failAt?: number, gcEvery?: number) {
  const hash = createHash('sha256');
  let sent = 0;
  const stream = new Readable({
    read() {
      if (gcEvery && sent > 0 && sent % gcEvery === 0) collectYoungGarbage();
      if (failAt !== undefined && sent >= failAt) {
        this.destroy(new Error('source broke half-way'));
        return;
      }
      if (sent >= total) {
        this.push(null);
        return;
      }
      const chunk = randomBytes(Math.min(64 * 1024, total - sent));
      sent += chunk.length;
      hash.update(chunk);
      this.push(chunk);
    },
  });
  return { stream, digest: () => hash.digest('hex') };
}

/** A Readable over a Buffer in 64 KiB chunks (so puts are streamed, not handed a Buffer). */
function chunked(data: Buffer, chunkSize = 64 * 1024): Readable {
  let offset = 0;
  return new Readable({
    read() {
      if (offset >= data.length) return void this.push(null);
      this.push(data.subarray(offset, offset + chunkSize));
      offset += chunkSize;
    },
  });
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function sha256Of(stream: Readable): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of stream) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

interface Harness {
  storage: ObjectStorage;
  stop(): Promise<void>;
}

const implementations: [string, () => Promise<Harness>][] = [
  [
    'LocalFolderStorage',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'blog-storage-local-'));
      const storage = new LocalFolderStorage(join(dir, 'uploads'));
      await storage.ensureReady();
      return { storage, stop: () => rm(dir, { recursive: true, force: true }) };
    },
  ],
  [
    'S3Storage',
    async () => {
      const s3 = await startTestS3();
      const storage = new S3Storage({
        endpoint: s3.endpoint,
        bucket: 'blog-media',
        region: 'us-east-1',
        accessKeyId: s3.accessKeyId,
        secretAccessKey: s3.secretAccessKey,
        forcePathStyle: true,
      });
      await storage.ensureBucket();
      await storage.ensureBucket();
      return {
        storage,
        stop: async () => {
          storage.destroy();
          await s3.close();
        },
      };
    },
  ],
];

describe.each(implementations)('%s', (_name, start) => {
  let harness: Harness;
  let storage: ObjectStorage;

  beforeAll(async () => {
    harness = await start();
    storage = harness.storage;
  });
  afterAll(() => harness?.stop());

  afterEach(async () => {
    await storage.deleteMany(await storage.list());
  });

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

  it.each([
    ['early, before one part', 1 * MB],
    ['half-way, after a whole part went up', 10 * MB],
  ])('leaves nothing behind when the source errors %s', async (_when, failAt) => {
    const { stream } = generated(20 * MB, failAt);
    await expect(storage.put('media/broken.mp4', stream, { contentType: 'video/mp4' })).rejects.toThrow(
      'source broke half-way',
    );
    expect(await storage.list()).toEqual([]);
    expect(await storage.stat('media/broken.mp4')).toBeNull();
    expect(await storage.get('media/broken.mp4')).toBeNull();
  });

  it('refuses a body over maxBytes and leaves nothing behind', async () => {
    const { stream } = generated(12 * MB);
    await expect(
      storage.put('media/huge.mp4', stream, { contentType: 'video/mp4', maxBytes: 9 * MB }),
    ).rejects.toBeInstanceOf(ObjectTooLargeError);
    expect(await storage.list()).toEqual([]);
    const exact = await storage.put('media/exact.bin', Buffer.alloc(1000), {
      contentType: 'application/octet-stream',
      maxBytes: 1000,
    });
    expect(exact.size).toBe(1000);
  });

  it('leaves nothing behind when the put is aborted mid-stream', async () => {
    const controller = new AbortController();
    const { stream } = generated(40 * MB);
    let produced = 0;
    stream.on('data', (chunk: Buffer) => {
      produced += chunk.length;
      if (produced >= 9 * MB && !controller.signal.aborted) controller.abort();
    });
    await expect(
      storage.put('media/aborted.mp4', stream, { contentType: 'video/mp4', signal: controller.signal }),
    ).rejects.toThrow();
    expect(stream.destroyed).toBe(true);
    expect(await storage.list()).toEqual([]);
  });

  it('keeps memory flat while putting a 100 MB generated stream', async () => {
    const total = 100 * MB;
    // Garbage is collected before the baseline and young garbage every 4 MB, so what is
    // measured is memory the put holds on to; a put that buffered the file would grow by ~100 MB.
    const { stream, digest } = generated(total, undefined, 4 * MB);
    collectGarbage();
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 10);
    try {
      const result = await storage.put('media/big.mp4', stream, { contentType: 'video/mp4' });
      expect(result.size).toBe(total);
    } finally {
      clearInterval(sampler);
    }
    peak = Math.max(peak, process.memoryUsage().rss);
    const growth = peak - before;
    expect(growth).toBeLessThan(64 * MB);
    const got = await storage.get('media/big.mp4');
    expect(got!.size).toBe(total);
    expect(await sha256Of(got!.body)).toBe(digest());
  });
});

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
