// `npm run bench -- faults`: faults under load in the production topology (`npm run stack:prod`,
// two posts replicas). Each fault runs while autocannon reads the post list through nginx
// (without its microcache, so the fault is not hidden) and another client writes posts:
//  - a posts replica SIGKILLed;
//  - NATS restarted;
//  - Redis stopped for 30 s while photos are uploaded;
//  - the SMTP server down while a digest goes out.
// After each: every acknowledged post is in the database exactly once, every uploaded item
// ends ready with its files once, every digest e-mail arrives exactly once; and the time
// reads took to recover. Build first.
import autocannon from 'autocannon';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import pg from 'pg';
import { ROOT, startProdStack } from '../prod-stack.mjs';
import { seedPosts } from '../seed.mjs';

const ADMIN = { username: 'faultadmin', password: 'fault-admin-password-1' };
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

/**
 * Reads the list every 50 ms: when the last failure was, how many failed, how many the
 * gateway answered from its last good copy (`X-Cache: stale`), and the slowest read.
 */
function probe(url) {
  const state = { failures: 0, lastFailureAt: 0, stale: 0, slowestMs: 0, running: true };
  state.done = (async () => {
    while (state.running) {
      const started = Date.now();
      const ok = await fetch(url, { signal: AbortSignal.timeout(10_000) }).then(
        (r) => {
          if (r.headers.get('x-cache') === 'stale') state.stale += 1;
          return r.ok;
        },
        () => false,
      );
      state.slowestMs = Math.max(state.slowestMs, Date.now() - started);
      if (!ok) {
        state.failures += 1;
        state.lastFailureAt = Date.now();
      }
      await sleep(50);
    }
  })();
  return state;
}

/**
 * Writes posts one after another until stopped, each with its own Idempotency-Key; a write
 * that fails is sent once more with the same key after RETRY_AFTER_MS, as the owner's Retry
 * would. Keeps what was acknowledged, what failed both times, and what a retry replayed.
 */
const RETRY_AFTER_MS = 2000;
function writer(url, token, prefix) {
  const state = { acknowledged: [], failed: [], retried: 0, replayed: 0, running: true };
  const send = async (title, key) => {
    const form = new FormData();
    form.set('title', title);
    form.set('content', 'Written during a fault.');
    form.set('category', 'Projects');
    const response = await fetch(`${url}/api/posts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'idempotency-key': key },
      body: form,
    }).catch(() => null);
    await response?.arrayBuffer().catch(() => undefined);
    if (response?.headers.get('idempotent-replayed') === 'true') state.replayed += 1;
    return response?.status ?? 'network';
  };
  state.done = (async () => {
    for (let i = 0; state.running; i++) {
      const title = `${prefix} ${i}`;
      const key = `${prefix}-${i}-${Date.now()}`;
      let status = await send(title, key);
      if (status !== 201) {
        state.retried += 1;
        await sleep(RETRY_AFTER_MS);
        status = await send(title, key);
      }
      if (status === 201) state.acknowledged.push(title);
      else state.failed.push({ title, status });
    }
  })();
  return state;
}

/** Load on `url`; a read that failed without an answer is counted by its error code. */
function reads(url, seconds) {
  const errorCodes = {};
  return new Promise((resolve, reject) => {
    const instance = autocannon({ url, connections: 20, duration: seconds }, (error, result) =>
      error
        ? reject(error)
        : resolve({
            requests: result.requests.total,
            non2xx: result.non2xx,
            errors: result.errors,
            errorCodes,
            slowestMs: result.latency.max,
          }),
    );
    instance.on('reqError', (error) => {
      const code = error.code ?? error.message;
      errorCodes[code] = (errorCodes[code] ?? 0) + 1;
    });
  });
}

async function countTitles(db, prefix) {
  const { rows } = await db.query(
    `SELECT title, count(*)::int AS n FROM posts.posts WHERE title LIKE $1 GROUP BY title`,
    [`${prefix} %`],
  );
  return new Map(rows.map((r) => [r.title, r.n]));
}

/** Runs `fault` at 2 s into `seconds` of reads and writes; checks and measures. */
export async function underLoad(plainUrl, token, db, name, fault, seconds = 10) {
  const prefix = `fault-${name}`;
  const list = `${plainUrl}/api/posts?limit=15`;
  const load = reads(list, seconds);
  const writes = writer(plainUrl, token, prefix);
  const watch = probe(list);
  await sleep(2000);
  const faultAt = Date.now();
  await fault();
  await load.then((r) => Object.assign(watch, { load: r }));
  await sleep(1000);
  writes.running = false; // the write under way (and its retry) still finishes
  watch.running = false;
  await Promise.all([writes.done, watch.done]);
  const stored = await countTitles(db, prefix);
  const missing = writes.acknowledged.filter((t) => stored.get(t) !== 1);
  return {
    reads: watch.load,
    readsRecoveredAfterMs: watch.lastFailureAt > faultAt ? watch.lastFailureAt - faultAt : 0,
    probeReads: { failed: watch.failures, servedStale: watch.stale, slowestMs: watch.slowestMs },
    writesAcknowledged: writes.acknowledged.length,
    writesRetried: writes.retried,
    writesReplayed: writes.replayed,
    writesFailed: writes.failed.length,
    writeFailures: [...new Set(writes.failed.map((f) => f.status))],
    acknowledgedNotExactlyOnce: missing.length,
    unacknowledgedButStored: writes.failed.filter((f) => stored.has(f.title)).length,
    storedMoreThanOnce: [...stored.values()].filter((n) => n > 1).length,
  };
}

/** FAULTS=kill,nats,redis,smtp runs only those. */
const wanted = (name) => !process.env.FAULTS || process.env.FAULTS.split(',').includes(name);

/**
 * The production topology with two posts replicas, `posts` seeded posts, nginx without its
 * microcache and a signed-in admin: what every fault runs on (the bench and the faults test).
 */
export async function startFaultRig({ posts = 500 } = {}) {
  const stack = await startProdStack({
    postsReplicas: 2,
    // The import under a kill fetches its pictures from a server on 127.0.0.1.
    variables: { ...ADMIN_VARIABLES(), OUTBOUND_ALLOW: '127.0.0.1' },
    // Faster retries so the SMTP case finishes in seconds; the rest is compose's.
    env: { MAIL_RETRY_INTERVAL_MS: '1000', MEDIA_SWEEP_SECONDS: '5', MEDIA_PENDING_AFTER_SECONDS: '10' },
  });
  const db = new pg.Client({ connectionString: stack.databaseUrl });
  try {
    await db.connect();
    await seedPosts(stack.databaseUrl, posts);
    const plain = await stack.startNginx({ microcache: false });
    const login = await fetch(`${plain.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ADMIN),
    });
    const { token } = await login.json();
    return {
      stack,
      db,
      url: plain.url,
      token,
      async stop() {
        await db.end().catch(() => undefined);
        await stack.stop();
      },
    };
  } catch (error) {
    await db.end().catch(() => undefined);
    await stack.stop();
    throw error;
  }
}

/** A posts replica SIGKILLed under load; a new one is started afterwards. */
export async function killReplicaUnderLoad(rig, seconds) {
  const result = await underLoad(
    rig.url,
    rig.token,
    rig.db,
    'kill',
    () => rig.stack.killProcess('posts#1', 'SIGKILL'),
    seconds,
  );
  await rig.stack.startProcess('posts', 3);
  return result;
}

/** nats-server stopped for a second under load, then started again. */
export function restartNatsUnderLoad(rig, seconds) {
  return underLoad(
    rig.url,
    rig.token,
    rig.db,
    'nats',
    async () => {
      await rig.stack.nats.stop();
      await sleep(1000);
      await rig.stack.nats.start();
    },
    seconds,
  );
}

export async function benchFaults() {
  const rig = await startFaultRig();
  const results = {};
  try {
    if (wanted('kill')) results.postsReplicaKilled = await killReplicaUnderLoad(rig);
    if (wanted('nats')) results.natsRestarted = await restartNatsUnderLoad(rig);
    if (wanted('redis')) results.redisDown30s = await redisDown(rig.stack, rig.url, rig.token, rig.db);
    if (wanted('smtp')) results.smtpDownDuringDigest = await smtpDown(rig.stack, rig.url, rig.token, rig.db);
  } finally {
    await rig.stop();
  }
  return results;
}

const ADMIN_VARIABLES = () => ({
  ADMIN_USERNAME: ADMIN.username,
  ADMIN_PASSWORD: ADMIN.password,
  LOG_LEVEL: 'error',
});

/** Photos uploaded while Redis is down for 30 s: every acknowledged one ends ready, its files once. */
async function redisDown(stack, url, token, db) {
  const sharp = createRequire(join(ROOT, 'package.json'))('sharp');
  const photo = await sharp({ create: { width: 800, height: 600, channels: 3, background: '#468' } })
    .jpeg()
    .toBuffer();
  await stack.redis.stop();
  const downAt = Date.now();
  const acknowledged = [];
  let failed = 0;
  for (let i = 0; Date.now() - downAt < 30_000; i++) {
    const form = new FormData();
    form.set('title', `fault-redis ${i}`);
    form.set('category', 'Projects');
    form.append('files', new Blob([photo], { type: 'image/jpeg' }), `photo-${i}.jpg`);
    const response = await fetch(`${url}/api/posts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: form,
    }).catch(() => null);
    if (response?.status === 201) acknowledged.push((await response.json()).id);
    else failed += 1;
    await sleep(1000);
  }
  await stack.redis.start();
  const backAt = Date.now();
  let pending = -1;
  while (Date.now() - backAt < 120_000) {
    const { rows } = await db.query(
      `SELECT count(*)::int AS n FROM posts.media_items WHERE post_id = ANY($1) AND status <> 'ready'`,
      [acknowledged],
    );
    pending = rows[0].n;
    if (pending === 0) break;
    await sleep(500);
  }
  const { rows } = await db.query(
    `SELECT id, storage_key, variants FROM posts.media_items WHERE post_id = ANY($1)`,
    [acknowledged],
  );
  let extraFiles = 0;
  for (const item of rows) {
    const referenced = new Set(item.variants.map((v) => v.key));
    const written = await readdir(join(stack.s3Dir, 'blog-media', 'media', 'items', item.id), {
      recursive: true,
    }).catch(() => []);
    // s3rver keeps each object as a folder of its data and metadata files.
    const objects = new Set(
      written.filter((f) => f.endsWith('._S3rver_object')).map((f) => f.replace(/\._S3rver_object$/, '')),
    );
    extraFiles += [...objects].filter((key) => !referenced.has(`media/items/${item.id}/${key}`)).length;
  }
  return {
    uploadsAcknowledged: acknowledged.length,
    uploadsFailed: failed,
    itemsNotReadyAfterRedisBack: pending,
    readyWithinMsOfRedisBack: Date.now() - backAt,
    filesNotReferencedOrDuplicated: extraFiles,
  };
}

/** A digest to 50 subscribers while the SMTP server is down for 5 s: each gets it once. */
async function smtpDown(stack, url, token, db) {
  await db.query(
    `INSERT INTO mail.subscribers (email, status, confirmed_at)
     SELECT 'fault-reader-' || g || '@example.com', 'confirmed', now() FROM generate_series(1, 50) g`,
  );
  const before = (await readdir(stack.smtp.dir)).length;
  await stack.smtp.stop();
  const digest = await fetch(`${url}/api/admin/digest`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
  });
  const answer = { status: digest.status, body: await digest.json().catch(() => null) };
  await sleep(5000);
  await stack.smtp.start();
  const backAt = Date.now();
  const { simpleParser } = createRequire(join(ROOT, 'package.json'))('mailparser');
  const { readFile } = await import('node:fs/promises');
  let recipients = [];
  while (Date.now() - backAt < 60_000) {
    const files = (await readdir(stack.smtp.dir)).sort().slice(before);
    recipients = [];
    for (const file of files) {
      const mail = await simpleParser(await readFile(join(stack.smtp.dir, file)));
      recipients.push(mail.to?.text ?? '');
    }
    if (recipients.filter((r) => r.includes('fault-reader-')).length >= 50) break;
    await sleep(500);
  }
  const readers = recipients.filter((r) => r.includes('fault-reader-'));
  return {
    digestAnswer: answer,
    digestEmailsReceived: readers.length,
    distinctRecipients: new Set(readers).size,
    allDeliveredWithinMsOfSmtpBack: Date.now() - backAt,
  };
}
