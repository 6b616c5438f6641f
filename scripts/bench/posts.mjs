// Posts benchmark: read throughput and latency at 50 connections over 10,000 seeded
// posts, search p95 over 100,000, the gateway's memory while a 100 MB video uploads, resident
// memory of every process after the load, and posts written per second.
import autocannon from 'autocannon';
import { readFile } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { seedPosts } from '../seed.mjs';
import { sequential, startSeedableStack } from './stack.mjs';

const ADMIN = { username: 'benchadmin', password: 'bench-password-123' };
const DURATION = Number(process.env.BENCH_SECONDS ?? 8);

function cannon(url, extra = {}) {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections: 50, duration: DURATION, ...extra }, (error, result) => {
      if (error) return reject(error);
      resolve({
        requestsPerSecond: Math.round(result.requests.average),
        p50ms: result.latency.p50,
        p99ms: result.latency.p99,
        non2xx: result.non2xx,
        errors: result.errors,
      });
    });
  });
}

async function kib(pid, field) {
  try {
    const text = await readFile(`/proc/${pid}/${field === 'Pss' ? 'smaps_rollup' : 'status'}`, 'utf8');
    const match = new RegExp(`^${field === 'Pss' ? 'Pss' : 'VmRSS'}:\\s+(\\d+) kB`, 'm').exec(text);
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

async function childrenOf(pid) {
  const { readdir } = await import('node:fs/promises');
  const pids = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (ppid === pid) pids.push(Number(entry));
  }
  return pids;
}

/**
 * Resident memory of every process of the stack, in MiB. RSS counts pages shared between
 * processes (the node binary, PostgreSQL's shared buffers) once per process; PSS splits
 * them, so the PSS total is the physical memory the whole stack really holds.
 */
async function memoryReport(dataDir) {
  const state = JSON.parse(await readFile(join(dataDir, 'stack.json'), 'utf8'));
  const postmaster = Number(
    (await readFile(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8')).split('\n')[0],
  );
  const groups = { ...Object.fromEntries(Object.entries(state.children).map(([n, pid]) => [n, [pid]])) };
  groups.postgres = [postmaster, ...(await childrenOf(postmaster))];
  const rss = {};
  const pss = {};
  for (const [name, pids] of Object.entries(groups)) {
    rss[name] = 0;
    pss[name] = 0;
    for (const pid of pids) {
      rss[name] += await kib(pid, 'VmRSS');
      pss[name] += await kib(pid, 'Pss');
    }
    rss[name] = Math.round(rss[name] / 1024);
    pss[name] = Math.round(pss[name] / 1024);
  }
  const sum = (values) => Object.values(values).reduce((a, b) => a + b, 0);
  return { rss, pss, totalRss: sum(rss), totalPss: sum(pss) };
}

/** Streams a 100 MB MP4-like file to POST /api/posts while sampling the gateway's resident memory. */
async function uploadMemory(baseUrl, token, gatewayPid) {
  const idle = await kib(gatewayPid, 'VmRSS');
  let peak = idle;
  const sampler = setInterval(async () => (peak = Math.max(peak, await kib(gatewayPid, 'VmRSS'))), 25);
  const boundary = '----bench';
  const size = 100 * 1024 * 1024 - 4096;
  const started = performance.now();
  const status = await new Promise((resolve, reject) => {
    const req = request(`${baseUrl}/api/posts`, {
      method: 'POST',
      headers: {
        'content-type': `multipart/form-data; boundary=${boundary}`,
        authorization: `Bearer ${token}`,
      },
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.on('error', reject);
    req.write(
      `--${boundary}\r\nContent-Disposition: form-data; name="title"\r\n\r\nBig video\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="category"\r\n\r\nProjects\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="big.mp4"\r\nContent-Type: video/mp4\r\n\r\n`,
    );
    const ftyp = Buffer.from('0000001c667479706973366d0000000069736f6d69736f326d703431', 'hex');
    const chunk = Buffer.alloc(256 * 1024, 3);
    let sent = 0;
    const pump = () => {
      while (sent < size) {
        const piece =
          sent === 0
            ? Buffer.concat([ftyp, chunk.subarray(ftyp.length)])
            : chunk.subarray(0, Math.min(chunk.length, size - sent));
        sent += piece.length;
        if (!req.write(piece)) return void req.once('drain', pump);
      }
      req.end(`\r\n--${boundary}--\r\n`);
    };
    pump();
  });
  clearInterval(sampler);
  return {
    status,
    seconds: Math.round((performance.now() - started) / 100) / 10,
    gatewayIdleMiB: Math.round(idle / 1024),
    gatewayPeakAboveIdleMiB: Math.round((peak - idle) / 1024),
  };
}

async function writesPerSecond(baseUrl, token, seconds = 5, concurrency = 8) {
  const deadline = Date.now() + seconds * 1000;
  let ok = 0;
  let failed = 0;
  const worker = async (w) => {
    for (let i = 0; Date.now() < deadline; i++) {
      const form = new FormData();
      form.set('title', `Bench write ${w}-${i}`);
      form.set('content', 'Written by the benchmark.');
      form.set('category', 'More');
      form.set('tags', 'bench');
      const response = await fetch(`${baseUrl}/api/posts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
        body: form,
      });
      await response.arrayBuffer();
      if (response.status === 201) ok++;
      else failed++;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, (_, w) => worker(w)));
  return { postsPerSecond: Math.round(ok / ((performance.now() - started) / 1000)), failed };
}

/**
 * Search latency, one request at a time, over whatever the database holds: ten real terms
 * (full text) and three misspelt words (full text finds nothing, so the trigram fallback runs).
 */
async function searchLatency(base, token) {
  const terms = [
    'coral',
    'reef aqua',
    'engine oil',
    'sourdough bread',
    'helmet',
    'solar pan',
    'river dawn',
    'gearbox',
    'lap track',
    'winter snow',
  ];
  // The Authorization header bypasses the gateway's cache, so every search reaches PostgreSQL.
  const search100k = await sequential(200, async (i) => {
    const response = await fetch(
      `${base}/api/posts?limit=15&page=${1 + (i % 3)}&search=${encodeURIComponent(terms[i % terms.length])}`,
      {
        headers: { authorization: `Bearer ${token}` },
      },
    );
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`search answered ${response.status}`);
  });
  const typoSearch100k = await sequential(50, async (i) => {
    const response = await fetch(
      `${base}/api/posts?limit=15&search=${['aquarim', 'helmte', 'espreso'][i % 3]}`,
      {
        headers: { authorization: `Bearer ${token}` },
      },
    );
    await response.arrayBuffer();
  });
  return { search100k, typoSearch100k };
}

export async function benchPosts() {
  const stack = await startSeedableStack('posts', {
    ADMIN_USERNAME: ADMIN.username,
    ADMIN_PASSWORD: ADMIN.password,
  });
  const { dataDir, databaseUrl } = stack;
  try {
    const seed10k = await seedPosts(databaseUrl, 10_000);
    const base = stack.baseUrl;
    const sample = await (await fetch(`${base}/api/posts?limit=100&page=7`)).json();
    const post = sample[0];
    const results = { seededPosts: 10_000, seedSeconds: Math.round(seed10k) };
    results.homeList = await cannon(`${base}/api/posts?limit=15`);
    results.byId = await cannon(`${base}/api/posts/${post.id}`);
    results.bySlug = await cannon(`${base}/api/posts/by-slug/${post.slug}`);
    results.categoryListing = await cannon(`${base}/api/posts?category=Garage&submenu1=Motorcycles&limit=30`);
    results.search = await cannon(`${base}/api/posts?search=coral%20reef&limit=15`);
    // The same reads spread over 100 different posts, so most answers are not cached.
    results.byIdSpread = await cannon(`${base}/api/posts/${sample[0].id}`, {
      requests: sample.map((p) => ({ method: 'GET', path: `/api/posts/${p.id}` })),
    });
    results.memoryAfterLoadMiB = await memoryReport(dataDir);

    const login = await fetch(`${base}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ADMIN),
    });
    const { token } = await login.json();
    const state = JSON.parse(await readFile(join(dataDir, 'stack.json'), 'utf8'));
    // Writes before the upload: the media worker then processes the 100 MB video in the background.
    results.writes = await writesPerSecond(base, token);
    results.upload100MB = await uploadMemory(base, token, state.children.gateway);

    results.seed100kSeconds = Math.round(await seedPosts(databaseUrl, 90_000));
    Object.assign(results, await searchLatency(base, token));
    return results;
  } finally {
    await stack.stop();
  }
}

/**
 * Only the search figures (`npm run bench -- posts-search`): 100,000 seeded posts, then
 * search100k and typoSearch100k as benchPosts measures them.
 */
export async function benchPostsSearch() {
  const stack = await startSeedableStack('search', {
    ADMIN_USERNAME: ADMIN.username,
    ADMIN_PASSWORD: ADMIN.password,
  });
  const { databaseUrl } = stack;
  try {
    const results = { seed100kSeconds: Math.round(await seedPosts(databaseUrl, 100_000)) };
    const login = await fetch(`${stack.baseUrl}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ADMIN),
    });
    const { token } = await login.json();
    return { ...results, ...(await searchLatency(stack.baseUrl, token)) };
  } finally {
    await stack.stop();
  }
}
