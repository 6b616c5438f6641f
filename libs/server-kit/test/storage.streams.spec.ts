/**
 * ObjectStorage's streamed puts that go wrong or grow large, against both implementations
 * (support/storage-harness.ts): a source that errors, a body over maxBytes and an aborted put
 * leave nothing behind, and a 100 MB put keeps memory flat.
 */
import { ObjectTooLargeError, type ObjectStorage } from '../src/storage/index.js';
import {
  collectGarbage,
  generated,
  implementations,
  MB,
  sha256Of,
  useStorage,
} from './support/storage-harness.js';

describe.each(implementations)('%s', (_name, start) => {
  const rig = useStorage(start);
  let storage: ObjectStorage;
  beforeAll(() => ({ storage } = rig));

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
    // 100 MB made, hashed, stored and read back: 3.5 s against S3 on an idle machine, past 30 s
    // in a loaded CI run (npm test beside other work on 2 cores); 4 times that.
  }, 120_000);
});
