import { exportArchiveKey } from '@blog/contracts';
import { LocalFolderStorage } from '@blog/server-kit';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { ArchiveProgress, ArchiveWriter } from '../src/archive/archive-writer.js';
import { ExportJobs } from '../src/archive/export-jobs.js';
import type { PostsConfig } from '../src/config.js';
import { InMemoryExportsRepository } from './support/in-memory-exports.repository.js';

/**
 * An export job's rules against an in-memory repository, a folder store and a stand-in writer:
 * its progress and last word, its tries, the archive's place, and how long archives are kept.
 */
describe('export job rules', () => {
  let dir: string;
  let storage: LocalFolderStorage;
  let exports: InMemoryExportsRepository;
  /** What the stand-in writer does: the archive's bytes after reporting each post, or an error. */
  let write: (progress: (done: ArchiveProgress) => void) => AsyncGenerator<Buffer>;
  let jobs: ExportJobs;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'export-jobs-'));
    storage = new LocalFolderStorage(dir);
    exports = new InMemoryExportsRepository();
    const writer = {
      archive: (_signal: AbortSignal, progress: (done: ArchiveProgress) => void) =>
        Readable.from(write(progress)),
    } as unknown as ArchiveWriter;
    jobs = new ExportJobs(exports, storage, {} as PostsConfig, writer);
  });
  afterEach(async () => {
    await jobs.onApplicationShutdown();
    await rm(dir, { recursive: true, force: true });
  });

  const queued = async () => {
    const id = randomUUID();
    await exports.create(id, { percent: 0, total: 0, posts: 0, files: 0, leftOut: 0, bytes: null });
    return id;
  };
  const runTry = (id: string, attempt = 1) => jobs.run({ id, data: { id }, attempt });

  it('writes the archive to its private key and ends done with its size, each post counted', async () => {
    exports.posts = 3;
    write = async function* (progress) {
      for (let post = 1; post <= 3; post++) {
        progress({ posts: post, files: post * 2, leftOut: post === 3 ? 1 : 0 });
        yield Buffer.alloc(1000, post);
      }
    };
    const id = await queued();
    await runTry(id);
    expect(await jobs.report(id)).toMatchObject({
      id,
      state: 'done',
      percent: 100,
      total: 3,
      posts: 3,
      files: 6,
      leftOut: 1,
      bytes: 3000,
    });
    expect(await storage.stat(exportArchiveKey(id))).toEqual({ size: 3000, contentType: 'application/zip' });
    expect(exportArchiveKey(id)).toBe(`private/exports/${id}.zip`);
    // A finished export is not run again.
    await runTry(id, 2);
    expect(exports.rows.get(id)!.attempts).toBe(1);
  });

  it('a failed write is tried again by the queue; the third failure ends it failed with the reason', async () => {
    exports.posts = 2;
    write = async function* (progress) {
      progress({ posts: 1, files: 0, leftOut: 0 });
      yield Buffer.from('half');
      throw new Error('the disk is full');
    };
    const id = await queued();
    await expect(runTry(id, 1)).rejects.toThrow('the disk is full');
    await expect(runTry(id, 2)).rejects.toThrow('the disk is full');
    expect((await jobs.report(id)).state).toBe('running');
    await runTry(id, 3);
    expect(await jobs.report(id)).toMatchObject({
      state: 'failed',
      reason: 'the disk is full (try 3 of 3)',
      bytes: null,
    });
    expect(await storage.list('private/exports/')).toEqual([]);
  });

  it('an export whose tries crashed their process ends failed at the next one, without writing', async () => {
    let called = false;
    write = async function* () {
      called = true;
      yield Buffer.from('zip');
    };
    const id = await queued();
    for (let i = 0; i < 3; i++) await exports.claimAttempt(id);
    await runTry(id, 1);
    expect(await jobs.report(id)).toMatchObject({
      state: 'failed',
      reason: 'The export stopped after 3 tries',
    });
    expect(called).toBe(false);
  });

  it('keeps finished archives a day: a new export removes older ones with their files', async () => {
    write = async function* () {
      yield Buffer.from('zip');
    };
    const old = await queued();
    await runTry(old);
    const recent = await queued();
    await runTry(recent);
    exports.rows.get(old)!.updatedAt = new Date(Date.now() - 25 * 3_600_000);
    const started = await jobs.start();
    expect(started.id).not.toBe(old);
    await expect(jobs.report(old)).rejects.toMatchObject({ body: { status: 404 } });
    expect(await storage.stat(exportArchiveKey(old))).toBeNull();
    expect(await storage.stat(exportArchiveKey(recent))).not.toBeNull();
    expect((await jobs.report(recent)).state).toBe('done');
  });

  it('a download link is used up once', async () => {
    const link = randomUUID();
    const expires = new Date(Date.now() + 60_000);
    expect(await jobs.claimLink(link, expires)).toBe(true);
    expect(await jobs.claimLink(link, expires)).toBe(false);
  });
});
