import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fields, makeImage, multipart, type Part } from './support/media-fixtures.js';
import { ADMIN, api, loginAs, startTestStack, type TestStack } from './support/test-stack.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const SHELL = `<!doctype html>
<html lang="en"><head><meta charset="UTF-8" /><title>Blog</title></head><body><div id="root"></div></body></html>
`;

/**
 * Writing posts through the real gateway and services: Markdown rendered on save, media
 * placed in the text, alt text and captions, drafts that no visitor can reach by any door,
 * posts scheduled by their date, and the editor's preview call.
 */
describe('post content, drafts and scheduled posts through the gateway (real services)', () => {
  let stack: TestStack;
  let dist: string;
  let admin: string;
  let reader: string;

  const save = async (method: 'POST' | 'PUT', path: string, parts: Part[]) => {
    const { body, contentType } = multipart(parts);
    const response = await fetch(`${stack.baseUrl}${path}`, {
      method,
      headers: { 'content-type': contentType, authorization: `Bearer ${admin}` },
      body,
    });
    const json = (await response.json()) as Json;
    return { status: response.status, json };
  };
  const create = async (values: Record<string, string>, files: Part[] = []) => {
    const response = await save('POST', '/api/posts', [
      ...fields({ category: 'More', submenu1: 'General', ...values }),
      ...files,
    ]);
    expect(response.status).toBe(201);
    return response.json;
  };
  const guest = (path: string) => api(stack, path);
  const asAdmin = (path: string) => api(stack, path, { token: admin });
  const page = (path: string) => fetch(`${stack.baseUrl}${path}`, { redirect: 'manual' });
  const ids = (list: unknown) => (list as Json[]).map((p) => p.id);

  beforeAll(async () => {
    dist = await mkdtemp(join(tmpdir(), 'content-dist-'));
    await mkdir(join(dist, 'assets'));
    await writeFile(join(dist, 'index.html'), SHELL);
    // No cache between the writes and the reads here: what a visitor sees is the database's answer.
    stack = await startTestStack({ WEB_DIST: dist, PUBLIC_CACHE_TTL_MS: '0' });
    admin = await loginAs(stack, ADMIN.username, ADMIN.password);
    await api(stack, '/api/auth/register', { body: { username: 'reader', password: 'reader-password' } });
    reader = await loginAs(stack, 'reader', 'reader-password');
  });
  afterAll(async () => {
    await stack?.stop();
    if (dist) await rm(dist, { recursive: true, force: true });
  });

  it('renders Markdown on save: HTML, plain excerpt, reading time; the source is kept', async () => {
    const content =
      '## Fitting\n\nFour **new** tyres, see [the shop](https://zzshop.example).\n\n- balanced\n- aligned';
    const post = await create({ title: 'Tyre day', content });
    expect(post.content).toBe(content);
    expect(post.contentHtml).toBe(
      '<h2 id="fitting">Fitting</h2>\n<p>Four <strong>new</strong> tyres, see <a href="https://zzshop.example" rel="noopener">the shop</a>.</p>\n' +
        '<ul>\n<li>balanced</li>\n<li>aligned</li>\n</ul>\n',
    );
    expect(post.excerpt).toBe('Fitting Four new tyres, see the shop. balanced aligned');
    expect(post.readingMinutes).toBe(1);
    expect(post.status).toBe('published');
    // Search indexes the text a reader sees, not the Markdown: a link target is not a word of the post.
    expect(ids((await guest('/api/posts?search=balanced')).json)).toEqual([post.id]);
    expect(ids((await guest('/api/posts?search=zzshop')).json)).toEqual([]);
    // A post comes with both texts, the feed with the HTML; a visitor's list cards show the
    // excerpt and leave the texts out; the admin's list keeps the source (the edit form).
    expect((await guest(`/api/posts/${post.id}`)).json).toMatchObject({
      content,
      contentHtml: post.contentHtml,
    });
    expect((await guest(`/api/posts/by-slug/${post.slug}`)).json.contentHtml).toBe(post.contentHtml);
    const listed = (await guest('/api/posts?search=balanced')).json[0];
    expect(listed).toMatchObject({ id: post.id, excerpt: post.excerpt, readingMinutes: 1 });
    expect(listed).not.toHaveProperty('content');
    expect(listed).not.toHaveProperty('contentHtml');
    expect(
      (await guest('/api/posts')).json.every((p: Json) => !('content' in p) && !('contentHtml' in p)),
    ).toBe(true);
    const adminListed = (await api(stack, '/api/posts?search=balanced', { token: admin })).json[0];
    expect(adminListed).toMatchObject({ id: post.id, content });
    expect(adminListed).not.toHaveProperty('contentHtml');
    expect((await guest('/rss.xml')).text).toContain('<h2 id="fitting">Fitting</h2>');
  });

  it('keeps a draft from every visitor door, shows it to the admin, and publishes it', async () => {
    const draft = await create({ title: 'Secret draft zqdraftword', content: 'Not yet.', status: 'draft' });
    expect(draft.status).toBe('draft');
    expect(draft.url).toBeTruthy();
    for (const token of [undefined, reader]) {
      const as = (path: string) => api(stack, path, { token });
      expect(ids((await as('/api/posts')).json)).not.toContain(draft.id);
      expect(ids((await as('/api/posts?status=draft')).json)).not.toContain(draft.id);
      expect(ids((await as('/api/posts?status=all&category=More')).json)).not.toContain(draft.id);
      expect(ids((await as('/api/posts?search=zqdraftword')).json)).toEqual([]);
      expect(ids((await as('/api/posts?search=zqdraftwrd')).json)).toEqual([]); // the typo fallback too
      expect((await as(`/api/posts/${draft.id}`)).status).toBe(404);
      expect((await as(`/api/posts/by-slug/${draft.slug}`)).status).toBe(404);
    }
    expect((await page(draft.url)).status).toBe(404);
    expect((await page(`/post/${draft.id}`)).status).toBe(404);
    expect((await guest('/rss.xml')).text).not.toContain('zqdraftword');
    expect((await guest('/sitemap.xml')).text).not.toContain(draft.slug);
    const total = Number((await guest('/api/posts')).headers.get('x-total-count'));

    // The admin sees it: by id, by slug (the preview page), and in the list's status filter.
    expect((await asAdmin(`/api/posts/by-slug/${draft.slug}`)).json.status).toBe('draft');
    expect(ids((await asAdmin('/api/posts?status=draft')).json)).toEqual([draft.id]);
    expect(ids((await asAdmin('/api/posts')).json)).toContain(draft.id);
    expect(ids((await asAdmin('/api/posts?status=published')).json)).not.toContain(draft.id);

    const published = await save('PUT', `/api/posts/${draft.id}`, [
      ...fields({
        title: draft.title,
        content: 'Now out.',
        category: 'More',
        submenu1: 'General',
        status: 'published',
      }),
    ]);
    expect(published.status).toBe(200);
    expect(published.json.status).toBe('published');
    expect(published.json.slug).toBe(draft.slug);
    expect((await guest(`/api/posts/by-slug/${draft.slug}`)).status).toBe(200);
    expect((await page(draft.url)).status).toBe(200);
    expect(Number((await guest('/api/posts')).headers.get('x-total-count'))).toBe(total + 1);
    expect((await guest('/sitemap.xml')).text).toContain(draft.slug);
  });

  it('answers 400 for a status it does not know, and changes nothing', async () => {
    const before = Number((await asAdmin('/api/posts')).headers.get('x-total-count'));
    const response = await save('POST', '/api/posts', [
      ...fields({ title: 'Bad status', category: 'More', submenu1: 'General', status: 'hidden' }),
    ]);
    expect(response.status).toBe(400);
    expect(response.json.error).toMatch(/status must be one of published, draft/);
    expect(Number((await asAdmin('/api/posts')).headers.get('x-total-count'))).toBe(before);
    expect((await asAdmin('/api/posts?status=maybe')).status).toBe(400);
  });

  it('shows a post dated 3 seconds ahead by itself once that time comes', async () => {
    const at = new Date(Date.now() + 3000);
    const post = await create({ title: 'Saturday post', content: 'Out at last.', date: at.toISOString() });
    expect(post.status).toBe('scheduled');
    expect((await guest(`/api/posts/by-slug/${post.slug}`)).status).toBe(404);
    expect(ids((await guest('/api/posts')).json)).not.toContain(post.id);
    expect((await page(post.url)).status).toBe(404);
    expect(ids((await asAdmin('/api/posts?status=scheduled')).json)).toEqual([post.id]);

    await new Promise((resolve) => setTimeout(resolve, Math.max(0, at.getTime() - Date.now()) + 200));
    const seen = await guest(`/api/posts/by-slug/${post.slug}`);
    expect(seen.status).toBe(200);
    expect(seen.json.status).toBe('published');
    expect(ids((await guest('/api/posts')).json)[0]).toBe(post.id);
    expect((await page(post.url)).status).toBe(200);
    expect((await guest('/rss.xml')).text).toContain('Saturday post');
    expect(ids((await asAdmin('/api/posts?status=scheduled')).json)).toEqual([]);
  });

  it('places an uploaded picture in the text with its alt text and caption, once processed', async () => {
    const post = await create(
      {
        title: 'Roadster pictures',
        content: 'Before the drive.\n\n![](media:new-front)\n\nAfter the drive.',
        unifiedMedia: JSON.stringify([
          {
            type: 'image',
            order: 0,
            fileIndex: 0,
            ref: 'new-front',
            alt: 'The red roadster',
            caption: 'At the lake',
          },
        ]),
      },
      [{ name: 'files', file: { filename: 'front.jpg', type: 'image/jpeg', data: await makeImage('jpeg') } }],
    );
    const item = post.media[0];
    expect(item).toMatchObject({ alt: 'The red roadster', caption: 'At the lake', status: 'pending' });
    // The reference became the item's id in the stored source.
    expect(post.content).toBe(`Before the drive.\n\n![](media:${item.id})\n\nAfter the drive.`);
    // Not processed yet: visitors get the text without the picture.
    expect(post.contentHtml).toBe('<p>Before the drive.</p>\n\n<p>After the drive.</p>\n');

    let seen: Json = {};
    for (const until = Date.now() + 20_000; Date.now() < until;) {
      seen = (await guest(`/api/posts/${post.id}`)).json;
      if (seen.contentHtml.includes('<figure')) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const image = seen.images[0];
    expect(image).toMatchObject({ alt: 'The red roadster', caption: 'At the lake' });
    expect(seen.contentHtml).toContain('<figure class="post-media post-media-image"><picture>');
    expect(seen.contentHtml).toContain('alt="The red roadster"');
    expect(seen.contentHtml).toContain('<figcaption>At the lake</figcaption>');
    for (const variant of image.variants) expect(seen.contentHtml).toContain(variant.path);

    // Edit: alt text changed, caption cleared, the picture moved; the stored HTML follows.
    const edited = await save('PUT', `/api/posts/${post.id}`, [
      ...fields({
        title: 'Roadster pictures',
        content: `![Front of the roadster](media:${item.id})\n\nText after.`,
        category: 'More',
        submenu1: 'General',
        unifiedMedia: JSON.stringify([
          { type: 'image', order: 0, path: image.path, alt: 'Roadster, front', caption: '' },
        ]),
      }),
    ]);
    expect(edited.status).toBe(200);
    expect(edited.json.media[0]).toMatchObject({ alt: 'Roadster, front', caption: null });
    expect(edited.json.contentHtml.startsWith('<figure class="post-media post-media-image"><picture>')).toBe(
      true,
    );
    expect(edited.json.contentHtml).toContain('alt="Front of the roadster"');
    expect(edited.json.contentHtml).not.toContain('figcaption');
    expect(edited.json.mainMedia.alt).toBe('Roadster, front');
    // Its share tags carry the picture's alt text.
    const html = await (await page(edited.json.url)).text();
    expect(html).toContain('<meta property="og:image:alt" content="Roadster, front" />');
  });

  it('refuses alt text and captions over their limits, naming the field', async () => {
    const response = await save('POST', '/api/posts', [
      ...fields({
        title: 'Long alt',
        category: 'More',
        submenu1: 'General',
        youtubeUrls: '[]',
        unifiedMedia: JSON.stringify([
          { type: 'youtube', order: 0, url: 'https://youtu.be/dQw4w9WgXcQ', alt: 'a'.repeat(301) },
        ]),
      }),
    ]);
    expect(response.status).toBe(400);
    expect(response.json.error).toMatch(/unifiedMedia\[0\]\.\[alt\]: alt must be at most 300 characters/);
  });

  it('previews unsaved text with the server renderer, for the admin only', async () => {
    const body = { content: '# Hello\n\n<script>alert(1)</script> and ![wheel](media:new-9)' };
    expect((await api(stack, '/api/posts/preview', { body })).status).toBe(401);
    expect((await api(stack, '/api/posts/preview', { body, token: reader })).status).toBe(403);
    const bad = await api(stack, '/api/posts/preview', { body: { content: 5 }, token: admin });
    expect(bad.status).toBe(400);
    const preview = await api(stack, '/api/posts/preview', { body, token: admin });
    expect(preview.status).toBe(200);
    expect(preview.json).toEqual({
      html:
        '<h1 id="hello">Hello</h1>\n<p>&lt;script&gt;alert(1)&lt;/script&gt; and ' +
        '<span class="media-placeholder">wheel</span></p>\n',
      excerpt: 'Hello <script>alert(1)</script> and',
      words: 3,
      readingMinutes: 1,
    });
  });

  it('gives RSS readers the HTML with absolute links, and a plain description', async () => {
    await create({ title: 'Feed post', content: 'A [link home](/about) and **bold** words.' });
    const rss = (await guest('/rss.xml')).text;
    const item = rss.slice(rss.indexOf('<title>Feed post</title>'));
    expect(item).toContain('<description>A link home and bold words.</description>');
    expect(item).toMatch(
      /<content:encoded><!\[CDATA\[<p>A <a href="http:\/\/[^"]+\/about">link home<\/a> and <strong>bold<\/strong> words\.<\/p>\n\]\]><\/content:encoded>/,
    );
  });
});
