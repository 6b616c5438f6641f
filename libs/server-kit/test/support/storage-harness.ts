/**
 * What the ObjectStorage specs (storage.*.spec.ts) share: both implementations to run one
 * behavioural suite against, and streams that are generated, chunked, read back and hashed.
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
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { startTestS3 } from '@blog/server-kit/testing';
import { LocalFolderStorage, type ObjectStorage } from '../../src/storage/index.js';
import { S3Storage } from '../../src/storage/s3-storage.js';

export const MB = 1024 * 1024;

/**
 * Runs a full garbage collection, so RSS measures live memory rather than garbage V8 has
 * not collected yet (Buffers live outside the JS heap and are collected lazily).
 */
const gc = (() => {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as (options?: { type: 'minor' | 'major' }) => void;
})();
export const collectGarbage = () => gc();
/** A scavenge only: cheap, and it frees the short-lived chunk Buffers of a stream. */
export const collectYoungGarbage = () => gc({ type: 'minor' });

/**
 * A Readable of `total` random bytes in 64 KiB chunks, hashing what it produced; fails
 * at `failAt` when given; collects garbage every `gcEvery` bytes when given.
 */
export function generated(total: number, failAt?: number, gcEvery?: number) {
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
export function chunked(data: Buffer, chunkSize = 64 * 1024): Readable {
  let offset = 0;
  return new Readable({
    read() {
      if (offset >= data.length) return void this.push(null);
      this.push(data.subarray(offset, offset + chunkSize));
      offset += chunkSize;
    },
  });
}

export async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function sha256Of(stream: Readable): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of stream) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

export const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

export interface Harness {
  storage: ObjectStorage;
  stop(): Promise<void>;
}

export const implementations: [string, () => Promise<Harness>][] = [
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

/**
 * The implementation `start` makes, ready before the enclosing describe's tests (and before a
 * beforeAll declared after this call), emptied after each test and stopped after the last.
 */
export function useStorage(start: () => Promise<Harness>): { storage: ObjectStorage } {
  let harness: Harness | undefined;
  const rig = {} as { storage: ObjectStorage };
  beforeAll(async () => {
    harness = await start();
    rig.storage = harness.storage;
  });
  afterAll(() => harness?.stop());
  afterEach(async () => {
    await rig.storage.deleteMany(await rig.storage.list());
  });
  return rig;
}
