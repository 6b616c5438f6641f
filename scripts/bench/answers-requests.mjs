// The answers check's requests (compare-answers.mjs): the public URLs both stacks are asked,
// and the asking itself (plain HTTP, so every header and byte is seen as sent).
import http from 'node:http';
import { URLSearchParams } from 'node:url';
import zlib from 'node:zlib';

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

/** Every /uploads/ file a post's media name (in their order, so both stacks' lists pair up). */
const uploadsOf = (post) => [...new Set(JSON.stringify(post.media).match(/\/uploads\/[^\s",]+/g) ?? [])];

/**
 * The requests, from the base's posts (`written[0]`); an upload is asked by its own key on each
 * stack (`written[1]` for this build), the keys being generated.
 */
export function requestList(site, written, seededUrls, sitemapFiles) {
  const { roadster, sourdough, accents, bike, draft, scheduled, photos, imported } = written[0];
  const get = (path, extra = {}) => ({ method: 'GET', path, ...extra });
  const head = (path) => ({ method: 'HEAD', path });
  const json = (method, path, body, nth) => ({
    method,
    path,
    label: nth ? `${path} (#${nth})` : undefined,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const aboutForm = (fields) => ({
    method: 'POST',
    path: '/about',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
  const contact = { name: 'Ann Reader', email: 'ann@example.com', subject: 'Hello', message: 'A kind word.' };
  const wrongSignIn = { username: 'nobody', password: 'not-the-password' };
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
    get(photos.url),
    ...seededUrls.map((u) => get(u)),
    // Imported from WordPress: each post's page and answer (the draft, private and password
    // ones come in as drafts: 404 to a visitor), and their old addresses.
    ...imported.flatMap((post) => [get(post.url), get(`/api/posts/${post.id}`)]),
    get('/?p=101'),
    get('/?p=102'),
    get('/?p=104'),
    get('/2019/05/12/tips-and-tricks/'),
    get('/2019/05/12/tips-and-tricks'),
    get('/2020/02/29/creme-brulee/'),
    get('/2021/01/01/still-a-draft/'),
    get('/about-me/'),
    get('/api/posts?tag=tools'),
    get('/api/posts?search=brulee'),
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
    get(`/api/posts/${photos.id}`),
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
    json('POST', '/api/views', { path: '/', referrer: 'https://example.org/' }),
    json('POST', '/api/auth/register', { username: 'x' }),
    // The forms and their per-address limits, in order (the limits' SQL moved into one helper):
    // the About page without JavaScript, then the API's contact form up to its 5 an hour.
    aboutForm({ form: 'contact', ...contact, email: 'not-an-address' }),
    aboutForm({ form: 'contact', ...contact }),
    aboutForm({ form: 'subscribe', email: 'ann@example.com' }),
    ...[2, 3, 4, 5, 6].map((n) => json('POST', '/api/contact', contact, n)),
    aboutForm({ form: 'contact', ...contact, subject: 'Over the limit' }),
    json('POST', '/api/subscribe', { email: 'bob@example.com' }),
    // Sign-in failures up to the per-address-and-name limit (5 in 15 min), then 429.
    ...[1, 2, 3, 4, 5, 6].map((n) => json('POST', '/api/auth/login', wrongSignIn, n)),
    get('/uploads/no-such-file.jpg'),
    // What the media worker made from the same uploaded photos: every file a media item names.
    ...uploadsOf(photos).map((_, i) => ({
      method: 'GET',
      label: `/uploads/…/${uploadsOf(photos)[i].replace(/^.*\//, '')} (photo file ${i + 1})`,
      paths: written.map((posts) => uploadsOf(posts.photos)[i]),
    })),
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
// Asking.

/**
 * One request; with `revalidate`, asked once for the ETag, then again with If-None-Match.
 * `side` (0 the base, 1 this build) picks the request's `paths` entry when each stack has its own
 * URL for the same thing (an upload's generated key).
 */
export async function ask(port, request, side = 0) {
  if (request.paths) request = { ...request, path: request.paths[side] };
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
          resolve({
            status: response.statusCode,
            headers: response.headers,
            bytes,
            body: bytes.toString('utf8'),
          });
        });
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}
