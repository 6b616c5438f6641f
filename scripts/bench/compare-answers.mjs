// `npm run bench -- answers` (or `node scripts/bench/compare-answers.mjs`): are the public answers
// the same byte for byte before and after a refactor (issue 29)? Starts the base revision's stack
// (BENCH_BASE, default 6edb2e7: before the refactor) and this build's on their own ports and data
// folders, gives both the same content, asks both the same public URLs and compares the status,
// the headers that matter and the body. Prints a diff per URL ("identical" otherwise) and exits
// non-zero on a difference that ALLOWED (compare-answers.allowed.mjs) does not list as intended.
// Build first (`npm run build`); the base's worktree is built once in the temp folder.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import zlib from 'node:zlib';
import pg from 'pg';
import { ALLOWED } from './compare-answers.allowed.mjs';
import { baseCheckout, signInToken } from './measure.mjs';
import { startSeedableStack } from './stack.mjs';

const ADMIN = { username: 'answersadmin', password: 'answers-password-123' };
/** Both stacks name themselves the same: absolute links then need no rewriting. */
const SITE_URL = 'https://blog.example';
const SEEDED = 70; // enough for three home pages (15 a page) and a second Garage page (30)
/** The fixed clock: every post's date is set from it, so neither "now" shows in an answer. */
const CLOCK = '2026-11-01T09:00:00Z';
const SCHEDULED_AT = '2099-06-01T08:00:00Z';

/** The headers a reader, a cache or a browser acts on. Date, Content-Length and the like follow. */
const HEADERS = [
  'content-type',
  'cache-control',
  'location',
  'etag',
  'vary',
  'content-encoding',
  'content-security-policy',
  'x-content-type-options',
  'x-frame-options',
  'referrer-policy',
  'strict-transport-security',
  'cross-origin-opener-policy',
  'cross-origin-resource-policy',
  'permissions-policy',
  'x-total-count',
  'retry-after',
  'allow',
];

// ---------------------------------------------------------------------------------------------
// What must differ between two builds, made equal. Nothing else is touched.

const NORMALISE_BODY = [
  // Vite names each built file after a hash of its contents: any change to the web code (or to
  // a dependency) renames it, while the page still loads the same entry and stylesheet.
  [/(\/assets\/[\w.-]+?)-[\w-]{8}(\.(?:js|css|woff2?|svg|png|jpe?g|webp))/g, '$1-[hash]$2'],
  // A CSP nonce is random per answer by design.
  [/nonce-[A-Za-z0-9+/=_-]+/g, 'nonce-[nonce]'],
  [/nonce="[A-Za-z0-9+/=_-]+"/g, 'nonce="[nonce]"'],
];

/**
 * Ids drawn at random when a row is made: a media item's uuid, a category node's id ("n" and 11
 * hex digits, libs/contracts site-config.ts). Each becomes its order of first appearance in the
 * answer, so the same structure still compares equal and a changed one does not.
 */
const GENERATED_IDS = [
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, 'uuid'],
  [/\bn[0-9a-f]{11}\b/g, 'node'],
];

function normaliseText(text, ports) {
  let out = text;
  // Each stack listens on ports of its own; an answer that names one names the other's.
  for (const port of ports) out = out.replaceAll(`127.0.0.1:${port}`, '127.0.0.1:[port]');
  for (const [pattern, replacement] of NORMALISE_BODY) out = out.replace(pattern, replacement);
  for (const [pattern, kind] of GENERATED_IDS) {
    const seen = new Map();
    out = out.replace(pattern, (id) => {
      if (!seen.has(id)) seen.set(id, `[${kind}-${seen.size + 1}]`);
      return seen.get(id);
    });
  }
  return out;
}

function normaliseHeader(name, value, ports) {
  if (value === undefined) return undefined;
  // An ETag is a hash of the body: the body is compared itself, so only the policy counts
  // (none, weak or strong). The asset hashes above would make every page's ETag differ.
  if (name === 'etag') return value.startsWith('W/') ? 'W/"…" (weak)' : '"…" (strong)';
  return normaliseText(value, ports);
}

// ---------------------------------------------------------------------------------------------
// The two stacks and their content.

/** Posts both stacks start with: the base's seeder, its rows copied as they are to this build. */
async function copyPosts(fromUrl, toUrl) {
  const from = new pg.Client({ connectionString: fromUrl });
  const to = new pg.Client({ connectionString: toUrl });
  await from.connect();
  await to.connect();
  try {
    const columnsOf = async (client) =>
      (
        await client.query(
          `SELECT column_name FROM information_schema.columns
            WHERE table_schema = 'posts' AND table_name = 'posts' AND is_generated = 'NEVER'`,
        )
      ).rows.map((r) => r.column_name);
    const target = new Set(await columnsOf(to));
    const columns = (await columnsOf(from)).filter((c) => target.has(c)).map((c) => `"${c}"`);
    const { rows } = await from.query(`SELECT ${columns.join(', ')} FROM posts.posts ORDER BY id`);
    await to.query(
      // The ids too (an identity column), so both stacks' posts have the same ids.
      `INSERT INTO posts.posts (${columns.join(', ')}) OVERRIDING SYSTEM VALUE
       SELECT ${columns.join(', ')} FROM json_populate_recordset(null::posts.posts, $1::json)`,
      [JSON.stringify(rows)],
    );
    await to.query(
      `SELECT setval(pg_get_serial_sequence('posts.posts', 'id'), (SELECT max(id) FROM posts.posts))`,
    );
    await to.query('VACUUM (ANALYZE) posts.posts');
  } finally {
    await from.end();
    await to.end();
  }
}

async function api(baseUrl, token, method, path, body) {
  const isForm = body instanceof FormData;
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body && !isForm ? { 'content-type': 'application/json' } : {}),
    },
    body: body ? (isForm ? body : JSON.stringify(body)) : undefined,
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
  return JSON.parse(text);
}

function postForm(fields) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  return form;
}

/** Posts written through the API, one per kind of page a post can make. */
const WRITTEN = [
  {
    key: 'roadster',
    title: 'Roadster weekend',
    content:
      '## Saturday\n\nTwo weekends with the **roadster**: new [tyres](https://example.com/tyres) and a ' +
      'leaking `clutch`.\n\n- brakes bled\n- oil changed\n\n```\ntorque 110 Nm\n```\n\n' +
      '<script>alert(1)</script><b onclick="steal()">bold</b> <img src=x onerror=alert(2)>\n\n' +
      'A line with an em dash — and “quotes”.',
    category: 'Garage',
    submenu1: 'Automobiles',
    submenu2: 'Car One',
    tags: 'Cars, weekend',
    youtubeUrls: JSON.stringify(['https://www.youtube.com/watch?v=dQw4w9WgXcQ']),
  },
  {
    key: 'sourdough',
    title: 'Sourdough starter',
    content: 'Flour, water, **patience**.\n\n'.repeat(12),
    category: 'Food & Bev',
    submenu1: 'Cooking',
    tags: 'bread, Recipe',
  },
  {
    key: 'accents',
    title: 'Café crème à Paris',
    content: 'Un café, deux crèmes.',
    category: 'More',
    tags: 'travel',
  },
  {
    key: 'bike',
    title: 'Chain and sprockets',
    content: 'A new chain.',
    category: 'Garage',
    submenu1: 'Bicycles',
  },
  { key: 'draft', title: 'Unfinished draft', content: 'Not yet.', category: 'Projects', status: 'draft' },
  {
    key: 'scheduled',
    title: 'Next summer trip',
    content: 'Later.',
    category: 'Activities',
    submenu1: 'Fishing',
  },
];

/** The same writes on a stack, in the same order, so ids and slugs match. */
async function writeContent(stack) {
  const token = await signInToken(stack.baseUrl, ADMIN);
  const posts = {};
  for (const { key, ...fields } of WRITTEN)
    posts[key] = await api(stack.baseUrl, token, 'POST', '/api/posts', postForm(fields));
  // A renamed sub-category: its old URLs answer 301 to the new ones.
  const site = await api(stack.baseUrl, token, 'GET', '/api/site');
  const garage = site.categories.find((c) => c.label === 'Garage');
  const bicycles = garage.subcategories.find((s) => s.label === 'Bicycles');
  bicycles.label = 'Push Bikes';
  delete bicycles.segment;
  await api(stack.baseUrl, token, 'PUT', '/api/admin/site', site);
  // Read again: the rename moved the bicycle post's URL (the old one is asked for too).
  for (const key of Object.keys(posts))
    posts[key] = {
      ...(await api(stack.baseUrl, token, 'GET', `/api/posts/${posts[key].id}`)),
      oldUrl: posts[key].url,
    };
  const client = new pg.Client({ connectionString: stack.databaseUrl });
  await client.connect();
  try {
    // An imported post's old addresses (what an import stores): 301 to its page.
    await client.query(
      `INSERT INTO posts.post_old_paths (path, post_id) VALUES ('/?p=12', $1), ('/2019/05/12/roadster-weekend', $1)`,
      [posts.roadster.id],
    );
    // The fixed clock: seeded posts were dated from now(), written ones are now.
    await client.query(
      `UPDATE posts.posts SET created_at = $1::timestamptz - id * interval '37 minutes',
                              updated_at = $1::timestamptz - id * interval '37 minutes' + interval '1 hour'`,
      [CLOCK],
    );
    await client.query(`UPDATE posts.posts SET created_at = $1, updated_at = $1 WHERE id = $2`, [
      SCHEDULED_AT,
      posts.scheduled.id,
    ]);
    await client.query(`UPDATE posts.media_items SET created_at = $1`, [CLOCK]).catch(() => undefined);
  } finally {
    await client.end();
  }
  return posts;
}

async function startTarget(target) {
  const stack = await startSeedableStack(
    `answers-${target.name.replace(/\W+/g, '-')}`,
    { ADMIN_USERNAME: ADMIN.username, ADMIN_PASSWORD: ADMIN.password, SITE_URL },
    target.root,
  );
  return { ...stack, port: Number(new URL(stack.baseUrl).port) };
}

// ---------------------------------------------------------------------------------------------
// The URLs.

const segmentOf = (node) =>
  node.segment ??
  node.label.toLowerCase().replace(/[()']/g, '').replace(/&/g, '').trim().replace(/\s+/g, '-');

/** Every listing of the tree: each category, sub-category and entry (General is no segment). */
function listingPaths(site) {
  const paths = [];
  for (const category of site.categories) {
    const c = `/${segmentOf(category)}`;
    paths.push(c);
    for (const sub of category.subcategories) {
      const s = sub.label === 'General' ? c : `${c}/${segmentOf(sub)}`;
      if (s !== c) paths.push(s);
      for (const entry of sub.entries ?? [])
        if (entry.label !== 'General') paths.push(`${s}/${segmentOf(entry)}`);
    }
  }
  return [...new Set(paths)];
}

function requestList(site, posts, seededUrls, sitemapFiles) {
  const { roadster, sourdough, accents, bike, draft, scheduled } = posts;
  const get = (path, extra = {}) => ({ method: 'GET', path, ...extra });
  const head = (path) => ({ method: 'HEAD', path });
  const json = (method, path, body) => ({
    method,
    path,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return [
    get('/'),
    get('/?page=2'),
    get('/?page=3'),
    get('/?page=999'),
    ...listingPaths(site).map((p) => get(p)),
    get('/garage?page=2'),
    get(roadster.url),
    get(sourdough.url),
    get(accents.url),
    get(bike.url),
    ...seededUrls.map((u) => get(u)),
    get(draft.url),
    get(scheduled.url),
    get('/?q=roadster'),
    get('/?q=zzqqxxnothing'),
    get('/?q=engine&page=2'),
    get('/garage?q=engine'),
    get('/?q='),
    get('/about'),
    get('/contact'),
    get('/login'),
    get('/register'),
    get('/no-such-page'),
    get('/garage/automobiles/no-such-post'),
    get('/rss.xml'),
    get('/sitemap.xml'),
    ...sitemapFiles.map((f) => get(f)),
    get('/sitemap-nothing.xml'),
    get('/robots.txt'),
    // Old URLs.
    get(`/post/${roadster.id}`),
    get('/post/999999'),
    get('/?p=12'),
    get('/?p=999'),
    get('/2019/05/12/roadster-weekend'),
    get('/2019/05/12/roadster-weekend/'),
    get(`/projects/${roadster.slug}`),
    get('/garage/bicycles'),
    get('/garage/bicycles?page=2'),
    get(bike.oldUrl),
    get('/index.html'),
    // The API.
    get('/api/site'),
    get('/api/posts'),
    get('/api/posts?page=2&limit=5'),
    get('/api/posts?category=Garage&submenu1=Automobiles'),
    get('/api/posts?category=garage&submenu1=automobiles&submenu2=car-one'),
    get('/api/posts?category=nowhere'),
    get('/api/posts?tag=cars'),
    get('/api/posts?tag=Recipe'),
    get('/api/posts?tag=nosuchtag'),
    get('/api/posts?search=roadster'),
    get('/api/posts?search=zzqqxxnothing'),
    get('/api/posts?from=2026-10-30&to=2026-10-31'),
    get('/api/posts?status=draft'),
    get(`/api/posts/${roadster.id}`),
    get(`/api/posts/${sourdough.id}`),
    get('/api/posts/1'),
    get(`/api/posts/${draft.id}`),
    get(`/api/posts/${scheduled.id}`),
    get('/api/posts/999999'),
    get(`/api/posts/by-slug/${roadster.slug}`),
    get('/api/posts/by-slug/no-such-slug'),
    // Bad input: 400s.
    get('/api/posts?limit=1000'),
    get('/api/posts?page=0'),
    get('/api/posts?from=not-a-date'),
    get(`/api/posts?search=${'x'.repeat(201)}`),
    get('/api/posts/abc'),
    get('/api/nothing-here'),
    json('POST', '/api/contact', {}),
    json('POST', '/api/subscribe', { email: 'not-an-address' }),
    get('/api/subscribe/confirm?token=nope'),
    get('/api/unsubscribe?token=nope'),
    json('POST', '/api/views', { path: 42 }),
    get('/uploads/no-such-file.jpg'),
    // HEAD answers: the same headers as GET, no body.
    head('/'),
    head(roadster.url),
    head('/rss.xml'),
    head('/sitemap.xml'),
    head('/api/posts'),
    head('/no-such-page'),
    // A cache revalidating: If-None-Match with the ETag this stack just gave (304 when unchanged).
    get('/', { revalidate: true }),
    get(roadster.url, { revalidate: true }),
    get('/api/posts', { revalidate: true }),
    get('/rss.xml', { revalidate: true }),
    // As a browser asks: compressed (the body compared after decompressing).
    get('/', { headers: { 'accept-encoding': 'gzip, deflate, br' } }),
    get('/api/posts', { headers: { 'accept-encoding': 'gzip, deflate, br' } }),
    get('/rss.xml', { headers: { 'accept-encoding': 'gzip' } }),
  ];
}

// ---------------------------------------------------------------------------------------------
// Asking and comparing.

/** One request; with `revalidate`, asked once for the ETag, then again with If-None-Match. */
async function ask(port, request) {
  if (!request.revalidate) return askOnce(port, request);
  const { etag } = (await askOnce(port, { method: 'GET', path: request.path })).headers;
  return askOnce(port, {
    ...request,
    headers: { ...request.headers, ...(etag ? { 'if-none-match': etag } : {}) },
  });
}

function askOnce(port, { method, path, headers = {}, body }) {
  return new Promise((resolve, reject) => {
    const request = http.request(
      { host: '127.0.0.1', port, method, path, headers: { connection: 'close', ...headers } },
      (response) => {
        const chunks = [];
        response.on('data', (chunk) => chunks.push(chunk));
        response.on('end', () => {
          let bytes = Buffer.concat(chunks);
          const encoding = response.headers['content-encoding'];
          if (encoding === 'br') bytes = zlib.brotliDecompressSync(bytes);
          else if (encoding === 'gzip') bytes = zlib.gunzipSync(bytes);
          else if (encoding === 'deflate') bytes = zlib.inflateSync(bytes);
          resolve({ status: response.statusCode, headers: response.headers, body: bytes.toString('utf8') });
        });
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

/** An answer as lines of text: status, the headers that matter, then the body made readable. */
function render(answer, ports) {
  const lines = [`status: ${answer.status}`];
  for (const name of HEADERS) {
    const value = normaliseHeader(name, answer.headers[name], ports);
    if (value !== undefined) lines.push(`${name}: ${value}`);
  }
  lines.push('');
  let body = normaliseText(answer.body, ports);
  const type = answer.headers['content-type'] ?? '';
  // One element or one JSON field a line, so a diff points at the change, not at a 40 KB line.
  if (type.includes('json')) {
    try {
      body = JSON.stringify(JSON.parse(body), null, 2);
    } catch {
      // not JSON after all: compared as it is
    }
  } else if (/html|xml/.test(type)) {
    body = body
      .replace(/></g, '>\n<')
      .replace(/<style>([\s\S]*?)<\/style>/g, (_, css) => `<style>${css.replace(/\}/g, '}\n')}</style>`);
  }
  lines.push(...body.split('\n'));
  return lines.join('\n');
}

/**
 * Applies the intended changes that name this URL (ALLOWED): to the base's answer, or taken out
 * of this build's. Returns both texts and the commits whose change was found.
 */
function applyIntended(key, base, build) {
  const used = new Set();
  const texts = { base, build };
  for (const change of ALLOWED) {
    if (!change.urls.test(key)) continue;
    const side = change.side ?? 'base';
    const next = texts[side].replace(change.from, change.to);
    if (next !== texts[side]) used.add(change.commit);
    texts[side] = next;
  }
  return { ...texts, commits: [...used] };
}

async function unifiedDiff(a, b) {
  const dir = await mkdtemp(join(tmpdir(), 'answers-diff-'));
  try {
    await writeFile(join(dir, 'base'), `${a}\n`);
    await writeFile(join(dir, 'build'), `${b}\n`);
    try {
      execFileSync('diff', ['-u', 'base', 'build'], { cwd: dir, encoding: 'utf8' });
      return '';
    } catch (error) {
      return String(error.stdout);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const DIFF_LINES = Number(process.env.ANSWERS_DIFF_LINES ?? 60);
/** ANSWERS_OUT=<folder>: both answers to every request written there whole (as compared), to read at leisure. */
const OUT = process.env.ANSWERS_OUT;
const clip = (line) => (line.length > 400 ? `${line.slice(0, 400)}… (${line.length} characters)` : line);

export async function benchAnswers() {
  const base = baseCheckout(process.env.BENCH_BASE ?? '6edb2e7');
  const targets = [
    { name: `base ${base.sha}`, root: base.dir },
    { name: 'this build', root: fileURLToPath(new URL('../..', import.meta.url)) },
  ];
  const stacks = [];
  if (OUT) await mkdir(OUT, { recursive: true });
  try {
    for (const target of targets) stacks.push(await startTarget(target));
    const [before, after] = stacks;
    // The base's seeder seeds the base (its random words), and the same rows go to this build.
    const { seedPosts } = await import(pathToFileURL(join(base.dir, 'scripts/seed.mjs')).href);
    await seedPosts(before.databaseUrl, SEEDED);
    await copyPosts(before.databaseUrl, after.databaseUrl);
    const written = [];
    for (const stack of stacks) written.push(await writeContent(stack));
    const posts = written[0];
    for (const key of Object.keys(posts))
      if (posts[key].id !== written[1][key].id || posts[key].url !== written[1][key].url)
        throw new Error(`the two stacks gave "${key}" different ids or URLs: the content is not the same`);

    // The list is made from the base's answers, so a URL that changed shows as a difference.
    const site = JSON.parse((await ask(before.port, { method: 'GET', path: '/api/site' })).body);
    const seededUrls = [];
    for (const id of [1, 2, 17, 40, SEEDED])
      seededUrls.push(
        JSON.parse((await ask(before.port, { method: 'GET', path: `/api/posts/${id}` })).body).url,
      );
    const index = (await ask(before.port, { method: 'GET', path: '/sitemap.xml' })).body;
    const sitemapFiles = [...index.matchAll(/<loc>https?:\/\/[^/<]+(\/sitemap-[^<]+\.xml)<\/loc>/g)].map(
      (m) => m[1],
    );
    const requests = requestList(site, posts, seededUrls, sitemapFiles);

    const ports = stacks.map((s) => s.port);
    const rows = [];
    for (const request of requests) {
      const encoding = request.headers?.['accept-encoding'];
      const key =
        `${request.method} ${request.path}` +
        (encoding ? ` (${encoding})` : '') +
        (request.revalidate ? ' (If-None-Match)' : '') +
        (request.body ? ` ${request.body}` : '');
      const [answerA, answerB] = [await ask(before.port, request), await ask(after.port, request)];
      const [a, b] = [render(answerA, ports), render(answerB, ports)];
      // What the answer was, so the table shows a 404 compared as a 404 and a 301 as a 301.
      const status =
        answerA.status === answerB.status ? `${answerB.status}` : `${answerA.status} → ${answerB.status}`;
      if (OUT) {
        const name = String(rows.length + 1).padStart(3, '0');
        await writeFile(join(OUT, `${name}.base`), `${key}\n${a}\n`);
        await writeFile(join(OUT, `${name}.build`), `${key}\n${b}\n`);
      }
      if (a === b) {
        rows.push({ key, status, verdict: 'identical' });
        process.stdout.write(`identical  ${status} ${key}\n`);
        continue;
      }
      const intended = applyIntended(key, a, b);
      if (intended.base === intended.build) {
        rows.push({ key, status, verdict: `intended (${intended.commits.join(', ')})` });
        process.stdout.write(`intended   ${status} ${key}  [${intended.commits.join(', ')}]\n`);
        continue;
      }
      const diff = (await unifiedDiff(intended.base, intended.build)).split('\n').map(clip);
      rows.push({ key, status, verdict: 'DIFFERENT' });
      process.stdout.write(`DIFFERENT  ${status} ${key}\n`);
      process.stdout.write(`${diff.slice(2, 2 + DIFF_LINES).join('\n')}\n`);
      if (diff.length > 2 + DIFF_LINES)
        process.stdout.write(`… ${diff.length - 2 - DIFF_LINES} more diff lines\n`);
    }
    const different = rows.filter((r) => r.verdict === 'DIFFERENT').length;
    return {
      base: base.sha,
      urls: rows.length,
      identical: rows.filter((r) => r.verdict === 'identical').length,
      intended: rows.filter((r) => r.verdict.startsWith('intended')).length,
      different,
      table: rows,
    };
  } finally {
    for (const stack of stacks) await stack.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await benchAnswers();
  process.stdout.write(`\n| URL | status | answer |\n|---|---|---|\n`);
  for (const row of result.table)
    process.stdout.write(`| \`${row.key}\` | ${row.status} | ${row.verdict} |\n`);
  process.stdout.write(
    `\n${result.urls} URLs: ${result.identical} identical, ${result.intended} intended, ${result.different} different\n`,
  );
  if (result.different) process.exitCode = 1;
}
