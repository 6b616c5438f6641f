// Export benchmark: a blog of 10,000 posts (BENCH_EXPORT_POSTS) and 5 GB of media originals
// (BENCH_EXPORT_MEDIA_MB, in 100 MB files) exported as a job (POST /api/admin/export, its
// report polled), then downloaded; the archive is read to the end and counted, the posts
// service's RSS (it writes the archive) and the gateway's (it streams it) sampled from /proc.
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

/**
 * One export through the API as the dashboard makes it: started, its report polled every
 * 200 ms until it ends, then its archive downloaded (the response, unread).
 */
export async function exportArchive(baseUrl, headers) {
  const started = await fetch(`${baseUrl}/api/admin/export`, { method: 'POST', headers });
  let report = await started.json();
  if (started.status !== 202)
    throw new Error(`export start answered ${started.status}: ${JSON.stringify(report)}`);
  while (report.state !== 'done') {
    if (report.state === 'failed') throw new Error(`export failed: ${report.reason}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    report = await (await fetch(`${baseUrl}/api/admin/export/jobs/${report.id}`, { headers })).json();
  }
  return fetch(`${baseUrl}/api/admin/export/jobs/${report.id}/archive`, { headers });
}

/** Exports once: seconds, bytes, and the RSS of the posts service and the gateway before and at their peak. */
async function exportOnce(stack, token, pids) {
  const idle = { posts: await rssKb(pids.posts), gateway: await rssKb(pids.gateway) };
  const samplers = { posts: sampleRss(pids.posts), gateway: sampleRss(pids.gateway) };
  const started = performance.now();
  const response = await exportArchive(stack.baseUrl, { authorization: `Bearer ${token}` });
  let bytes = 0;
  for await (const chunk of response.body) bytes += chunk.length;
  const seconds = (performance.now() - started) / 1000;
  const peak = { posts: samplers.posts.stop(), gateway: samplers.gateway.stop() };
  return {
    status: response.status,
    seconds: Math.round(seconds * 10) / 10,
    archiveMb: Math.round(bytes / 1024 / 1024),
    mbPerSecond: Math.round(bytes / 1024 / 1024 / seconds),
    postsIdleRssMb: Math.round(idle.posts / 1024),
    postsPeakRssMb: Math.round(Math.max(idle.posts, peak.posts) / 1024),
    gatewayIdleRssMb: Math.round(idle.gateway / 1024),
    gatewayPeakRssMb: Math.round(Math.max(idle.gateway, peak.gateway) / 1024),
  };
}

export async function benchExport() {
  const stack = await startSeedableStack('export', {
    ADMIN_USERNAME: ADMIN.username,
    ADMIN_PASSWORD: ADMIN.password,
  });
  try {
    await seedPosts(stack.databaseUrl, POSTS);
    const pids = await stackPids(stack);
    const token = await signInToken(stack.baseUrl, ADMIN);
    const postsOnly = await exportOnce(stack, token, pids);

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
    const withMedia = await exportOnce(stack, token, pids);
    return { posts: POSTS, mediaMb: MEDIA_MB, postsOnly, withMedia };
  } finally {
    await stack.stop();
  }
}
