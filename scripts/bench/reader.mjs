// `npm run bench -- reader`: the owner's Reader on the real embedded stack (OUTBOUND_ALLOW on the
// loopback range, SITE_URL on its port), with 1,000 followed accounts on 20 loopback servers in
// this process (plain node:http, one per address 127.0.0.2, .3, …: the gateway counts an inbox's
// verified POSTs per signer host name and its queue runs one activity per host at a time, so
// servers on one address with different ports would be one server to both).
// Seeding (not measured): the follows straight into social.remote_actors and social.following
// (status 'accepted': 1,000 Follow/Accept round trips would measure following, not reading), and
// 100,000 Reader entries by SQL (about 500 bytes of HTML each, one in five with a picture, one in
// ten behind a content warning, one in twenty a boost).
// Figures:
//   1. The Reader's page, GET /api/admin/fediverse/reader: the first page and a page 200 pages in
//      (its cursor from following `next`), one reader after another and READERS at once, p50/p95.
//   2. Intake: BENCH_READER_CREATES signed Create{Note} from the followed accounts (signed before
//      the clock starts: the signing is the sender's work, on the stack's cores) POSTed to
//      /ap/inbox, CONCURRENCY at a time, X-Forwarded-For from the documentation ranges (so no one
//      address's allowance is what is measured): POSTs answered 202 per second, and Creates
//      stored in reader_items per second (first POST to the last row's received_at), with
//      GET /api/posts?limit=10 (a GET every 100 ms, from a thread of its own) before and during it.
//   3. The stack (launcher and every process under it, PostgreSQL included): PSS at rest before
//      the intake and its peak during it (every second: a sample costs this process tens of ms of
//      CPU), CPU ms per stored Create.
// BENCH_READER_ACCOUNTS, BENCH_READER_ITEMS and BENCH_READER_CREATES change the sizes.
import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import { once } from 'node:events';
import { Agent, createServer, request as httpRequest } from 'node:http';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { seedPosts } from '../seed.mjs';
import { sampleStack, stackSnapshot, startReaders } from './federation.mjs';
import { CLOCK_TICKS, signInToken } from './measure.mjs';
import { freePort, percentile, startStack } from './stack.mjs';

const env = (name, fallback) => Number(process.env[name] ?? fallback);
const SIZES = {
  accounts: env('BENCH_READER_ACCOUNTS', 1000),
  servers: env('BENCH_READER_SERVERS', 20),
  items: env('BENCH_READER_ITEMS', 100_000),
  creates: env('BENCH_READER_CREATES', 3000),
  concurrency: env('BENCH_READER_CONCURRENCY', 16),
  /** How deep the deep page is (pages of 20 followed by `next`). */
  deepPages: env('BENCH_READER_DEEP_PAGES', 200),
  /** Timed reads of each page, in each way. */
  pageReads: env('BENCH_READER_PAGE_READS', 200),
  baselineSeconds: env('BENCH_READER_BASELINE_SECONDS', 10),
  /** The intake gives up when no new entry was stored for this long. */
  stallSeconds: env('BENCH_READER_STALL_SECONDS', 60),
};
const READERS = 4;
/** The stack's PSS is sampled this often during the intake (each sample costs this process CPU). */
const SAMPLE_EVERY_MS = 1000;
const ADMIN = { username: 'benchadmin', password: 'bench-password-123' };
const POSTS_PATH = '/api/posts?limit=10';
const READER_PATH = '/api/admin/fediverse/reader';
const AS = 'https://www.w3.org/ns/activitystreams';
const mb = (kb) => Math.round(kb / 1024);
const tenths = (v) => Math.round(v * 10) / 10;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const pssTotalKb = (byRole) => Object.values(byRole).reduce((sum, r) => sum + r.pssKb, 0);
const ticksTotal = (byRole) => Object.values(byRole).reduce((sum, r) => sum + r.ticks, 0);

/** 100 addresses from each documentation range (192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24). */
const FORWARDED_FOR = ['192.0.2', '198.51.100', '203.0.113'].flatMap((net) =>
  Array.from({ length: 100 }, (_, i) => `${net}.${i + 1}`),
);

/**
 * The remote servers: server s on 127.0.0.(2+s), its accounts u0… at /users/uK, each with its own
 * key id listed in its own actor document. One RSA key per server, shared by its accounts (1,000
 * RSA-2048 keys would take minutes to make; what the blog checks per account is the same).
 */
async function startServers() {
  const perServer = Math.ceil(SIZES.accounts / SIZES.servers);
  const servers = [];
  const counts = { actorGets: 0, posts: 0, other: 0 };
  for (let s = 0; s < SIZES.servers; s++) {
    const address = `127.0.0.${2 + s}`;
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const publicKeyPem = publicKey.export({ type: 'spki', format: 'pem' });
    const server = createServer((req, res) => {
      const user = /^\/users\/(u\d+)$/.exec(req.url ?? '')?.[1];
      if (req.method === 'GET' && user && Number(user.slice(1)) < perServer) {
        counts.actorGets++;
        res.writeHead(200, { 'content-type': 'application/activity+json' });
        res.end(JSON.stringify(actorDocument(origin, user, publicKeyPem)));
      } else if (req.method === 'POST') {
        counts.posts++;
        req.resume();
        req.on('end', () => res.writeHead(202).end());
      } else {
        counts.other++;
        res.writeHead(404).end();
      }
    });
    server.listen(0, address);
    await once(server, 'listening');
    const origin = `http://${address}:${server.address().port}`;
    servers.push({ server, origin, privateKey });
  }
  const accounts = Array.from({ length: SIZES.accounts }, (_, n) => {
    const { origin, privateKey } = servers[n % SIZES.servers];
    const user = `u${Math.floor(n / SIZES.servers)}`;
    const actorId = `${origin}/users/${user}`;
    return { n, user, origin, actorId, keyId: `${actorId}#main-key`, privateKey };
  });
  return {
    accounts,
    counts,
    async stop() {
      for (const { server } of servers) {
        server.closeAllConnections();
        await new Promise((r) => server.close(r));
      }
    },
  };
}

/** An actor document shaped as Mastodon serves one. */
function actorDocument(origin, user, publicKeyPem) {
  const id = `${origin}/users/${user}`;
  return {
    '@context': [AS, 'https://w3id.org/security/v1'],
    id,
    type: 'Person',
    preferredUsername: user,
    name: `Account ${user} on ${new URL(origin).host}`,
    url: `${origin}/@${user}`,
    inbox: `${id}/inbox`,
    outbox: `${id}/outbox`,
    endpoints: { sharedInbox: `${origin}/inbox` },
    icon: { type: 'Image', mediaType: 'image/png', url: `${origin}/avatars/${user}.png` },
    publicKey: { id: `${id}#main-key`, owner: id, publicKeyPem },
  };
}

/** A POST signed as Mastodon signs one (draft-cavage: request-target, host, date, digest). */
function signedHeaders(url, body, account) {
  const { host, pathname } = new URL(url);
  const headers = {
    host,
    date: new Date().toUTCString(),
    digest: `SHA-256=${createHash('sha256').update(body).digest('base64')}`,
    'content-type': 'application/activity+json',
  };
  const names = ['(request-target)', 'host', 'date', 'digest', 'content-type'];
  const message = names
    .map((name) => `${name}: ${name === '(request-target)' ? `post ${pathname}` : headers[name]}`)
    .join('\n');
  const signature = sign('sha256', Buffer.from(message), account.privateKey).toString('base64');
  headers.signature = `keyId="${account.keyId}",algorithm="rsa-sha256",headers="${names.join(' ')}",signature="${signature}"`;
  return headers;
}

/** A Create{Note} of about the seeded entries' size (text only: a picture would measure the media cache). */
function createOf(account, n) {
  const id = `${account.actorId}/statuses/bench-${n}`;
  const words = `note ${n} from ${account.user}: `.padEnd(40, '.') + ' ';
  return JSON.stringify({
    '@context': AS,
    id: `${id}/activity`,
    type: 'Create',
    actor: account.actorId,
    published: new Date().toISOString(),
    to: [`${AS}#Public`],
    cc: [`${account.actorId}/followers`],
    object: {
      id,
      type: 'Note',
      attributedTo: account.actorId,
      content: `<p>${words.repeat(10)}</p><p><a href="${account.origin}/tags/bench" class="mention hashtag" rel="tag">#<span>bench</span></a></p>`,
      published: new Date().toISOString(),
      url: `${account.origin}/@${account.user}/bench-${n}`,
      to: [`${AS}#Public`],
      cc: [`${account.actorId}/followers`],
    },
  });
}

/** The embedded stack on a fresh data folder, SITE_URL on its own port (what signatures name). */
async function startReaderStack() {
  const dataDir = await mkdtemp(join(tmpdir(), 'blog-bench-reader-'));
  const [port, pgPort] = [await freePort(), await freePort()];
  const stack = await startStack({
    dataDir,
    port,
    env: {
      ADMIN_USERNAME: ADMIN.username,
      ADMIN_PASSWORD: ADMIN.password,
      // The remote servers' addresses (127.0.0.2 and on), any port.
      OUTBOUND_ALLOW: '127.0.0.0/8',
      SITE_URL: `http://127.0.0.1:${port}`,
      PG_PORT: String(pgPort),
    },
  });
  const password = (await readFile(join(dataDir, 'postgres-password'), 'utf8')).trim();
  return {
    ...stack,
    dataDir,
    databaseUrl: `postgres://postgres:${password}@127.0.0.1:${pgPort}/blog`,
    async stop() {
      await stack.stop();
      await rm(dataDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
    },
  };
}

/**
 * The follows and the Reader's entries, by SQL. The accounts' avatars are seeded as already
 * cached (the icon their documents name, a key of the blog's media), so the intake copies none.
 */
async function seed(db, accounts) {
  const started = performance.now();
  const actors = await db.query(
    `INSERT INTO social.remote_actors (uri, host, handle, name, url, inbox, shared_inbox, icon_url,
       avatar_source, avatar_key)
     SELECT a.uri, a.host, a.handle, a.name, a.url, a.uri || '/inbox', a.shared_inbox, a.icon, a.icon,
       'media/avatars/' || md5(a.icon) || '.webp'
     FROM json_to_recordset($1::json) AS a(uri text, host text, handle text, name text, url text,
       shared_inbox text, icon text)
     RETURNING id`,
    [
      JSON.stringify(
        accounts.map((a) => {
          const { host, hostname } = new URL(a.origin);
          return {
            uri: a.actorId,
            host: hostname,
            handle: `${a.user}@${host}`,
            name: `Account ${a.user} on ${host}`,
            url: `${a.origin}/@${a.user}`,
            shared_inbox: `${a.origin}/inbox`,
            icon: `${a.origin}/avatars/${a.user}.png`,
          };
        }),
      ),
    ],
  );
  await db.query(
    `INSERT INTO social.following (target_uri, follow_activity_id, status, remote_actor_id)
     SELECT uri, 'http://127.0.0.1/ap/actor/blog#follows/' || id, 'accepted', id FROM social.remote_actors`,
  );
  const ids = actors.rows.map((r) => r.id);
  // Entry g (oldest first) by account g mod n; every 20th a boost of the next account's post.
  await db.query(
    `INSERT INTO social.reader_items (activity_id, object_uri, author_id, booster_id, type, url, name,
       content_html, summary, sensitive, attachments, published, in_reply_to, received_at)
     SELECT a.uri || '/statuses/' || g || '/activity', a.uri || '/statuses/' || g,
       CASE WHEN g % 20 = 0 THEN b.id ELSE a.id END, CASE WHEN g % 20 = 0 THEN a.id END,
       'Note', replace(a.uri, '/users/', '/@') || '/' || g, NULL,
       '<p>' || repeat(md5(g::text) || ' ', 11) || '</p><p><a href="' || a.url || '">' || a.handle || '</a></p>',
       CASE WHEN g % 10 = 0 THEN 'Spoilers for ' || g END, g % 10 = 0,
       CASE WHEN g % 5 = 0 THEN json_build_array(json_build_object(
         'key', 'media/pictures/' || md5(g::text) || md5(a.uri) || '/000000000001.webp',
         'mediaType', 'image/webp', 'alt', 'A picture of entry ' || g))::jsonb ELSE '[]'::jsonb END,
       now() - ($2::int - g) * interval '10 seconds',
       CASE WHEN g % 7 = 0 THEN a.uri || '/statuses/' || (g - 1) END,
       now() - ($2::int - g) * interval '10 seconds'
     FROM generate_series(1, $2::int) AS g
     JOIN social.remote_actors a ON a.id = ($1::int[])[1 + g % cardinality($1::int[])]
     JOIN social.remote_actors b ON b.id = ($1::int[])[1 + (g + 1) % cardinality($1::int[])]`,
    [ids, SIZES.items],
  );
  await db.query('ANALYZE social.remote_actors, social.following, social.reader_items');
  const size = await db.query(
    `SELECT pg_size_pretty(pg_total_relation_size('social.reader_items')) AS size,
       avg(length(content_html))::int AS html FROM social.reader_items`,
  );
  return {
    accounts: ids.length,
    items: SIZES.items,
    seconds: tenths((performance.now() - started) / 1000),
    tableSize: size.rows[0].size,
    meanHtmlBytes: size.rows[0].html,
  };
}

const stats = (times) => {
  const sorted = [...times].sort((a, b) => a - b);
  return {
    n: sorted.length,
    p50: tenths(percentile(sorted, 50)),
    p95: tenths(percentile(sorted, 95)),
    max: tenths(sorted.at(-1) ?? NaN),
  };
};

/** One Reader page: its latency, and the page (a page of 20 with `next` is checked). */
async function readerPage(baseUrl, token, cursor) {
  const t0 = performance.now();
  const response = await fetch(`${baseUrl}${READER_PATH}${cursor ? `?cursor=${cursor}` : ''}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const page = await response.json();
  const ms = performance.now() - t0;
  if (response.status !== 200 || page.items?.length !== 20)
    throw new Error(`the Reader answered ${response.status} with ${page.items?.length} items`);
  return { ms, page };
}

/**
 * `reads` timed pages by `readers` readers at once, each page's cursor from `cursorOf(i)`; with
 * the stack's CPU per page (what the latency under load comes from).
 */
async function timedPages(stack, token, readers, cursorOf) {
  const baseUrl = stack.baseUrl;
  const before = ticksTotal(await stackSnapshot(stack.child.pid, stack.dataDir));
  const times = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: readers }, async () => {
      while (next < SIZES.pageReads) {
        const i = next++;
        times.push((await readerPage(baseUrl, token, cursorOf(i))).ms);
      }
    }),
  );
  const ticks = ticksTotal(await stackSnapshot(stack.child.pid, stack.dataDir)) - before;
  return { ...stats(times), cpuMsEach: tenths((ticks * 1000) / CLOCK_TICKS / times.length) };
}

async function measurePages(stack, token) {
  const baseUrl = stack.baseUrl;
  // The walk: `next` from the first page to the deep one, each page timed.
  const walk = [];
  const cursors = [null];
  for (let i = 0; i < SIZES.deepPages; i++) {
    const { ms, page } = await readerPage(baseUrl, token, cursors.at(-1));
    walk.push(ms);
    cursors.push(page.next);
  }
  const deep = cursors.at(-1);
  // Deep pages at once: each reader on a different page of the walk's last 100.
  const deepish = cursors.slice(-100);
  return {
    [`pages 1-${SIZES.deepPages} by next`]: stats(walk),
    firstPage: {
      sequential: await timedPages(stack, token, 1, () => null),
      [`${READERS} at once`]: await timedPages(stack, token, READERS, () => null),
    },
    [`page ${SIZES.deepPages + 1}`]: {
      sequential: await timedPages(stack, token, 1, () => deep),
      [`${READERS} at once`]: await timedPages(stack, token, READERS, (i) => deepish[i % deepish.length]),
    },
  };
}

/**
 * The Creates, signed before the clock starts (the signing is the sender's work, and this process
 * shares the stack's two cores): each with its body and headers.
 */
function signedCreates(baseUrl, accounts) {
  const url = `${baseUrl}/ap/inbox`;
  return Array.from({ length: SIZES.creates }, (_, i) => {
    const account = accounts[i % accounts.length];
    const body = createOf(account, i);
    const headers = {
      ...signedHeaders(url, body, account),
      'x-forwarded-for': FORWARDED_FOR[i % FORWARDED_FOR.length],
    };
    return { url, body, headers };
  });
}

/**
 * The Creates, CONCURRENCY at a time; answers by status, with the first POST's time. Sent with
 * plain node:http on CONCURRENCY kept-alive sockets, not fetch: this process shares the stack's
 * cores, and fetch took half of its CPU during the intake (the sender's work, not the blog's).
 */
async function postCreates(creates) {
  const statuses = {};
  let next = 0;
  const agent = new Agent({ keepAlive: true, maxSockets: SIZES.concurrency });
  const post = ({ url, body, headers }) =>
    new Promise((resolve) => {
      const length = { 'content-length': Buffer.byteLength(body) };
      const request = httpRequest(
        url,
        { method: 'POST', agent, headers: { ...headers, ...length } },
        (response) => {
          response.resume();
          response.on('end', () => resolve(response.statusCode));
          response.on('error', () => resolve('error'));
        },
      );
      request.on('error', () => resolve('error'));
      request.end(body);
    });
  const firstAt = Date.now();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: SIZES.concurrency }, async () => {
      while (next < creates.length) {
        const status = await post(creates[next++]);
        statuses[status] = (statuses[status] ?? 0) + 1;
      }
    }),
  );
  agent.destroy();
  return { statuses, firstAt, postSeconds: (performance.now() - started) / 1000 };
}

/** Transactions committed in the blog's database so far (the stack's statements, and this bench's). */
async function transactions(db) {
  const { rows } = await db.query(
    `SELECT xact_commit::bigint AS n FROM pg_stat_database WHERE datname = current_database()`,
  );
  return Number(rows[0].n);
}

/** Polls reader_items for the new entries until `expected` are there or none came for a while. */
async function storedProgress(db, afterId, expected) {
  const sql = `SELECT count(*)::int AS n, (extract(epoch FROM max(received_at)) * 1000)::float8 AS last
               FROM social.reader_items WHERE id > $1`;
  let last = { n: 0, last: null };
  let progressAt = Date.now();
  for (;;) {
    const { rows } = await db.query(sql, [afterId]);
    if (rows[0].n !== last.n) progressAt = Date.now();
    last = rows[0];
    if (last.n >= expected || Date.now() - progressAt > SIZES.stallSeconds * 1000) return last;
    await sleep(200);
  }
}

async function measureIntake(stack, db, accounts) {
  const creates = signedCreates(stack.baseUrl, accounts);
  const readers = startReaders(stack.baseUrl, [POSTS_PATH]);
  const samples = sampleStack(stack.child.pid, stack.dataDir, SAMPLE_EVERY_MS);
  try {
    const baselineFrom = Date.now();
    await sleep(SIZES.baselineSeconds * 1000);
    const rest = await stackSnapshot(stack.child.pid, stack.dataDir);
    const txBefore = await transactions(db);
    const {
      rows: [{ max }],
    } = await db.query('SELECT coalesce(max(id), 0)::bigint AS max FROM social.reader_items');
    process.stderr.write(`[bench] reader: ${SIZES.creates} Creates to /ap/inbox\n`);
    const sent = await postCreates(creates);
    const { firstAt } = sent;
    const accepted = sent.statuses[202] ?? 0;
    const stored = await storedProgress(db, max, accepted);
    const doneAt = stored.last ?? Date.now();
    const after = await stackSnapshot(stack.child.pid, stack.dataDir);
    const txAfter = await transactions(db);
    const seconds = (doneAt - firstAt) / 1000;
    const peak = Math.max(
      pssTotalKb(rest),
      ...samples.between(firstAt, doneAt).map((s) => pssTotalKb(s.byRole)),
    );
    const cpuMs = ((ticksTotal(after) - ticksTotal(rest)) * 1000) / CLOCK_TICKS;
    const reads = { baseline: readers.stats(baselineFrom, firstAt), intake: readers.stats(firstAt, doneAt) };
    return {
      creates: SIZES.creates,
      concurrency: SIZES.concurrency,
      statuses: sent.statuses,
      postsPerSecond: tenths(accepted / sent.postSeconds),
      stored: stored.n,
      storedSeconds: tenths(seconds),
      createsPerSecond: tenths(stored.n / seconds),
      cpuMsPerCreate: stored.n ? tenths(cpuMs / stored.n) : null,
      cpuMsPerCreateByRole: Object.fromEntries(
        Object.keys(after).map((role) => [
          role,
          tenths(((after[role].ticks - (rest[role]?.ticks ?? 0)) * 1000) / CLOCK_TICKS / (stored.n || 1)),
        ]),
      ),
      // The database's work per Create: every statement outside a transaction block is one.
      transactionsPerCreate: tenths((txAfter - txBefore) / (stored.n || 1)),
      reads: { baseline: reads.baseline[POSTS_PATH], intake: reads.intake[POSTS_PATH] },
      pssMb: {
        rest: mb(pssTotalKb(rest)),
        peak: mb(peak),
        restByRole: Object.fromEntries(Object.entries(rest).map(([role, r]) => [role, mb(r.pssKb)])),
      },
    };
  } finally {
    samples.stop();
    await readers.stop();
  }
}

function table(result) {
  const { seeded, pages, intake } = result;
  const line = (label, text) => `${String(label).padEnd(36)}${text}`;
  const cells = (values) => values.map((v) => String(v ?? '-').padStart(10)).join('');
  const goal = (ok) => (ok ? 'met' : 'MISSED');
  const pageRows = Object.entries(pages).flatMap(([name, ways]) =>
    'n' in ways
      ? [line(name, cells([ways.n, ways.p50, ways.p95, ways.max]))]
      : Object.entries(ways).map(([way, s]) =>
          line(`${name}, ${way}`, cells([s.n, s.p50, s.p95, s.max, s.cpuMsEach])),
        ),
  );
  const { baseline, intake: during } = intake.reads;
  return [
    `Reader: ${seeded.accounts} followed accounts on ${SIZES.servers} loopback servers, ${seeded.items} entries`,
    line('machine', `${result.machine.cores} cores, 1-minute load ${result.machine.load1} at the end`),
    line('seeded by SQL (not measured)', `${seeded.seconds} s; reader_items ${seeded.tableSize}`),
    '',
    line('GET /api/admin/fediverse/reader, ms', cells(['n', 'p50', 'p95', 'max', 'CPU each'])),
    ...pageRows,
    '',
    line('intake', `${intake.creates} signed Creates, ${intake.concurrency} at a time`),
    line('  answered', JSON.stringify(intake.statuses)),
    line('  POSTs accepted per second', intake.postsPerSecond),
    line('  stored in the Reader', `${intake.stored} in ${intake.storedSeconds} s`),
    line(
      '  Creates stored per second',
      `${intake.createsPerSecond} (goal 100: ${goal(intake.createsPerSecond >= 100)})`,
    ),
    line(
      '  stack CPU per stored Create',
      `${intake.cpuMsPerCreate} ms ${JSON.stringify(intake.cpuMsPerCreateByRole)}`,
    ),
    line('  database transactions per Create', intake.transactionsPerCreate),
    line(`GET ${POSTS_PATH}, ms`, cells(['n', 'p50', 'p95', 'max', 'failed'])),
    line(
      '  before the intake',
      cells([baseline.n, baseline.p50, baseline.p95, baseline.max, baseline.failed]),
    ),
    line('  during the intake', cells([during.n, during.p50, during.p95, during.max, during.failed])),
    '',
    line('stack PSS at rest', `${intake.pssMb.rest} MB (goal 300: ${goal(intake.pssMb.rest <= 300)})`),
    line('stack PSS peak (intake)', `${intake.pssMb.peak} MB (goal 450: ${goal(intake.pssMb.peak <= 450)})`),
    line('  at rest by process', JSON.stringify(intake.pssMb.restByRole)),
  ].join('\n');
}

export async function benchReader() {
  const servers = await startServers();
  let stack, db;
  try {
    stack = await startReaderStack();
    db = new pg.Client({ connectionString: stack.databaseUrl });
    await db.connect();
    await seedPosts(stack.databaseUrl, 200); // the post list the visitors read
    process.stderr.write(`[bench] reader: seeding ${SIZES.accounts} follows and ${SIZES.items} entries\n`);
    const seeded = await seed(db, servers.accounts);
    const token = await signInToken(stack.baseUrl, ADMIN);
    // Warm: the first page and the post list once each.
    await readerPage(stack.baseUrl, token, null);
    await fetch(`${stack.baseUrl}${POSTS_PATH}`).then((r) => r.arrayBuffer());
    const pages = await measurePages(stack, token);
    const intake = await measureIntake(stack, db, servers.accounts);
    const result = {
      // The machine's 1-minute load at the end, over its cores: the figures are from a shared machine.
      machine: { cores: cpus().length, load1: tenths(loadavg()[0]) },
      seeded: {
        ...seeded,
        how: 'SQL into social.remote_actors, social.following (accepted) and social.reader_items',
      },
      pages,
      intake: { ...intake, remoteRequests: { ...servers.counts } },
      goals: {
        readerPageP95Under50Ms: Object.values(pages).every((ways) =>
          'n' in ways ? true : Object.values(ways).every((s) => s.p95 < 50),
        ),
        createsPerSecondAtLeast100: intake.createsPerSecond >= 100,
        readsP95Under50MsDuringIntake: intake.reads.intake.p95 < 50,
        pssRestWithin300Mb: intake.pssMb.rest <= 300,
        pssPeakWithin450Mb: intake.pssMb.peak <= 450,
      },
    };
    process.stderr.write(`${table(result)}\n`);
    return result;
  } finally {
    await db?.end().catch(() => {});
    await stack?.stop();
    await servers.stop();
  }
}
