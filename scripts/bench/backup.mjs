// Backup benchmark (`npm run bench -- backup`): a blog of 10,000 posts (BENCH_BACKUP_POSTS) and
// 1 GB of media (BENCH_BACKUP_MEDIA_MB, in 10 MB files that do not compress) under `npm start`,
// backed up twice through the API as the dashboard's "Back up now" does: the first copies
// everything, the next (after 50 MB of new media) only what is new. For each: seconds, bytes
// written, the stack's CPU seconds (every process under the launcher, PostgreSQL's included,
// from /proc/PID/stat) and its PSS peak (smaps_rollup, every 250 ms). Then `npm run restore`
// of the last one into a fresh DATA_DIR: seconds and its CPU and PSS peak. Last, 50 readers on
// the home page alone and while a whole backup runs again (latency).
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createStorage } from '@blog/server-kit';
import { seedPosts } from '../seed.mjs';
import { CLOCK_TICKS, signInToken } from './measure.mjs';
import { sampler } from './memory.mjs';
import { ROOT, startSeedableStack } from './stack.mjs';

const ADMIN = { username: 'benchadmin', password: 'bench-password-123' };
const POSTS = Number(process.env.BENCH_BACKUP_POSTS ?? 10_000);
const MEDIA_MB = Number(process.env.BENCH_BACKUP_MEDIA_MB ?? 1024);
const FILE_MB = 10;
const mb = (bytes) => Math.round(bytes / 1024 / 1024);

/** CPU ticks of `root` and every process under it (processes that exited are not counted). */
async function treeTicks(root) {
  const table = new Map();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => null);
    if (!stat) continue;
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    table.set(Number(entry), { ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) });
  }
  let ticks = 0;
  for (const [pid, { ticks: own }] of table) {
    for (let p = pid; p > 1; p = table.get(p)?.ppid ?? 0)
      if (p === root) {
        ticks += own;
        break;
      }
  }
  return ticks;
}

async function putMedia(storage, count, prefix) {
  for (let i = 0; i < count; i++)
    await storage.put(`private/originals/bench/${prefix}-${i}.jpg`, randomBytes(FILE_MB * 1024 * 1024), {
      contentType: 'image/jpeg',
    });
}

/**
 * 50 readers on the home page until `done` settles: autocannon's latency figures (ms). It
 * reports p90 and p97.5, not p95; p97.5 is the stricter of the two around the 100 ms goal.
 */
async function readersUntil(baseUrl, done) {
  const instance = autocannon({ url: `${baseUrl}/`, connections: 50, duration: 3600 });
  const result = new Promise((resolve) => instance.once('done', resolve));
  await done.catch(() => {});
  instance.stop();
  const { latency, requests, non2xx } = await result;
  return { p50: latency.p50, p90: latency.p90, p97_5: latency.p97_5, requests: requests.total, non2xx };
}

/** One backup through the API: seconds, bytes, the stack's CPU seconds and PSS peak. */
async function backupOnce(stack, token, samples, phase) {
  const headers = { authorization: `Bearer ${token}` };
  const ticksBefore = await treeTicks(stack.child.pid);
  samples.mark(phase);
  const started = performance.now();
  const answer = await fetch(`${stack.baseUrl}/api/admin/backups`, { method: 'POST', headers });
  let run = await answer.json();
  if (answer.status !== 202)
    throw new Error(`backup start answered ${answer.status}: ${JSON.stringify(run)}`);
  while (run.state === 'running') {
    await new Promise((resolve) => setTimeout(resolve, 250));
    run = await (await fetch(`${stack.baseUrl}/api/admin/backups/${run.id}`, { headers })).json();
  }
  if (run.state !== 'done') throw new Error(`backup ${run.state}: ${run.error}`);
  const seconds = (performance.now() - started) / 1000;
  return {
    seconds: Math.round(seconds * 10) / 10,
    writtenMb: mb(run.bytes),
    cpuSeconds: Math.round(((await treeTicks(stack.child.pid)) - ticksBefore) / CLOCK_TICKS),
    peakPssMb: mb(samples.peak(phase).total * 1024),
    file: run.file,
  };
}

/** `npm run restore` of `file` into a fresh DATA_DIR: seconds, CPU seconds and PSS peak. */
async function restoreOnce(file) {
  const dataDir = await mkdtemp(join(tmpdir(), 'blog-bench-restore-'));
  await rm(dataDir, { recursive: true });
  try {
    const child = spawn(process.execPath, [join(ROOT, 'scripts/restore.mjs'), file], {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '' },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const samples = sampler(child.pid, dataDir);
    samples.mark('restore');
    let ticks = 0;
    const ticking = setInterval(
      () => void treeTicks(child.pid).then((t) => (ticks = Math.max(ticks, t))),
      250,
    );
    const started = performance.now();
    const code = await new Promise((done) => child.once('exit', done));
    clearInterval(ticking);
    samples.stop();
    if (code !== 0) throw new Error(`restore exited with ${code}`);
    return {
      seconds: Math.round((performance.now() - started) / 100) / 10,
      cpuSecondsAtLeast: Math.round(ticks / CLOCK_TICKS),
      peakPssMb: mb(samples.peak('restore').total * 1024),
    };
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

export async function benchBackup() {
  const target = await mkdtemp(join(tmpdir(), 'blog-bench-backups-'));
  const stack = await startSeedableStack('backup', {
    ADMIN_USERNAME: ADMIN.username,
    ADMIN_PASSWORD: ADMIN.password,
    BACKUP_SCHEDULE: 'off',
    BACKUP_TARGET: target,
  });
  let restored;
  let first;
  let next;
  let readers;
  try {
    await seedPosts(stack.databaseUrl, POSTS);
    const storage = await createStorage({ DATA_DIR: stack.dataDir });
    await putMedia(storage, Math.ceil(MEDIA_MB / FILE_MB), 'a');
    const token = await signInToken(stack.baseUrl, ADMIN);
    const samples = sampler(stack.child.pid, stack.dataDir);
    try {
      first = await backupOnce(stack, token, samples, 'first');
      await putMedia(storage, 5, 'b');
      next = await backupOnce(stack, token, samples, 'next');
      // 50 readers alone, then while a backup copies everything again (the target's blobs
      // removed first): what a reader feels while a first backup runs.
      const readersIdle = await readersUntil(
        stack.baseUrl,
        new Promise((resolve) => setTimeout(resolve, 10_000)),
      );
      await rm(join(target, 'blobs'), { recursive: true, force: true });
      await rm(join(target, 'index'), { recursive: true, force: true });
      const busy = backupOnce(stack, token, samples, 'readers');
      const readersDuring = await readersUntil(stack.baseUrl, busy);
      const { seconds, file } = await busy;
      readers = { idleMs: readersIdle, duringBackupMs: readersDuring, backupSeconds: seconds, file };
    } finally {
      samples.stop();
    }
  } finally {
    await stack.stop();
  }
  try {
    // The newest: retention (one a day) has removed the others by now.
    restored = await restoreOnce(join(target, readers.file));
  } finally {
    await rm(target, { recursive: true, force: true });
  }
  return { posts: POSTS, mediaMb: MEDIA_MB, first, next, readers, restore: restored };
}
