// `npm run bench -- newsletter`: every post by e-mail on the real embedded stack. One post with
// three pictures, published through the API with "Send by e-mail", to 10,000 confirmed each-post
// subscribers (seeded by SQL into mail.subscribers) through a loopback SMTP server in its own
// process (newsletter-smtp.mjs, counting every message and any recipient that got two).
// Figures: time from the publish to the last message, messages per second over the send, each
// stack process's CPU seconds (/proc/PID/stat) and CPU per message, the stack's peak PSS (the sum
// of /proc/*/smaps_rollup over the launcher's process tree, every 200 ms), and the latency of
// GET /api/posts?limit=10 (a GET every 100 ms) before and during the send.
// BENCH_NEWSLETTER_SUBSCRIBERS=100000 runs the big one; MAIL_RETRY_INTERVAL_MS is the sweep's
// interval (BENCH_NEWSLETTER_SWEEP_MS, 2000 by default: the first e-mail waits for a sweep).
import { fork } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import sharp from 'sharp';
import { seedPosts } from '../seed.mjs';
import { sampleStack, stackSnapshot, startReaders } from './federation.mjs';
import { CLOCK_TICKS, signInToken } from './measure.mjs';
import { freePort, ROOT, startStack } from './stack.mjs';

const env = (name, fallback) => Number(process.env[name] ?? fallback);
const SUBSCRIBERS = env('BENCH_NEWSLETTER_SUBSCRIBERS', 10_000);
const SWEEP_MS = env('BENCH_NEWSLETTER_SWEEP_MS', 2000);
const BASELINE_SECONDS = env('BENCH_NEWSLETTER_BASELINE_SECONDS', 20);
const TIMEOUT_SECONDS = env('BENCH_NEWSLETTER_TIMEOUT_SECONDS', SUBSCRIBERS >= 100_000 ? 3600 : 600);
const SETTLE_SECONDS = env('BENCH_NEWSLETTER_SETTLE_SECONDS', 5);
const ADMIN = { username: 'benchadmin', password: 'bench-password-123' };
const PATH = '/api/posts?limit=10';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const tenths = (v) => Math.round(v * 10) / 10;

async function startSmtp() {
  const port = await freePort();
  const child = fork(join(ROOT, 'scripts/bench/newsletter-smtp.mjs'), [String(port)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ready = await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`the SMTP server exited (${code})`)));
  });
  if (ready.error) throw new Error(`the SMTP server could not listen: ${ready.error}`);
  let queue = Promise.resolve();
  const ask = (message) =>
    (queue = queue.then(
      () => new Promise((resolve) => (child.once('message', resolve), child.send(message))),
    ));
  return {
    url: `smtp://127.0.0.1:${port}`,
    progress: () => ask({ cmd: 'progress' }),
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.send({ cmd: 'stop' });
      await exited;
    },
  };
}

/** Three camera-sized JPEGs (a gradient each). */
async function pictures() {
  const out = [];
  for (const tint of [30, 120, 210]) {
    const [width, height] = [1600, 1200];
    const raw = Buffer.alloc(width * height * 3);
    for (let y = 0; y < height; y++)
      for (let x = 0; x < width; x++) {
        const i = (y * width + x) * 3;
        raw[i] = (x * 255) / width;
        raw[i + 1] = (y * 255) / height;
        raw[i + 2] = (tint + ((x ^ y) & 63)) & 255;
      }
    out.push(
      await sharp(raw, { raw: { width, height, channels: 3 } })
        .jpeg({ quality: 85 })
        .toBuffer(),
    );
  }
  return out;
}

async function seedSubscribers(databaseUrl) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const started = performance.now();
    await client.query(
      `INSERT INTO mail.subscribers (email, status, confirmed_at, frequency)
       SELECT 'reader' || g || '@bench.example', 'confirmed', now(), 'each-post'
       FROM generate_series(1, $1::int) AS g`,
      [SUBSCRIBERS],
    );
    return tenths((performance.now() - started) / 1000);
  } finally {
    await client.end();
  }
}

async function publish(baseUrl, token, photos) {
  const form = new FormData();
  const fields = {
    title: 'Newsletter bench',
    content:
      'A post sent **to every subscriber**, with three pictures.\n\n' +
      'Some more text so the e-mail has a body of a usual length. '.repeat(20),
    category: 'Garage',
    submenu1: 'Automobiles',
    sendByEmail: 'true',
  };
  for (const [key, value] of Object.entries(fields)) form.set(key, value);
  photos.forEach((photo, i) =>
    form.append('files', new Blob([photo], { type: 'image/jpeg' }), `picture-${i + 1}.jpg`),
  );
  const response = await fetch(`${baseUrl}/api/posts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  if (response.status !== 201)
    throw new Error(`publish answered ${response.status}: ${await response.text()}`);
  return response.json();
}

async function emailStatus(baseUrl, token, postId) {
  const response = await fetch(`${baseUrl}/api/admin/posts/${postId}/email`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return response.status === 200 ? response.json() : { status: `HTTP ${response.status}` };
}

function table(result) {
  const line = (label, text) => `${String(label).padEnd(36)}${text}`;
  const { send, stack, reads } = result;
  const lines = [
    `Every post by e-mail: one post, three pictures, ${result.subscribers} each-post subscribers`,
    line('publish answered', `${send.publishMs} ms`),
    line('first message', `${send.firstSeconds ?? '-'} s after the publish (sweep every ${SWEEP_MS} ms)`),
    line('last message', `${send.lastSeconds ?? '-'} s after the publish`),
    line('messages / recipients / twice', `${send.messages} / ${send.recipients} / ${send.twice}`),
    line('messages per second', `${send.perSecond} (first to last)`),
    line('average message', `${send.averageKiB} KiB`),
    line('send status', JSON.stringify(send.status)),
    '',
    line('stack CPU s over the send', JSON.stringify(stack.cpuSeconds)),
    line('CPU ms per message', `${stack.cpuMsPerMessage}`),
    line('peak PSS MB (whole stack)', `${stack.peakPssMb} (at rest before: ${stack.restPssMb})`),
    '',
    line(`${PATH}, ms`, 'n / p50 / p95 / max / failed'),
    line('  before', Object.values(reads.before).join(' / ')),
    line('  during the send', Object.values(reads.during).join(' / ')),
  ];
  return lines.join('\n');
}

export async function benchNewsletter() {
  const smtp = await startSmtp();
  const dataDir = await mkdtemp(join(tmpdir(), 'blog-bench-newsletter-'));
  let stack, samples, readers;
  try {
    const [port, pgPort] = [await freePort(), await freePort()];
    stack = await startStack({
      dataDir,
      port,
      env: {
        ADMIN_USERNAME: ADMIN.username,
        ADMIN_PASSWORD: ADMIN.password,
        PG_PORT: String(pgPort),
        SMTP_URL: smtp.url,
        SITE_URL: 'https://blog.example',
        MAIL_RETRY_INTERVAL_MS: String(SWEEP_MS),
      },
    });
    const password = (await readFile(join(dataDir, 'postgres-password'), 'utf8')).trim();
    const databaseUrl = `postgres://postgres:${password}@127.0.0.1:${pgPort}/blog`;
    await seedPosts(databaseUrl, 200);
    const seededSeconds = await seedSubscribers(databaseUrl);
    const token = await signInToken(stack.baseUrl, ADMIN);
    const photos = await pictures();
    await fetch(`${stack.baseUrl}${PATH}`).then((r) => r.arrayBuffer());

    samples = sampleStack(stack.child.pid, dataDir);
    readers = startReaders(stack.baseUrl, [PATH]);
    await sleep(BASELINE_SECONDS * 1000);
    const before = await stackSnapshot(stack.child.pid, dataDir);
    process.stderr.write(`[bench] newsletter: publishing to ${SUBSCRIBERS} subscribers\n`);
    const publishedAt = Date.now();
    const post = await publish(stack.baseUrl, token, photos);
    const publishMs = Date.now() - publishedAt;
    let progress = await smtp.progress();
    const deadline = publishedAt + TIMEOUT_SECONDS * 1000;
    while (progress.messages < SUBSCRIBERS && Date.now() < deadline) {
      await sleep(200);
      progress = await smtp.progress();
    }
    const after = await stackSnapshot(stack.child.pid, dataDir);
    const endAt = progress.lastAt ?? Date.now();
    await sleep(SETTLE_SECONDS * 1000);
    progress = await smtp.progress();
    const status = await emailStatus(stack.baseUrl, token, post.id);

    const roles = [...new Set([...Object.keys(before), ...Object.keys(after)])];
    const cpu = Object.fromEntries(
      roles.map((role) => [
        role,
        Math.round((((after[role]?.ticks ?? 0) - (before[role]?.ticks ?? 0)) / CLOCK_TICKS) * 100) / 100,
      ]),
    );
    const cpuTotal = Object.values(cpu).reduce((x, y) => x + y, 0);
    const pss = (byRole) => Object.values(byRole).reduce((sum, r) => sum + r.pssKb, 0);
    const during = samples.between(publishedAt, endAt);
    const rest = samples.between(publishedAt - 1000, publishedAt).at(-1)?.byRole ?? before;
    const sendSeconds =
      progress.firstAt && progress.lastAt ? (progress.lastAt - progress.firstAt) / 1000 : null;
    const baselineFrom = publishedAt - Math.min(Math.max(endAt - publishedAt, 1000), BASELINE_SECONDS * 1000);
    const result = {
      subscribers: SUBSCRIBERS,
      seededIn: `${seededSeconds} s (SQL into mail.subscribers)`,
      sweepMs: SWEEP_MS,
      post: { id: post.id },
      send: {
        publishMs,
        firstSeconds: progress.firstAt ? tenths((progress.firstAt - publishedAt) / 1000) : null,
        lastSeconds: progress.lastAt ? tenths((progress.lastAt - publishedAt) / 1000) : null,
        messages: progress.messages,
        recipients: progress.recipients,
        twice: progress.twice,
        perSecond: sendSeconds ? Math.round(progress.messages / sendSeconds) : null,
        averageKiB: tenths(progress.bytes / Math.max(1, progress.messages) / 1024),
        status,
      },
      stack: {
        cpuSeconds: { ...cpu, total: Math.round(cpuTotal * 100) / 100 },
        cpuMsPerMessage: Math.round((cpuTotal * 1000 * 100) / Math.max(1, progress.messages)) / 100,
        peakPssMb: Math.round(Math.max(0, ...during.map((s) => pss(s.byRole))) / 1024),
        restPssMb: Math.round(pss(rest) / 1024),
      },
      reads: {
        before: readers.stats(baselineFrom, publishedAt)[PATH],
        during: readers.stats(publishedAt, endAt)[PATH],
      },
    };
    process.stderr.write(`${table(result)}\n`);
    return result;
  } finally {
    samples?.stop();
    await readers?.stop();
    await stack?.stop();
    await smtp.stop();
    await rm(dataDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  }
}
