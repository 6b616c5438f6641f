/**
 * Pages through the gateway (real services): a post's and a listing's own title, description,
 * canonical link, Open Graph and Twitter tags in the app shell; 200 for every kind of page, 404
 * with the shell for the rest; an old address answering 301; 304 for an unchanged page; and a
 * Content-Security-Policy that allows exactly the YouTube hosts.
 */
import { EXCERPT_ELLIPSIS } from '@blog/contracts';
import { canonical, LONG_TEXT, meta, raw, SITE, title, useSeoStack, type Json } from './support/seo-stack.js';
import type { TestStack } from './support/test-stack.js';

describe('pages through the gateway (real services)', () => {
  const rig = useSeoStack();
  let stack: TestStack;
  let post: Json;
  beforeAll(() => ({ stack, post } = rig));

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
});
