/**
 * Public pages rendered on the server, through the real gateway, services and the
 * built web app (web/dist and its page renderer web/dist-ssr, made by `npm run build`): the
 * first HTML of each kind of page holds its content, 404 and 301 carry rendered pages, the
 * forms post without JavaScript, and a signed-in request is rendered for it alone.
 */
import type { PreloadedData } from '@blog/contracts';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { OWASP_VECTORS } from '../../services/posts/test/xss-corpus.js';
import { fields, makeImage, multipart, type Part } from './support/media-fixtures.js';
import { ADMIN, api, loginAs, startTestStack, type TestStack } from './support/test-stack.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const DIST = join(import.meta.dirname, '../../web/dist');
const RENDERER = join(import.meta.dirname, '../../web/dist-ssr/entry-server.js');
const GARAGE_POSTS = 18;

/** The page's HTML without following redirects. */
async function page(stack: TestStack, path: string, init: RequestInit = {}) {
  const response = await fetch(`${stack.baseUrl}${path}`, { redirect: 'manual', ...init });
  return { status: response.status, headers: response.headers, html: await response.text() };
}

/** What the server rendered into #root (the preloaded JSON and the head left out). */
const body = (html: string) => html.slice(html.indexOf('<div id="root">')).replace(/<!-- -->/g, '');
const preloaded = (html: string): PreloadedData =>
  JSON.parse(/<script type="application\/json" id="preloaded-data">(.*?)<\/script>/s.exec(html)![1]!);
const cardTitles = (html: string) =>
  [...body(html).matchAll(/<h[23] class="post-card-title"><a [^>]*>([^<]*)<\/a>/g)].map((m) => m[1]);

describe('server-rendered pages (real services, the built web app)', () => {
  let stack: TestStack;
  let admin: string;
  let showcase: Json;
  let draft: Json;

  const create = async (values: Record<string, string>, files: Part[] = []): Promise<Json> => {
    const { body: form, contentType } = multipart([...fields(values), ...files]);
    const response = await fetch(`${stack.baseUrl}/api/posts`, {
      method: 'POST',
      headers: { 'content-type': contentType, authorization: `Bearer ${admin}` },
      body: form,
    });
    const json = (await response.json()) as Json;
    if (response.status !== 201) throw new Error(`create failed: ${response.status} ${JSON.stringify(json)}`);
    return json;
  };

  beforeAll(async () => {
    if (!existsSync(join(DIST, 'index.html')) || !existsSync(RENDERER))
      throw new Error('web/dist and web/dist-ssr are missing: run `npm run build` first');
    stack = await startTestStack({ WEB_DIST: DIST, SITE_URL: 'https://blog.example' });
    admin = await loginAs(stack, ADMIN.username, ADMIN.password);
    for (let i = 1; i <= GARAGE_POSTS; i++) {
      await create({
        title: `Garage log ${String(i).padStart(2, '0')}`,
        content: `Changed the oil, entry ${i}.`,
        category: 'Garage',
        submenu1: 'Automobiles',
        submenu2: 'Car One',
        date: `2024-01-${String(i).padStart(2, '0')}T10:00:00Z`,
      });
    }
    const photo = await makeImage('jpeg', 800, 500);
    const created = await create(
      {
        title: 'Tyres & <grip> </script><script>alert(1)</script>',
        content: 'Fitted **four new tyres** today.\n\n<script>alert("x")</script>\n\n- balanced\n- aligned',
        category: 'Garage',
        submenu1: 'Motorcycles',
        submenu2: 'Bike One',
        tags: JSON.stringify(['tyres']),
        date: '2025-03-04T14:30:00Z',
      },
      [
        { name: 'files', file: { filename: 'front.jpg', type: 'image/jpeg', data: photo } },
        { name: 'files', file: { filename: 'rear.jpg', type: 'image/jpeg', data: photo } },
      ],
    );
    // The images are rendered by the media worker; the page shows them once they are ready.
    for (const until = Date.now() + 20_000; ;) {
      showcase = (await api(stack, `/api/posts/${created.id}`, { token: admin })).json as Json;
      if (showcase.media.length === 2 && showcase.media.every((m: Json) => m.status === 'ready')) break;
      if (Date.now() > until) throw new Error('the images were not processed');
      await new Promise((r) => setTimeout(r, 100));
    }
    draft = await create({
      title: 'Unpublished thoughts',
      content: 'Not yet.',
      category: 'Projects',
      status: 'draft',
    });
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('home: the welcome card, the first 15 cards, the pagination as links, and the loaders’ data once', async () => {
    const home = await page(stack, '/');
    expect(home.status).toBe(200);
    expect(body(home.html)).toContain('<h1 id="welcome-heading">Welcome!</h1>');
    const titles = cardTitles(home.html);
    expect(titles).toHaveLength(15);
    expect(titles[0]).toBe('Tyres &amp; &lt;grip&gt; &lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(body(home.html)).toContain(`Page 1 of 2 (${GARAGE_POSTS + 1} total results)`);
    expect(body(home.html)).toMatch(/<a class="button button-secondary" href="\/\?page=2"[^>]*>Next<\/a>/);
    expect(body(home.html)).toMatch(/<form class="search-box" role="search" action="\/" method="get">/);

    const data = preloaded(home.html);
    expect(data.rendered).toBe(true);
    expect((data.loaderData.home as Json).posts.items).toHaveLength(15);
    expect((data.loaderData.root as Json).site.title).toBe('My Personal Blog');
    // The post's data is written once, as the loaders' data: no second copy beside it.
    expect(Object.keys(data)).toEqual(['rendered', 'loaderData', 'actionData']);

    const second = await page(stack, '/?page=2');
    expect(cardTitles(second.html)).toHaveLength(GARAGE_POSTS + 1 - 15);
    expect(cardTitles(second.html)).not.toContain(titles[0]);
  });

  it('a section and a model page list their posts; an under-construction page says so', async () => {
    const garage = await page(stack, '/garage');
    expect(garage.status).toBe(200);
    expect(body(garage.html)).toContain('<h1>Garage</h1>');
    expect(body(garage.html)).toContain('Browse by Category');
    expect(cardTitles(garage.html)).toHaveLength(GARAGE_POSTS + 1);

    const model = await page(stack, '/garage/automobiles/car-one');
    expect(body(model.html)).toContain('<h1>Car One</h1>');
    expect(cardTitles(model.html)).toContain('Garage log 07');
    expect(cardTitles(model.html)).not.toContain(cardTitles(garage.html)[0]);

    const racing = await page(stack, '/activities/racing/moto-gp');
    expect(body(racing.html)).toContain('This page is under construction.');
  });

  it('a post: its title, its sanitised Markdown, the first image of the carousel, its share tags', async () => {
    const post = await page(stack, showcase.url);
    expect(post.status).toBe(200);
    const html = body(post.html);
    expect(html).toContain('<strong>four new tyres</strong>');
    expect(html).toContain('<li>balanced</li>');
    expect(html).not.toMatch(/<script>alert/);
    // Only the shell's two scripts: the carousel's code (loaded on demand) was ready for the
    // server's first render, so no inline script had to swap it in (the CSP would refuse it).
    expect(post.html.match(/<script/g)).toHaveLength(2);
    expect(html).not.toContain('<template');
    // The first slide shows, the second waits behind `hidden` (a list without JavaScript, by CSS).
    const slides = [...html.matchAll(/<div class="carousel-slide"( hidden="")?/g)];
    expect(slides.map((s) => Boolean(s[1]))).toEqual([false, true]);
    expect(html).toMatch(/<img [^>]*src="\/uploads\/[^"]+"/);
    expect(post.html).toContain('<meta property="og:type" content="article" />');
    // Dates are written in UTC by the server and marked so; the browser shows the reader's zone.
    expect(html).toContain('March 4, 2025 at 2:30 PM UTC');
  });

  it('search: the results of ?q= on the page where it was asked, with the search title', async () => {
    const search = await page(stack, '/garage?q=tyres');
    expect(search.status).toBe(200);
    expect(body(search.html)).toContain('Search Results for &quot;tyres&quot;');
    expect(cardTitles(search.html)).toHaveLength(1);
    expect(search.html).toContain('<title>Search Results</title>');
    const none = await page(stack, '/?q=zzzznothing');
    expect(body(none.html)).toContain('No posts found matching &quot;zzzznothing&quot;');
  });

  it('404 and 301 carry rendered pages; /post/{id} leads to the post', async () => {
    const missing = await page(stack, '/no-such/place/at/all');
    expect(missing.status).toBe(404);
    expect(body(missing.html)).toContain('Page not found');
    const noPost = await page(stack, '/garage/motorcycles/bike-one/no-such-post');
    expect(noPost.status).toBe(404);
    expect(body(noPost.html)).toContain('No posts yet');

    const moved = await page(stack, `/projects/${showcase.slug}?ref=old`);
    expect(moved.status).toBe(301);
    expect(moved.headers.get('location')).toBe(`${showcase.url}?ref=old`);
    const byId = await page(stack, `/post/${showcase.id}`);
    expect(byId.status).toBe(302);
    expect(byId.headers.get('location')).toBe(showcase.url);
    const noId = await page(stack, '/post/99999999');
    expect(noId.status).toBe(302);
    expect(noId.headers.get('location')).toBe('/');
  });

  it('the contact and subscribe forms post without JavaScript and answer with the About page', async () => {
    const about = await page(stack, '/about');
    expect(body(about.html)).toMatch(/<form class="form" action="\/about#contact" method="post">/);
    const post = (form: Record<string, string>) =>
      page(stack, '/about', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form).toString(),
      });
    const sent = await post({
      form: 'contact',
      name: 'Ada',
      email: 'ada@example.com',
      subject: 'Hi',
      message: 'Hello',
    });
    expect(sent.status).toBe(200);
    expect(body(sent.html)).toContain('Message sent successfully!');
    const refused = await post({
      form: 'contact',
      name: 'Bo',
      email: 'not-an-address',
      subject: 'Hi',
      message: 'Kept',
    });
    expect(body(refused.html)).toContain('Failed to send message. Please try again.');
    expect(body(refused.html)).toContain('>Kept</textarea>');
    const subscribed = await post({ form: 'subscribe', email: 'reader@example.com' });
    expect(body(subscribed.html)).toContain('Successfully subscribed!');
  });

  it('sign-in and the dashboard are drawn in the browser: the shell, with a word for readers without JavaScript', async () => {
    const login = await page(stack, '/login');
    expect(login.status).toBe(200);
    expect(body(login.html)).toContain('<noscript>');
    expect(preloaded(login.html).rendered).toBe(false);
  });

  it('a signed-in request is rendered for it alone: the draft shows to the admin, never to a guest', async () => {
    const path = `/projects/${draft.slug}`;
    expect((await page(stack, path)).status).toBe(404);
    const asAdmin = await page(stack, path, { headers: { authorization: `Bearer ${admin}` } });
    expect(asAdmin.status).toBe(200);
    expect(body(asAdmin.html)).toContain('Unpublished thoughts');
    const guest = await page(stack, path);
    expect(guest.status).toBe(404);
    expect(guest.html).not.toContain('Unpublished thoughts');
  });

  it('a write drops the rendered pages: a new post is on the home page at once', async () => {
    await page(stack, '/');
    await create({
      title: 'Fresh from the workshop',
      content: 'New.',
      category: 'Projects',
      date: '2026-01-01T00:00:00Z',
    });
    expect(cardTitles((await page(stack, '/')).html)[0]).toBe('Fresh from the workshop');
  });

  it('the cross-site-scripting corpus as titles, tags and search terms stays text in the HTML and its data', async () => {
    const vectors = OWASP_VECTORS.filter((vector) => vector.length <= 200);
    const made: Json[] = [];
    for (const [i, vector] of vectors.entries()) {
      made.push(
        await create({
          title: vector,
          content: `Vector ${i}.`,
          category: 'More',
          tags: JSON.stringify([vector.slice(0, 50)]),
          date: '2023-01-01T00:00:00Z',
        }),
      );
    }
    /** Only the shell's two scripts (the app, its JSON data) and no handler attribute anywhere. */
    const inert = (html: string) => {
      expect(html.match(/<script/gi)).toHaveLength(2);
      // Attribute values emptied first: what stays is the markup's own tags and attribute names.
      const markup = body(html).replace(/"[^"]*"/g, '""');
      expect(markup).not.toMatch(/<[a-z][^>]*\son[a-z]+\s*=/i);
      expect(markup).not.toMatch(/<(iframe|svg|object|embed|math|base|meta|style)\b/i);
      expect(body(html)).not.toMatch(/(href|src)="\s*(javascript|vbscript|data):/i);
      // The JSON data cannot close its element: every `<` in it is escaped.
      const json = /<script type="application\/json" id="preloaded-data">(.*?)<\/script>/s.exec(html)![1]!;
      expect(json).not.toContain('<');
    };
    for (let p = 1; p <= Math.ceil(vectors.length / 30); p++)
      inert((await page(stack, `/more?page=${p}`)).html);
    for (const post of made.slice(0, 12)) inert((await page(stack, post.url)).html);
    inert((await page(stack, `/?q=${encodeURIComponent(vectors[1]!)}`)).html);
  });
});
