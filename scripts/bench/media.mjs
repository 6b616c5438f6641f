// Media benchmark: images per second for a 12-megapixel JPEG through the whole
// pipeline (upload, queue, render, report) on one worker; the time from the response of a
// post upload with 10 such photos to all 10 ready (default concurrency); the bytes of one
// sample photo before and after.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { freePort, startStack } from './stack.mjs';

const ADMIN = { username: 'benchadmin', password: 'bench-password-123' };
const IMAGES = Number(process.env.BENCH_MEDIA_IMAGES ?? 8);

/** A 4000x3000 (12 MP) photo-like JPEG: noise with some structure, as a camera writes it (quality 92). */
export async function makePhoto(seed) {
  const small = await sharp({
    create: {
      width: 250,
      height: 188,
      channels: 3,
      noise: { type: 'gaussian', mean: 110 + seed, sigma: 55 },
    },
  })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return sharp(small.data, { raw: small.info })
    .resize(4000, 3000, { kernel: 'cubic' })
    .jpeg({ quality: 92 })
    .withExif({ IFD0: { Make: 'BenchCam' }, IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '48/1 51/1 0/1' } })
    .toBuffer();
}

function form(title, photos) {
  const body = new FormData();
  body.append('title', title);
  body.append('category', 'Projects');
  photos.forEach((photo, i) =>
    body.append('files', new Blob([photo], { type: 'image/jpeg' }), `photo-${i}.jpg`),
  );
  return body;
}

async function withStack(env, fn) {
  const dataDir = await mkdtemp(join(tmpdir(), 'bench-media-'));
  const stack = await startStack({
    dataDir,
    port: await freePort(),
    env: { ADMIN_USERNAME: ADMIN.username, ADMIN_PASSWORD: ADMIN.password, ...env },
  });
  try {
    const login = await fetch(`${stack.baseUrl}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ADMIN),
    });
    const { token } = await login.json();
    return await fn(stack.baseUrl, token);
  } finally {
    await stack.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function upload(base, token, title, photos) {
  const response = await fetch(`${base}/api/posts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form(title, photos),
  });
  if (response.status !== 201) throw new Error(`upload failed: ${response.status} ${await response.text()}`);
  return response.json();
}

async function whenReady(base, token, ids, timeoutMs = 300_000) {
  const until = Date.now() + timeoutMs;
  const posts = new Map();
  for (;;) {
    for (const id of ids) {
      if (posts.has(id)) continue;
      const post = await (
        await fetch(`${base}/api/posts/${id}`, { headers: { authorization: `Bearer ${token}` } })
      ).json();
      if (post.media.every((m) => m.status !== 'pending')) posts.set(id, post);
    }
    if (posts.size === ids.length) return ids.map((id) => posts.get(id));
    if (Date.now() > until) throw new Error('media not ready in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function benchMedia() {
  const photos = await Promise.all(Array.from({ length: 10 }, (_, i) => makePhoto(i)));
  const results = {
    photo: '4000x3000 JPEG (12 MP), default settings (800 px, quality 85, auto-optimise on)',
  };

  await withStack({ MEDIA_CONCURRENCY: '1' }, async (base, token) => {
    // Warm-up: one image through the pipeline.
    await whenReady(base, token, [(await upload(base, token, 'warm-up', [photos[0]])).id]);
    const started = performance.now();
    const ids = [];
    for (let i = 0; i < IMAGES; i++)
      ids.push((await upload(base, token, `one ${i}`, [photos[i % photos.length]])).id);
    const posts = await whenReady(base, token, ids);
    const seconds = (performance.now() - started) / 1000;
    results.oneWorker = {
      images: IMAGES,
      seconds: Math.round(seconds * 100) / 100,
      imagesPerSecond: Math.round((IMAGES / seconds) * 100) / 100,
    };
    const image = posts[0].images[0];
    const size = async (path) =>
      Number((await fetch(`${base}${path}`, { method: 'HEAD' })).headers.get('content-length'));
    const byFormat = {};
    for (const v of image.variants) byFormat[`${v.format} ${v.width}w`] = await size(v.path);
    results.samplePhotoBytes = {
      original: photos[0].length,
      served: await size(image.path),
      servedSize: `${image.width}x${image.height}`,
      variants: byFormat,
    };
  });

  await withStack({}, async (base, token) => {
    await whenReady(base, token, [(await upload(base, token, 'warm-up', [photos[0]])).id]);
    const post = await upload(base, token, 'ten photos', photos);
    const afterResponse = performance.now();
    await whenReady(base, token, [post.id]);
    results.tenPhotoPost = {
      concurrency: 2,
      msFromResponseToAllReady: Math.round(performance.now() - afterResponse),
    };
  });
  return results;
}
