// Export benchmark: a blog of 10,000 posts (BENCH_EXPORT_POSTS) and 5 GB of media originals
// (BENCH_EXPORT_MEDIA_MB, in 100 MB files) exported through GET /api/admin/export; the
// archive is read to the end and counted, the gateway's RSS sampled from /proc every 100 ms.
// Memory that stays flat while gigabytes go by is the point. The media are real QuickTime
// videos (raw frames, so 100 MB is quick to make): the export re-muxes each one to remove its
// location data, through a temporary file.
import { createStorage, resolveBinaries, run } from '@blog/server-kit';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { seedPosts } from '../seed.mjs';
import { rssKb, sampleRss, signInToken, stackPids } from './measure.mjs';
import { startSeedableStack } from './stack.mjs';

const ADMIN = { username: 'benchadmin', password: 'bench-password-123' };
const POSTS = Number(process.env.BENCH_EXPORT_POSTS ?? 10_000);
const MEDIA_MB = Number(process.env.BENCH_EXPORT_MEDIA_MB ?? 5120);
const FILE_MB = 100;
/** One 1280x720 raw YUV 4:2:0 frame is 1.38 MB. */
const FRAME_BYTES = 1280 * 720 * 1.5;

/** A playable QuickTime file of about FILE_MB: raw frames, so ffmpeg only copies them. */
async function makeVideo() {
  const dir = await mkdtemp(join(tmpdir(), 'bench-video-'));
  try {
    const file = join(dir, 'clip.mov');
    const frames = String(Math.ceil((FILE_MB * 1024 * 1024) / FRAME_BYTES));
    await run(
      resolveBinaries().ffmpeg,
      [
        ...['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc=size=1280x720:rate=25'],
        ...['-frames:v', frames, '-c:v', 'rawvideo', '-pix_fmt', 'yuv420p', file],
      ],
      300_000,
    );
    return await readFile(file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Exports once: seconds, bytes, and the gateway's RSS before and at its peak. */
async function exportOnce(stack, token, pid) {
  const idle = await rssKb(pid);
  const sampler = sampleRss(pid);
  const started = performance.now();
  const response = await fetch(`${stack.baseUrl}/api/admin/export`, {
    headers: { authorization: `Bearer ${token}` },
  });
  let bytes = 0;
  for await (const chunk of response.body) bytes += chunk.length;
  const seconds = (performance.now() - started) / 1000;
  const peak = Math.max(idle, sampler.stop());
  return {
    status: response.status,
    seconds: Math.round(seconds * 10) / 10,
    archiveMb: Math.round(bytes / 1024 / 1024),
    mbPerSecond: Math.round(bytes / 1024 / 1024 / seconds),
    gatewayIdleRssMb: Math.round(idle / 1024),
    gatewayPeakRssMb: Math.round(peak / 1024),
  };
}

export async function benchExport() {
  const stack = await startSeedableStack('export', {
    ADMIN_USERNAME: ADMIN.username,
    ADMIN_PASSWORD: ADMIN.password,
  });
  try {
    await seedPosts(stack.databaseUrl, POSTS);
    const pid = (await stackPids(stack)).gateway;
    const token = await signInToken(stack.baseUrl, ADMIN);
    const postsOnly = await exportOnce(stack, token, pid);

    // The media: 100 MB files in the stack's own storage, each an item of one of the first posts.
    const storage = await createStorage({ DATA_DIR: stack.dataDir });
    const file = await makeVideo();
    const db = new pg.Client({ connectionString: stack.databaseUrl });
    await db.connect();
    try {
      const { rows } = await db.query(`SELECT id FROM posts.posts ORDER BY id LIMIT $1`, [
        Math.ceil(MEDIA_MB / FILE_MB),
      ]);
      for (const [i, { id }] of rows.entries()) {
        const key = `private/originals/bench/${i}.mov`;
        await storage.put(key, file, { contentType: 'video/quicktime' });
        await db.query(
          `INSERT INTO posts.media_items (id, post_id, position, type, status, original_key, name, mime_type, size_bytes)
           VALUES ($1, $2, 0, 'video', 'ready', $3, $4, 'video/quicktime', $5)`,
          [randomUUID(), id, key, `${i}.mov`, file.length],
        );
      }
    } finally {
      await db.end();
    }
    const withMedia = await exportOnce(stack, token, pid);
    return { posts: POSTS, mediaMb: MEDIA_MB, postsOnly, withMedia };
  } finally {
    await stack.stop();
  }
}
