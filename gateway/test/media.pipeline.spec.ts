import { createStorage, type ObjectStorage } from '@blog/server-kit';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import sharp from 'sharp';
import { startTestRedis, type TestRedis } from '@blog/server-kit/testing';
import {
  makeAnimatedGif,
  makeCorruptJpeg,
  makePhoto,
  makePngBomb,
  makeRealMp4,
  makeRotatedJpegWithGps,
  makeTransparentPng,
} from '../../services/media/test/fixtures.js';
import { MediaWorker } from '../../services/media/src/processing/media-worker.js';
import { STORAGE } from '../../services/media/src/tokens.js';
import { fields, makeMp4, multipart, type Part } from './support/media-fixtures.js';
import { ADMIN, api, loginAs, startTestStack, type TestStack } from './support/test-stack.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const FAST_SWEEP = {
  MEDIA_SWEEP_SECONDS: '1',
  MEDIA_PENDING_AFTER_SECONDS: '2',
  MEDIA_LOCK_SECONDS: '2',
  MEDIA_JOB_ATTEMPTS: '3',
  LOG_LEVEL: process.env.DEBUG_MEDIA ? 'info' : 'error',
};

/** The same pipeline suite on BullMQ (a real redis-server) and on the in-process runner. */
describe.each(['in-process', 'bullmq'] as const)('media pipeline (%s runner)', (runner) => {
  let redis: TestRedis | undefined;
  let stack: TestStack;
  let storage: ObjectStorage;
  let admin: string;

  beforeAll(async () => {
    if (runner === 'bullmq') redis = await startTestRedis();
    stack = await startTestStack({ ...FAST_SWEEP, ...(redis ? { REDIS_URL: redis.url } : {}) }, ['mail']);
    storage = await createStorage(stack.env);
    admin = await loginAs(stack, ADMIN.username, ADMIN.password);
  });
  afterAll(async () => {
    await stack?.stop();
    await redis?.close();
  });

  const file = (filename: string, type: string, data: Buffer): Part => ({
    name: 'files',
    file: { filename, type, data },
  });
  const createPost = async (title: string, files: Part[], extra: Record<string, string> = {}) => {
    const { body, contentType } = multipart([...fields({ title, category: 'Projects', ...extra }), ...files]);
    const response = await fetch(`${stack.baseUrl}/api/posts`, {
      method: 'POST',
      headers: { 'content-type': contentType, authorization: `Bearer ${admin}` },
      body,
    });
    const json = (await response.json()) as Json;
    if (response.status !== 201) throw new Error(`create failed: ${response.status} ${JSON.stringify(json)}`);
    return json;
  };
  /** Reads the post as an admin until no item is pending. */
  const settled = async (id: number, ms = 20_000): Promise<Json> => {
    const until = Date.now() + ms;
    for (;;) {
      const post = (await api(stack, `/api/posts/${id}`, { token: admin })).json as Json;
      if (post.media.every((m: Json) => m.status !== 'pending')) return post;
      if (Date.now() > until) throw new Error(`still pending: ${JSON.stringify(post.media)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const asVisitor = async (id: number, done: (post: Json) => boolean): Promise<Json> => {
    const until = Date.now() + 5000;
    for (;;) {
      const post = (await api(stack, `/api/posts/${id}`)).json as Json;
      if (done(post) || Date.now() > until) return post;
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const download = async (path: string) => {
    const response = await fetch(`${stack.baseUrl}${path}`);
    expect(response.status).toBe(200);
    return Buffer.from(await response.arrayBuffer());
  };
  const putSettings = async (settings: Json) => {
    const response = await api(stack, '/api/settings', { method: 'PUT', token: admin, body: { settings } });
    expect(response.status).toBe(200);
  };

  it('serves an EXIF-rotated JPEG upright without GPS; the original stays private', async () => {
    await putSettings({ image_max_size: 800, image_quality: 85, image_auto_optimize: true });
    const created = await createPost(
      'Rotated',
      [file('sideways.jpg', 'image/jpeg', await makeRotatedJpegWithGps())],
      {
        cropSettings: JSON.stringify({ x: 0, y: 0, scale: 1 }),
      },
    );
    expect(created.media[0].status).toBe('pending');
    const originalPath: string = created.media[0].path;
    expect(originalPath).toMatch(/^\/uploads\/private\/originals\//);
    // A visitor never sees the unprocessed file.
    const early = (await api(stack, `/api/posts/${created.id}`)).json as Json;
    expect(JSON.stringify(early)).not.toContain('private/');
    const post = await settled(created.id);
    expect(post.mediaReady).toBe(true);
    const image = post.images[0];
    expect(image).toMatchObject({ status: 'ready', width: 40, height: 60 });
    for (const path of [image.path, image.croppedPreviewPath, ...image.variants.map((v: Json) => v.path)]) {
      const meta = await sharp(await download(path)).metadata();
      expect(meta.exif).toBeUndefined();
      expect(meta.orientation ?? 1).toBe(1);
    }
    expect(image.variants.map((v: Json) => v.format).sort()).toEqual(['avif', 'jpeg', 'webp']);
    const served = await sharp(await download(image.path)).metadata();
    expect([served.width, served.height]).toEqual([40, 60]);
    // Processing the same item again writes the same keys and changes nothing.
    const keysBefore = await storage.list('');
    await stack.services.media.get(MediaWorker).process({
      id: image.id,
      attempt: 1,
      data: {
        id: image.id,
        type: 'image',
        originalKey: originalPath.slice('/uploads/'.length),
        mimeType: 'image/jpeg',
        crop: { x: 0, y: 0, scale: 1 },
      },
    });
    expect(await storage.list('')).toEqual(keysBefore);
    expect((await api(stack, `/api/posts/${created.id}`, { token: admin })).json).toEqual(post);
    expect((await fetch(`${stack.baseUrl}${originalPath}`)).status).toBe(404);
    expect(await storage.stat(originalPath.slice('/uploads/'.length))).not.toBeNull();
    // Visitors see it once the public cache (1 s) has let the processed item through.
    const visitor = await asVisitor(created.id, (p) => p.images.length === 1);
    expect(JSON.stringify(visitor)).not.toContain('private/');
    expect(visitor.images[0].path).toBe(image.path);
  });

  it('renders the crop preview again when the crop changes, serving the old one meanwhile', async () => {
    const created = await createPost(
      'Cropped',
      [file('wide.jpg', 'image/jpeg', await makePhoto(1200, 600))],
      {
        cropSettings: JSON.stringify({ x: 0, y: 0, scale: 1 }),
      },
    );
    const before = (await settled(created.id)).images[0];
    const { body, contentType } = multipart(
      fields({
        title: 'Cropped',
        category: 'Projects',
        existingFiles: JSON.stringify([{ path: before.path, type: 'image' }]),
        cropSettings: JSON.stringify({ x: 40, y: -10, scale: 2 }),
      }),
    );
    const updated = await fetch(`${stack.baseUrl}/api/posts/${created.id}`, {
      method: 'PUT',
      headers: { 'content-type': contentType, authorization: `Bearer ${admin}` },
      body,
    });
    expect(updated.status).toBe(200);
    const answer = (await updated.json()) as Json;
    // Still served while it is rendered again.
    expect(answer.images[0]).toMatchObject({ status: 'ready', path: before.path, cropScale: 2 });
    const until = Date.now() + 20_000;
    let after: Json;
    for (;;) {
      after = ((await api(stack, `/api/posts/${created.id}`, { token: admin })).json as Json).images[0];
      if (after.croppedPreviewPath !== before.croppedPreviewPath) break;
      if (Date.now() > until) throw new Error('crop preview not rendered again');
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(after.status).toBe('ready');
    expect(after.path).toBe(before.path); // the srcset files did not change
    const meta = await sharp(await download(after.croppedPreviewPath)).metadata();
    expect([meta.width, meta.height]).toEqual([400, 128]);
    // The previous rendering's files are gone; no duplicates stay.
    expect((await fetch(`${stack.baseUrl}${before.croppedPreviewPath}`)).status).toBe(404);
    const written = await storage.list(`media/items/${after.id}/`);
    const referenced = [after.path, after.croppedPreviewPath, ...after.variants.map((v: Json) => v.path)].map(
      (p: string) => p.slice('/uploads/'.length),
    );
    expect(written.sort()).toEqual([...new Set(referenced)].sort());
  });

  it('scales a 6000x4000 photo to the setting, and a later upload follows changed settings', async () => {
    await putSettings({ image_max_size: 1000, image_quality: 80, image_auto_optimize: true });
    const photo = await makePhoto(6000, 4000);
    const first = await settled((await createPost('Big one', [file('big.jpg', 'image/jpeg', photo)])).id);
    expect(first.images[0]).toMatchObject({ width: 1000, height: 667 });
    await putSettings({ image_max_size: 600 });
    const second = await settled(
      (await createPost('Big two', [file('big.jpg', 'image/jpeg', await makePhoto(3000, 2000))])).id,
    );
    expect(second.images[0]).toMatchObject({ width: 600, height: 400 });
    const meta = await sharp(await download(second.images[0].path)).metadata();
    expect([meta.width, meta.height, meta.exif]).toEqual([600, 400, undefined]);
    // The first post keeps what it was made with.
    expect((await api(stack, `/api/posts/${first.id}`)).json.images[0].width).toBe(1000);
  });

  it('keeps the original pixels when auto-optimise is off', async () => {
    await putSettings({ image_max_size: 400, image_auto_optimize: false });
    const post = await settled(
      (await createPost('Full size', [file('p.jpg', 'image/jpeg', await makePhoto(900, 600))])).id,
    );
    expect(post.images[0]).toMatchObject({ status: 'ready', width: 900, height: 600 });
    expect((await sharp(await download(post.images[0].path)).metadata()).exif).toBeUndefined();
    await putSettings({ image_max_size: 800, image_quality: 85, image_auto_optimize: true });
  });

  it('processes PNG, animated GIF and a real MP4; corrupt files, a bomb and a fake video fail alone', async () => {
    const created = await createPost('Mixed bag', [
      file('clear.png', 'image/png', await makeTransparentPng()),
      file('spin.gif', 'image/gif', await makeAnimatedGif()),
      file('broken.jpg', 'image/jpeg', makeCorruptJpeg()),
      file('bomb.png', 'image/png', makePngBomb()),
      file('clip.mp4', 'video/mp4', await makeRealMp4()),
      file('fake.mp4', 'video/mp4', makeMp4()),
    ]);
    const post = await settled(created.id);
    const byName = Object.fromEntries(post.media.map((m: Json) => [m.name, m]));
    expect(Object.fromEntries(post.media.map((m: Json) => [m.name, m.status]))).toEqual({
      'clear.png': 'ready',
      'spin.gif': 'ready',
      'broken.jpg': 'failed',
      'bomb.png': 'failed',
      'clip.mp4': 'ready',
      'fake.mp4': 'failed',
    });
    expect(byName['bomb.png'].error).toMatch(/pixel/i);
    expect(byName['fake.mp4'].error).toMatch(/video/i);
    expect(post.mediaReady).toBe(false);
    expect((await sharp(await download(byName['clear.png'].path)).metadata()).hasAlpha).toBe(true);
    const gif = await sharp(await download(byName['spin.gif'].path), { animated: true }).metadata();
    expect([gif.format, gif.pages]).toEqual(['gif', 3]);
    const video = post.videos.find((v: Json) => v.name === 'clip.mp4');
    expect(byName['clip.mp4']).toMatchObject({ width: 320, height: 240 });
    expect(byName['clip.mp4'].duration).toBeCloseTo(2, 0);
    const poster = await sharp(await download(video.thumbnailPath)).metadata();
    expect([poster.format, poster.width, poster.height]).toEqual(['jpeg', 320, 240]);
    expect((await fetch(`${stack.baseUrl}${video.path}`)).status).toBe(200);
    // Visitors get the ready items only.
    const visitor = await asVisitor(created.id, (p) => p.media.length === 3);
    expect(visitor.media.map((m: Json) => m.name)).toEqual(['clear.png', 'spin.gif', 'clip.mp4']);
  });

  it('ends an item failing for an unknown reason `failed` after MEDIA_JOB_ATTEMPTS runs, and leaves it so', async () => {
    // The fault is injected: reading originals fails as an unreachable S3 would (the local
    // folder the test stack stores in cannot time out by itself). No other item is pending now.
    const workerStorage = stack.services.media.get<symbol, ObjectStorage>(STORAGE);
    const realGet = workerStorage.get;
    const reads: string[] = [];
    workerStorage.get = async (key) => {
      if (!key.startsWith('private/originals/')) return realGet.call(workerStorage, key);
      reads.push(key);
      throw new Error('storage timed out');
    };
    try {
      const created = await createPost('Flaky storage', [
        file('flaky.png', 'image/png', await makePhoto(40, 30)),
      ]);
      const post = await settled(created.id, 30_000);
      expect(post.media[0]).toMatchObject({
        status: 'failed',
        error: 'gave up after 3 runs: storage timed out',
      });
      expect(reads).toEqual(Array(3).fill(post.media[0].originalKey ?? reads[0]));
      // Sweeps (every second here, for items pending over 2 s) do not bring it back.
      await new Promise((r) => setTimeout(r, 3500));
      expect(reads.length).toBe(3);
      expect(
        ((await api(stack, `/api/posts/${created.id}`, { token: admin })).json as Json).media[0].status,
      ).toBe('failed');
    } finally {
      workerStorage.get = realGet;
    }
  }, 45_000);

  if (runner === 'bullmq') {
    it('saves a post while Redis is down; its items end ready once Redis is back, with no manual step', async () => {
      await redis!.stop();
      let created: Json;
      try {
        created = await createPost('While Redis is down', [
          file('a.jpg', 'image/jpeg', await makePhoto(300, 200)),
        ]);
        expect(created.media[0].status).toBe('pending');
        await new Promise((r) => setTimeout(r, 500));
      } finally {
        await redis!.start();
      }
      const post = await settled(created.id, 30_000);
      expect(post.images[0].status).toBe('ready');
    }, 45_000);
  }
  // Last: it replaces this stack's media service with a worker process of its own.
  it('finishes a job whose worker process was killed mid-run, with no duplicate files', async () => {
    await putSettings({ image_max_size: 1600, image_quality: 90, image_auto_optimize: true });
    await stack.services.media.close();
    const env = { ...process.env, ...stack.env, ...FAST_SWEEP, LOG_LEVEL: 'error' };
    const entry = join(process.cwd(), 'services/media/dist/main.js');
    const startWorker = () => spawn(process.execPath, [entry], { env, stdio: 'ignore' });
    let worker: ChildProcess = startWorker();
    try {
      const created = await createPost('Interrupted', [
        file('large.jpg', 'image/jpeg', await makePhoto(4000, 3000)),
      ]);
      // Killed once the job has written its first files and before it has reported.
      const itemId: string = created.media[0].id;
      const until = Date.now() + 10_000;
      while ((await storage.list(`media/items/${itemId}/`)).length === 0 && Date.now() < until)
        await new Promise((r) => setTimeout(r, 10));
      worker.kill('SIGKILL');
      await new Promise((r) => worker.once('exit', r));
      worker = startWorker();
      const post = await settled(created.id, 30_000);
      const image = post.images[0];
      expect(image).toMatchObject({ status: 'ready', width: 1600, height: 1200 });
      const referenced = [image.path, ...image.variants.map((v: Json) => v.path)].map((p: string) =>
        p.slice('/uploads/'.length),
      );
      const written = await storage.list(`media/items/${image.id}/`);
      expect(written.sort()).toEqual([...new Set(referenced)].sort());
    } finally {
      worker.kill('SIGKILL');
      await new Promise((r) => (worker.exitCode === null ? worker.once('exit', r) : r(null)));
    }
    // Two worker processes started and a 12-megapixel photo processed: 4-6 s on an idle machine,
    // 18 s beside two CPU burners.
  }, 90_000);
});
