import { EXCERPT_ELLIPSIS, SITEMAP_MAX_URLS } from '@blog/contracts';
import xml from 'fast-xml-parser';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { precompressDir } from '../../web/precompress.js';
import { seedPosts } from '../../scripts/seed.mjs';
import { fields, multipart } from './support/media-fixtures.js';
import { ADMIN, loginAs, startTestStack, type TestStack } from './support/test-stack.js';

/** Parses after checking the document is well-formed XML (the root's fast-xml-parser is v3, CommonJS). */
const parseXml = (text: string): Json =>
  xml.parse(
    text,
    { ignoreAttributes: false, tagValueProcessor: unescape, attrValueProcessor: unescape },
    true,
  );

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const SITE = 'https://blog.example';
/** What Vite writes: a title, a description, the entry script and stylesheet. */
const SHELL = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="UTF-8" />
    <meta name="description" content="A personal blog and journal." />
    <title>My Personal Blog</title>
    <script type="module" crossorigin src="/assets/index-Ab12Cd34.js"></script>
  </head>
  <body>
    <div id="root"></div>
  </body>
</html>
`;
const SCRIPT = `export const words = ${JSON.stringify(Array.from({ length: 800 }, (_, i) => `word${i % 50}`))};\n`;
const LONG_TEXT =
  'Fitted four new tyres today and balanced them at the shop down the road. The roadster now tracks ' +
  'straight at speed, the steering is lighter, and the old tyres went to the recycler.';

interface Raw {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  text: string;
}

/** Without fetch: it would ask for compression itself, decompress, and follow redirects. */
function raw(stack: TestStack, path: string, headers: Record<string, string> = {}): Promise<Raw> {
  return new Promise((answer, reject) => {
    request(`${stack.baseUrl}${path}`, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        answer({ status: res.statusCode!, headers: res.headers, body, text: body.toString() });
      });
      res.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

/** XML and HTML text as the servers escape it (contracts' escapeHtml), read back. */
const ENTITIES: Record<string, string> = { quot: '"', '#39': "'", lt: '<', gt: '>', amp: '&' };
const unescape = (text: string) =>
  text.replace(/&(quot|#39|lt|gt|amp);/g, (_, name: string) => ENTITIES[name]!);

/** The content of `<meta {key}="{name}" content="...">` (unescaped), or undefined. */
function meta(html: string, name: string, key = 'property'): string | undefined {
  const found = new RegExp(`<meta ${key}="${name}" content="([^"]*)"`).exec(html);
  return found ? unescape(found[1]!) : undefined;
}
const title = (html: string) => /<title>([^<]*)<\/title>/.exec(html)?.[1];
const canonical = (html: string) => /<link rel="canonical" href="([^"]*)"/.exec(html)?.[1];

describe('pages, feeds and compression through the gateway (real services)', () => {
  let stack: TestStack;
  let dist: string;
  let admin: string;
  let post: Json;

  const createPost = async (values: Record<string, string>): Promise<Json> => {
    const { body, contentType } = multipart(fields(values));
    const response = await fetch(`${stack.baseUrl}/api/posts`, {
      method: 'POST',
      headers: { 'content-type': contentType, authorization: `Bearer ${admin}` },
      body,
    });
    expect(response.status).toBe(201);
    return (await response.json()) as Json;
  };

  beforeAll(async () => {
    dist = await mkdtemp(join(tmpdir(), 'seo-dist-'));
    await mkdir(join(dist, 'assets'));
    await writeFile(join(dist, 'index.html'), SHELL);
    await writeFile(join(dist, 'assets/index-Ab12Cd34.js'), SCRIPT);
    await writeFile(join(dist, 'banner.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    await precompressDir(dist); // what the Vite build does
    stack = await startTestStack({ WEB_DIST: dist, SITE_URL: `${SITE}/` });
    admin = await loginAs(stack, ADMIN.username, ADMIN.password);
    post = await createPost({
      title: 'New tyres & "grip" <fast>',
      content: LONG_TEXT,
      date: '2025-03-04T14:30:00Z',
      category: 'Garage',
      submenu1: 'Automobiles',
      submenu2: 'Car One',
      youtubeUrls: JSON.stringify(['https://www.youtube.com/watch?v=dQw4w9WgXcQ']),
    });
  });
  afterAll(async () => {
    await stack?.stop();
    if (dist) await rm(dist, { recursive: true, force: true });
  });

  it("sends a post's title, excerpt, canonical link, Open Graph and Twitter tags in its HTML", async () => {
    expect(post.url).toBe('/garage/automobiles/car-one/new-tyres-grip-fast');
    const page = await raw(stack, post.url);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    const html = page.text;
    expect(title(html)).toBe('New tyres &amp; &quot;grip&quot; &lt;fast&gt; — My Personal Blog');
    expect(html).not.toContain('<fast>');
    const description = meta(html, 'description', 'name')!;
    expect(description.endsWith(EXCERPT_ELLIPSIS)).toBe(true);
    expect(description.length).toBeLessThanOrEqual(150 + EXCERPT_ELLIPSIS.length);
    expect(LONG_TEXT.startsWith(description.slice(0, -EXCERPT_ELLIPSIS.length))).toBe(true);
    expect(html.match(/<meta name="description"/g)).toHaveLength(1);
    const url = `${SITE}${post.url}`;
    const image = 'https://i.ytimg.com/vi/dQw4w9WgXcQ/hqdefault.jpg';
    expect(canonical(html)).toBe(url);
    expect({
      type: meta(html, 'og:type'),
      title: meta(html, 'og:title'),
      description: meta(html, 'og:description'),
      url: meta(html, 'og:url'),
      image: meta(html, 'og:image'),
      site: meta(html, 'og:site_name'),
      published: meta(html, 'article:published_time'),
      card: meta(html, 'twitter:card', 'name'),
      twitterTitle: meta(html, 'twitter:title', 'name'),
      twitterImage: meta(html, 'twitter:image', 'name'),
    }).toEqual({
      type: 'article',
      title: 'New tyres & "grip" <fast>',
      description,
      url,
      image,
      site: 'My Personal Blog',
      published: '2025-03-04T14:30:00.000Z',
      card: 'summary_large_image',
      twitterTitle: 'New tyres & "grip" <fast>',
      twitterImage: image,
    });
    // Still the app: the tags go into the shell, which loads the same script.
    expect(html).toContain('<div id="root"></div>');
    expect(html).toContain('src="/assets/index-Ab12Cd34.js"');
    expect(meta(html, 'robots', 'name')).toBeUndefined();
  });

  it('gives listing and static pages their own title, description and canonical link', async () => {
    const garage = (await raw(stack, '/garage')).text;
    expect(title(garage)).toBe('Garage — My Personal Blog');
    expect(meta(garage, 'description', 'name')).toBe(
      'Cars, motorcycles, bicycles and the jet ski: builds, repairs and rides.',
    );
    expect(canonical(garage)).toBe(`${SITE}/garage`);
    expect(meta(garage, 'og:type')).toBe('website');
    expect(meta(garage, 'twitter:card', 'name')).toBe('summary');

    const model = (await raw(stack, '/garage/automobiles/car-one/')).text;
    expect(title(model)).toBe('Car One — Automobiles — Garage — My Personal Blog');
    expect(canonical(model)).toBe(`${SITE}/garage/automobiles/car-one`);

    const home = (await raw(stack, '/')).text;
    expect(title(home)).toBe('My Personal Blog');
    expect(meta(home, 'description', 'name')).toMatch(/^Hi, I'm the author of this blog\./);
    expect(canonical(home)).toBe(`${SITE}/`);
    expect(title((await raw(stack, '/about')).text)).toBe('About — My Personal Blog');
    const login = (await raw(stack, '/login')).text;
    expect(title(login)).toBe('Sign in — My Personal Blog');
    expect(meta(login, 'robots', 'name')).toBe('noindex');
  });

  it('answers 200 for every kind of page the site has', async () => {
    const paths = [
      '/',
      '/about',
      '/contact',
      '/login',
      '/register',
      '/admin',
      '/admin/posts/new',
      `/post/${post.id}`,
      '/more',
      '/garage',
      '/gadgets/computers',
      '/garage/automobiles/car-one',
      '/activities/racing',
      '/activities/racing/moto-gp',
      '/social/partner-and-me',
      '/social/friends/friend-two',
      post.url,
      post.url.toUpperCase(),
    ];
    for (const path of paths) {
      const page = await raw(stack, path);
      expect([path, page.status]).toEqual([path, 200]);
      expect(page.headers['cache-control']).toBe('no-cache');
    }
    // /post/{id} points search engines at the post's own page.
    expect(canonical((await raw(stack, `/post/${post.id}`)).text)).toBe(`${SITE}${post.url}`);
  });

  it('answers 404 with the app shell for paths the site has no page for', async () => {
    for (const path of [
      '/no-such-page',
      '/garage/automobiles/no-such-post',
      '/projects/no-such-post',
      '/garage/automobiles/car-one/new-tyres-grip-fast/extra',
      '/post/999999',
      '/post/abc',
      '/assets/index-gone.js',
    ]) {
      const page = await raw(stack, path);
      expect([path, page.status]).toEqual([path, 404]);
      expect(page.text).toContain('<div id="root"></div>'); // the app shows its not-found page
      expect(title(page.text)).toBe('Page not found — My Personal Blog');
      expect(meta(page.text, 'robots', 'name')).toBe('noindex');
    }
    // A malformed escape is the client's mistake.
    expect((await raw(stack, '/%E0%A4%A')).status).toBe(400);
    // The API keeps its JSON answers.
    const api = await raw(stack, '/api/no-such-route');
    expect(api.status).toBe(404);
    expect(api.headers['content-type']).toMatch(/^application\/json/);
  });

  it("sends a post's old address (its section changed) to its page with a 301", async () => {
    const moved = await raw(stack, '/projects/new-tyres-grip-fast');
    expect(moved.status).toBe(301);
    expect(moved.headers.location).toBe(post.url);
  });

  it('revalidates pages cheaply: an unchanged page is a 304', async () => {
    const first = await raw(stack, '/garage');
    expect(first.headers.etag).toBeTruthy();
    const again = await raw(stack, '/garage', { 'if-none-match': first.headers.etag! });
    expect(again.status).toBe(304);
  });

  it('allows exactly the YouTube player and thumbnail hosts (and local blob: previews) in the Content-Security-Policy', async () => {
    const csp = (await raw(stack, post.url)).headers['content-security-policy']!;
    const directive = (name: string) =>
      csp
        .split(';')
        .map((d) => d.trim().split(/\s+/))
        .find(([n]) => n === name)
        ?.slice(1);
    expect(directive('frame-src')).toEqual(['https://www.youtube-nocookie.com']);
    expect(directive('img-src')).toEqual(["'self'", 'data:', 'blob:', 'https://i.ytimg.com']);
    expect(directive('media-src')).toEqual(["'self'", 'blob:']);
    expect(directive('default-src')).toEqual(["'self'"]);
    expect(directive('script-src')).toEqual(["'self'"]);
    expect(directive('object-src')).toEqual(["'none'"]);
  });

  it('serves the build’s brotli and gzip twins of an asset, or the file itself', async () => {
    const path = '/assets/index-Ab12Cd34.js';
    const br = await raw(stack, path, { 'accept-encoding': 'gzip, deflate, br' });
    expect(br.status).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['content-type']).toMatch(/^(application|text)\/javascript/);
    expect(br.headers.vary).toMatch(/Accept-Encoding/i);
    expect(br.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(brotliDecompressSync(br.body).toString()).toBe(SCRIPT);
    expect(br.body.length).toBeLessThan(SCRIPT.length / 4);

    const gz = await raw(stack, path, { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.body).toString()).toBe(SCRIPT);

    const refused = await raw(stack, path, { 'accept-encoding': 'br;q=0, gzip' });
    expect(refused.headers['content-encoding']).toBe('gzip');

    const plain = await raw(stack, path);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.text).toBe(SCRIPT);
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');

    const shell = await raw(stack, '/index.html');
    expect([shell.status, shell.headers.location]).toEqual([301, '/']);

    const svg = await raw(stack, '/banner.svg');
    expect([svg.status, svg.headers['cache-control']]).toEqual([200, 'no-cache']);
  });

  it('compresses generated pages and feeds for clients that take it', async () => {
    const page = await raw(stack, post.url, { 'accept-encoding': 'br' });
    expect(page.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(page.body).toString()).toContain('<link rel="canonical"');
    const feed = await raw(stack, '/rss.xml', { 'accept-encoding': 'gzip' });
    expect(feed.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(feed.body).toString()).toContain('<rss');
    const sitemap = await raw(stack, '/sitemap.xml', { 'accept-encoding': 'gzip' });
    expect(sitemap.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(sitemap.body).toString()).toContain('<urlset');
  });

  it('publishes the 20 newest posts as RSS 2.0 with absolute links and RFC 822 dates', async () => {
    for (let i = 1; i <= 20; i++)
      await createPost({
        title: `Weekend ride ${i}`,
        content: `Ride number ${i}.`,
        date: new Date(Date.UTC(2025, 5, i, 9)).toISOString(),
        category: 'Garage',
        submenu1: 'Motorcycles',
      });
    const feed = await raw(stack, '/rss.xml');
    expect(feed.status).toBe(200);
    expect(feed.headers['content-type']).toBe('application/rss+xml; charset=utf-8');
    const parsed = parseXml(feed.text);
    expect(parsed.rss['@_version']).toBe('2.0');
    const channel = parsed.rss.channel;
    expect(channel.title).toBe('My Personal Blog');
    expect(channel.link).toBe(`${SITE}/`);
    expect(channel.description).toMatch(/^Hi, I'm the author/);
    expect(channel['atom:link']).toMatchObject({
      '@_href': `${SITE}/rss.xml`,
      '@_rel': 'self',
      '@_type': 'application/rss+xml',
    });
    expect(channel.item).toHaveLength(20);
    // Newest first: the 20 rides (June 2025) push the March post out.
    expect(channel.item[0].title).toBe('Weekend ride 20');
    expect(channel.item.map((i: Json) => i.title)).not.toContain(post.title);
    const rfc822 =
      /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;
    for (const item of channel.item) {
      expect(item.link).toMatch(/^https:\/\/blog\.example\/garage\/motorcycles\/weekend-ride-\d+$/);
      expect(item.guid['#text']).toBe(item.link);
      expect(item.guid['@_isPermaLink']).toBe('true');
      expect(item.pubDate).toMatch(rfc822);
      expect(item.description).toMatch(/^Ride number \d+\.$/);
    }
    expect(channel.item[0].pubDate).toBe('Fri, 20 Jun 2025 09:00:00 GMT');
  });

  it('lists every listing page and every post in the sitemap, and points robots.txt at it', async () => {
    const sitemap = await raw(stack, '/sitemap.xml');
    expect(sitemap.status).toBe(200);
    expect(sitemap.headers['content-type']).toBe('application/xml; charset=utf-8');
    const urls = parseXml(sitemap.text).urlset.url as { loc: string; lastmod?: string }[];
    const locs = urls.map((u) => u.loc);
    for (const path of [
      '/',
      '/about',
      '/garage',
      '/garage/automobiles',
      '/garage/automobiles/car-one',
      '/more',
    ])
      expect(locs).toContain(`${SITE}${path}`);
    expect(locs).not.toContain(`${SITE}/activities/racing/moto-gp`); // a placeholder
    expect(locs).not.toContain(`${SITE}/login`);
    const posts = urls.filter((u) => u.lastmod);
    expect(posts).toHaveLength(21);
    expect(posts.map((u) => u.loc)).toContain(`${SITE}${post.url}`);
    expect(new Set(locs).size).toBe(locs.length);

    const robots = await raw(stack, '/robots.txt');
    expect(robots.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(robots.text.split('\n')).toEqual(
      expect.arrayContaining([
        'User-agent: *',
        'Allow: /',
        'Disallow: /admin',
        'Disallow: /api',
        `Sitemap: ${SITE}/sitemap.xml`,
      ]),
    );
    expect((await raw(stack, '/sitemap-1.xml')).status).toBe(404); // one file: no index
  });

  it(`splits the sitemap behind an index past ${SITEMAP_MAX_URLS} URLs`, async () => {
    await seedPosts(stack.env.DATABASE_URL!, SITEMAP_MAX_URLS);
    const started = Date.now();
    const index = await raw(stack, '/sitemap.xml');
    const files = parseXml(index.text).sitemapindex.sitemap as { loc: string }[];
    expect(files.map((f) => f.loc)).toEqual([`${SITE}/sitemap-1.xml`, `${SITE}/sitemap-2.xml`]);
    const counts: number[] = [];
    const seen = new Set<string>();
    for (const n of [1, 2]) {
      const file = await raw(stack, `/sitemap-${n}.xml`, { 'accept-encoding': 'gzip' });
      expect(file.status).toBe(200);
      const urls = parseXml(gunzipSync(file.body).toString()).urlset.url as { loc: string }[];
      counts.push(urls.length);
      for (const url of urls) seen.add(url.loc);
    }
    const elapsed = Date.now() - started;
    expect(counts[0]).toBe(SITEMAP_MAX_URLS);
    expect(seen.size).toBe(counts[0]! + counts[1]!); // no URL twice
    expect(seen).toContain(`${SITE}${post.url}`);
    expect(seen).toContain(`${SITE}/garage`);
    expect((await raw(stack, '/sitemap-3.xml')).status).toBe(404);
    expect(elapsed).toBeLessThan(10_000);
  }, 120_000);
});
