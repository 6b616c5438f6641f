import { readFileSync } from 'node:fs';
import type { PostView } from './posts.js';
import { listingPaths, postPageMeta, routePage, type PageRoute } from './seo.js';
import { parseSiteConfig } from './site-config.js';
import type { SiteConfig } from './site.js';

const site: SiteConfig = parseSiteConfig(JSON.parse(readFileSync('config/site.json', 'utf8')));
const SITE = 'https://blog.example';
const page = (path: string) => routePage(site, SITE, path);
const name = (route: PageRoute | null) => (route?.kind === 'page' ? route.meta.name : route?.kind);

describe('routePage', () => {
  it('names static pages, keeps sign-in and admin out of search engines', () => {
    expect(name(page('/'))).toBe('My Personal Blog');
    expect(page('/')).toMatchObject({ meta: { title: 'My Personal Blog', url: `${SITE}/`, noindex: false } });
    expect(page('/about/')).toMatchObject({ meta: { title: 'About — My Personal Blog' } });
    expect(page('/contact')).toMatchObject({ meta: { url: `${SITE}/about` } });
    for (const path of ['/login', '/register', '/admin', '/admin/posts/3/edit'])
      expect(page(path)).toMatchObject({ kind: 'page', meta: { noindex: true } });
  });

  it('names listings after their place in the tree, with their intro', () => {
    expect(page('/garage?page=2')).toMatchObject({
      meta: {
        title: 'Garage — My Personal Blog',
        description: 'Cars, motorcycles, bicycles and the jet ski: builds, repairs and rides.',
        url: `${SITE}/garage`,
      },
    });
    expect(name(page('/Garage/Motorcycles/Bike-Two'))).toBe('Bike Two — Motorcycles — Garage');
    // A placeholder page exists but is not for search engines.
    expect(page('/activities/racing/f1')).toMatchObject({ meta: { noindex: true } });
  });

  it('tells post pages and /post/{id} apart from unknown paths', () => {
    expect(page('/garage/automobiles/car-one/new-tyres/')).toEqual({
      kind: 'post',
      slug: 'new-tyres',
      path: '/garage/automobiles/car-one/new-tyres',
    });
    expect(page('/projects/my-shed')).toMatchObject({ kind: 'post', slug: 'my-shed' });
    expect(page('/post/42')).toEqual({ kind: 'postId', id: 42 });
    for (const path of ['/nowhere', '/post/x', '/garage/automobiles/car-one/a/b', '/%E0%A4%A'])
      expect([path, page(path)]).toEqual([path, null]);
  });
});

describe('postPageMeta', () => {
  const post = {
    id: 7,
    title: 'Shed roof',
    content: `## ${'word '.repeat(60)}`,
    excerpt: 'word '.repeat(60).trim(),
    url: '/projects/shed-roof',
    created_at: '2025-01-02T03:04:05.000Z',
    updated_at: '2025-01-03T03:04:05.000Z',
    mainMedia: { type: 'image', path: '/uploads/media/roof.webp' },
  } as PostView;

  it('describes a post by its excerpt and main picture, canonical at its tree URL', () => {
    const meta = postPageMeta(site, SITE, post);
    expect(meta).toMatchObject({
      title: 'Shed roof — My Personal Blog',
      type: 'article',
      url: `${SITE}/projects/shed-roof`,
      image: `${SITE}/uploads/media/roof.webp`,
      publishedTime: post.created_at,
    });
    // The plain excerpt: never the Markdown signs of the source.
    expect(meta.description).toMatch(/^word word .*word\.\.\.$/);
    expect(meta.description.length).toBeLessThanOrEqual(153);
  });

  it('falls back to the welcome text and /post/{id} for an empty post outside the tree', () => {
    const meta = postPageMeta(site, SITE, { ...post, content: '', excerpt: '', url: null, mainMedia: null });
    expect(meta.description).toMatch(/^Hi, I'm the author/);
    expect(meta.url).toBe(`${SITE}/post/7`);
    expect(meta.image).toBeNull();
  });
});

describe('listingPaths', () => {
  it('lists home, About and every section, sub-section and model page once, without placeholders', () => {
    const paths = listingPaths(site);
    expect(paths.slice(0, 3)).toEqual(['/', '/about', '/garage']);
    expect(paths).toEqual(expect.arrayContaining(['/garage/jetski', '/social/friends/friend-one', '/more']));
    expect(paths).not.toContain('/activities/racing/moto-gp');
    expect(paths).not.toContain('/projects/general');
    expect(new Set(paths).size).toBe(paths.length);
    for (const path of paths.slice(2)) expect(page(path)?.kind).toBe('page');
  });
});
