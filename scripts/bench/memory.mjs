// `npm run bench -- memory`: what the embedded stack (`npm start`) holds in memory.
// With 10,000 posts seeded: PSS of every process of the stack, started as the README says
// (`npm start`: npm itself, the launcher, what it runs, PostgreSQL's processes and backends; from
// /proc/*/smaps_rollup every 250 ms) at rest, at the peak of each
// step and 90 s after it (the servers release memory after a minute of quiet), for: a 1,000-post WXR import with a picture per post, one post with
// 20 photos and a 60 MB video, an export of everything, 50 readers for 60 s. BENCH_BASE=<rev>
// measures that revision first. BENCH_MEMORY_QUICK=1 runs small steps (for iterating).
import autocannon from 'autocannon';
import { execFileSync } from 'node:child_process';
import { existsSync, openAsBlob } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import sharp from 'sharp';
import { resolveBinaries } from '@blog/server-kit';
import { exportArchive } from './export.mjs';
import { writeWxr } from './import.mjs';
import { benchTargets, signInToken } from './measure.mjs';
import { makePhoto } from './media.mjs';
import { startSeedableStack } from './stack.mjs';

const QUICK = process.env.BENCH_MEMORY_QUICK === '1';
const number = (name, full, quick) => Number(process.env[name] ?? (QUICK ? quick : full));
const SIZES = {
  seededPosts: number('BENCH_MEMORY_POSTS', 10_000, 10_000),
  importPosts: number('BENCH_MEMORY_IMPORT_POSTS', 1000, 100),
  photos: number('BENCH_MEMORY_PHOTOS', 20, 4),
  videoMb: number('BENCH_MEMORY_VIDEO_MB', 60, 10),
  readersSeconds: number('BENCH_MEMORY_READERS_SECONDS', 60, 10),
  settleSeconds: number('BENCH_MEMORY_SETTLE_SECONDS', 90, 15),
};
/** BENCH_MEMORY_STEPS=import,export runs only those (for iterating). */
const STEPS = (process.env.BENCH_MEMORY_STEPS ?? 'import,upload,export,readers').split(',');
const READERS = 50;
const BUDGET_REST_MB = 256;
const BUDGET_PEAK_MB = 400;
const ADMIN = { username: 'benchadmin', password: 'bench-password-123' };
const mb = (kb) => Math.round(kb / 1024);

/** Parent pid and command name of every process, from /proc. */
async function processTable() {
  const table = new Map();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => null);
    if (!stat) continue;
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    table.set(Number(entry), { ppid, comm });
  }
  return table;
}

async function pssKb(pid) {
  const rollup = await readFile(`/proc/${pid}/smaps_rollup`, 'utf8').catch(() => '');
  return Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
}

/**
 * PSS (kB) of `npm start` and everything under it, summed by role: npm, the launcher, each
 * process it names in stack.json (several names of one process are one role), PostgreSQL (all
 * its processes), anything else by command name (sh, ffmpeg, …).
 */
async function snapshot(root, dataDir) {
  const named = new Map();
  const state = JSON.parse(await readFile(join(dataDir, 'stack.json'), 'utf8').catch(() => '{}'));
  for (const [name, pid] of Object.entries(state.children ?? {}))
    if (pid) named.set(pid, named.has(pid) ? `${named.get(pid)}+${name}` : name);
  const table = await processTable();
  const roleOf = (pid) => {
    if (pid === state.launcher) return 'launcher';
    // The stack's first process: npm, or a process started by itself (`npm run restore`'s node).
    if (pid === root) return table.get(pid).comm.startsWith('npm') ? 'npm' : 'launcher';
    // A process belongs to the nearest named ancestor (a media worker counts with media).
    for (let p = pid; p && p !== root; p = table.get(p)?.ppid) if (named.has(p)) return named.get(p);
    return table.get(pid).comm === 'postgres' ? 'postgres' : table.get(pid).comm;
  };
  const inStack = (pid) => {
    for (let p = pid; p > 1; p = table.get(p)?.ppid ?? 0) if (p === root) return true;
    return false;
  };
  const byRole = {};
  await Promise.all(
    [...table.keys()].filter(inStack).map(async (pid) => {
      const role = roleOf(pid);
      byRole[role] = (byRole[role] ?? 0) + (await pssKb(pid));
    }),
  );
  byRole.total = Object.values(byRole).reduce((a, b) => a + b, 0);
  return byRole;
}

/** Samples the stack every 250 ms; marks split the samples into phases. */
/** `root`: the stack's first process (npm, or the launcher started by itself). */
export function sampler(root, dataDir) {
  const samples = []; // { at, phase, byRole }
  let phase = 'start';
  let busy = false;
  const take = async () => {
    if (busy) return;
    busy = true;
    try {
      samples.push({ at: Date.now(), phase, byRole: await snapshot(root, dataDir) });
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(() => void take(), 250);
  return {
    mark(name) {
      phase = name;
    },
    /** Per role, the peak over a phase's samples. */
    peak(name) {
      const peaks = {};
      for (const s of samples.filter((s) => s.phase === name))
        for (const [role, kb] of Object.entries(s.byRole)) peaks[role] = Math.max(peaks[role] ?? 0, kb);
      return peaks;
    },
    /** The last sample of a phase. */
    last(name) {
      return samples.filter((s) => s.phase === name).at(-1)?.byRole ?? {};
    },
    /** Seconds from a phase's start until its total first fell under `kb` (null: never). */
    secondsUnder(name, kb) {
      const phaseSamples = samples.filter((s) => s.phase === name);
      const under = phaseSamples.find((s) => s.byRole.total <= kb);
      return under ? Math.round((under.at - phaseSamples[0].at) / 100) / 10 : null;
    },
    async now() {
      return snapshot(root, dataDir);
    },
    stop() {
      clearInterval(timer);
    },
  };
}

/** An H.264 video of about `sizeMb` MB (noisy 720p at a fixed bit rate), made once and kept in the temp folder. */
function makeVideo(sizeMb) {
  const file = join(tmpdir(), `blog-bench-memory-video-${sizeMb}mb.mp4`);
  if (existsSync(file)) return file;
  const seconds = Math.max(2, Math.round(sizeMb / 2)); // 16 Mbit/s = 2 MB a second
  // The media service's own choice: FFMPEG_PATH, the system's, else the npm-shipped binary.
  execFileSync(resolveBinaries().ffmpeg, [
    ...['-v', 'error', '-y', '-f', 'lavfi', '-i', `testsrc2=size=1280x720:rate=30`, '-t', String(seconds)],
    ...['-vf', 'noise=alls=60:allf=t', '-c:v', 'libx264', '-preset', 'ultrafast'],
    ...['-b:v', '16M', '-minrate', '16M', '-maxrate', '16M', '-bufsize', '16M', '-pix_fmt', 'yuv420p'],
    `${file}.tmp.mp4`,
  ]);
  execFileSync('mv', [`${file}.tmp.mp4`, file]);
  return file;
}

async function until(check, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not done in ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

const steps = {
  async import({ baseUrl, headers, pictures, dir }) {
    const file = join(dir, 'memory.xml');
    await writeWxr(file, SIZES.importPosts, pictures);
    const form = new FormData();
    form.append('file', await openAsBlob(file), 'memory.xml');
    let report = await (
      await fetch(`${baseUrl}/api/admin/import`, { method: 'POST', headers, body: form })
    ).json();
    if (!report.id) throw new Error(`import refused: ${JSON.stringify(report)}`);
    report = await until(
      async () => {
        const now = await (await fetch(`${baseUrl}/api/admin/import/${report.id}`, { headers })).json();
        return now.state === 'queued' || now.state === 'running' ? null : now;
      },
      1_800_000,
      'import',
    );
    return {
      posts: SIZES.importPosts,
      state: report.state,
      imported: report.imported,
      media: report.media,
      ...(report.reason ? { reason: report.reason } : {}),
      ...(report.errors?.length ? { firstError: report.errors[0] } : {}),
    };
  },

  async upload({ baseUrl, headers, photos, video }) {
    const form = new FormData();
    form.set('title', 'Photos and a video');
    form.set('category', 'Projects');
    photos.forEach((photo, i) =>
      form.append('files', new Blob([photo], { type: 'image/jpeg' }), `photo-${i}.jpg`),
    );
    form.append('files', await openAsBlob(video, { type: 'video/mp4' }), 'video.mp4');
    const response = await fetch(`${baseUrl}/api/posts`, { method: 'POST', headers, body: form });
    if (response.status !== 201)
      throw new Error(`upload answered ${response.status}: ${await response.text()}`);
    const { id } = await response.json();
    const post = await until(
      async () => {
        const now = await (await fetch(`${baseUrl}/api/posts/${id}`, { headers })).json();
        return now.media.every((m) => m.status !== 'pending') ? now : null;
      },
      1_800_000,
      'media processing',
    );
    return {
      photos: photos.length,
      videoMb: Math.round((await stat(video)).size / 1024 / 1024),
      ready: post.media.filter((m) => m.status === 'ready').length,
      failed: post.media.filter((m) => m.status !== 'ready').length,
    };
  },

  async export({ baseUrl, headers }) {
    const response = await exportArchive(baseUrl, headers);
    let bytes = 0;
    for await (const chunk of response.body) bytes += chunk.length;
    return { status: response.status, archiveMb: Math.round(bytes / 1024 / 1024) };
  },

  async readers({ baseUrl, postUrl }) {
    const result = await new Promise((resolve, reject) =>
      autocannon(
        {
          url: baseUrl,
          connections: READERS,
          duration: SIZES.readersSeconds,
          requests: [
            { method: 'GET', path: '/' },
            { method: 'GET', path: postUrl },
          ],
        },
        (error, r) => (error ? reject(error) : resolve(r)),
      ),
    );
    return {
      requestsPerSecond: Math.round(result.requests.average),
      non2xx: result.non2xx,
      errors: result.errors,
    };
  },
};

async function measureTarget(target, inputs) {
  const env = { ADMIN_USERNAME: ADMIN.username, ADMIN_PASSWORD: ADMIN.password, OUTBOUND_ALLOW: '127.0.0.1' };
  const stack = await startSeedableStack(`memory-${target.name.replace(/\W+/g, '-')}`, env, target.root, {
    viaNpm: true,
  });
  const dir = await mkdtemp(join(tmpdir(), 'blog-bench-memory-'));
  const samples = sampler(stack.child.pid, stack.dataDir);
  try {
    const { seedPosts } = await import(pathToFileURL(join(target.root, 'scripts/seed.mjs')).href);
    await seedPosts(stack.databaseUrl, SIZES.seededPosts);
    const headers = { authorization: `Bearer ${await signInToken(stack.baseUrl, ADMIN)}` };
    const list = await (await fetch(`${stack.baseUrl}/api/posts?limit=1`)).json();
    const first = Array.isArray(list) ? list[0] : (list.items ?? list.posts)[0];
    const postUrl = first.url ?? `/posts/${first.slug}`;
    // At rest: a few reads done (what a visitor wakes), then quiet.
    await fetch(`${stack.baseUrl}/`).then((r) => r.arrayBuffer());
    await fetch(`${stack.baseUrl}${postUrl}`).then((r) => r.arrayBuffer());
    samples.mark('settle');
    await new Promise((r) => setTimeout(r, 10_000));
    samples.mark('rest');
    await new Promise((r) => setTimeout(r, 5_000));
    const result = { rest: samples.last('rest'), steps: {} };
    for (const [name, run] of Object.entries(steps).filter(([name]) => STEPS.includes(name))) {
      process.stderr.write(`[bench] memory: ${target.name}: ${name}\n`);
      samples.mark(name);
      const started = performance.now();
      const outcome = await run({ baseUrl: stack.baseUrl, headers, postUrl, dir, ...inputs });
      const seconds = Math.round((performance.now() - started) / 100) / 10;
      samples.mark(`${name} after`);
      await new Promise((r) => setTimeout(r, SIZES.settleSeconds * 1000));
      result.steps[name] = {
        outcome: { ...outcome, seconds },
        peak: samples.peak(name),
        after: samples.last(`${name} after`),
        secondsBackUnderBudget: samples.secondsUnder(`${name} after`, BUDGET_REST_MB * 1024),
      };
    }
    return result;
  } finally {
    samples.stop();
    await stack.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

/** One line per role: at rest, then each step's peak and its value after the settle time (MB). */
function table(name, result) {
  const columns = [
    'rest',
    ...Object.keys(result.steps).flatMap((s) => [`${s} peak`, `${s} +${SIZES.settleSeconds}s`]),
  ];
  const values = (role) => [
    result.rest[role],
    ...Object.values(result.steps).flatMap((s) => [s.peak[role], s.after[role]]),
  ];
  const roles = new Set(
    [Object.keys(result.rest), ...Object.values(result.steps).map((s) => Object.keys(s.peak))].flat(),
  );
  roles.delete('total');
  const lines = [`PSS MB, ${name}`, ['process'.padEnd(28), ...columns.map((c) => c.padStart(15))].join('')];
  for (const role of [...[...roles].sort(), 'total'])
    lines.push(
      [role.padEnd(28), ...values(role).map((kb) => String(kb ? mb(kb) : '-').padStart(15))].join(''),
    );
  return lines.join('\n');
}

export async function benchMemory() {
  const jpeg = await sharp({ create: { width: 1600, height: 1200, channels: 3, background: '#3060a0' } })
    .jpeg({ quality: 85 })
    .toBuffer();
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/jpeg' }).end(jpeg));
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const inputs = {
    pictures: `http://127.0.0.1:${server.address().port}`,
    photos: await Promise.all(Array.from({ length: SIZES.photos }, (_, i) => makePhoto(i))),
    video: makeVideo(SIZES.videoMb),
  };
  const results = { sizes: SIZES, budgetMb: { rest: BUDGET_REST_MB, peak: BUDGET_PEAK_MB } };
  try {
    for (const target of benchTargets()) {
      const result = await measureTarget(target, inputs);
      process.stderr.write(`${table(target.name, result)}\n`);
      const totals = [result.rest.total, ...Object.values(result.steps).map((s) => s.after.total)];
      const peaks = Object.values(result.steps).map((s) => s.peak.total);
      results[target.name] = {
        restMb: mb(result.rest.total),
        peakMb: mb(Math.max(...peaks)),
        withinBudget:
          Math.max(...totals) <= BUDGET_REST_MB * 1024 && Math.max(...peaks) <= BUDGET_PEAK_MB * 1024,
        restByProcessMb: Object.fromEntries(Object.entries(result.rest).map(([k, v]) => [k, mb(v)])),
        steps: Object.fromEntries(
          Object.entries(result.steps).map(([name, s]) => [
            name,
            {
              ...s.outcome,
              peakMb: mb(s.peak.total),
              afterMb: mb(s.after.total),
              secondsBackUnderBudget: s.secondsBackUnderBudget,
              peakByProcessMb: Object.fromEntries(Object.entries(s.peak).map(([k, v]) => [k, mb(v)])),
            },
          ]),
        ),
      };
    }
  } finally {
    server.close();
  }
  return results;
}
