/**
 * Importing a Ghost export (5.x with its db wrapper, and 4.x without) through the real gateway
 * and services, the pictures served by a local HTTP server: the feature image with its alt and
 * caption first, public tags only, pages and (when asked) drafts skipped, __GHOST_URL__ resolved
 * against the source address, and the old URL answering 301.
 */
import { useImportStack } from './support/import-stack.js';
import type { TestStack } from './support/test-stack.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('import from Ghost', () => {
  const rig = useImportStack();
  const { upload, finished, byTitle } = rig;
  let stack: TestStack;
  let filesUrl: string;
  beforeAll(() => ({ stack, filesUrl } = rig));

  it('imports a Ghost export (db wrapper): feature image with alt and caption, public tags only, pages skipped, __GHOST_URL__ resolved', async () => {
    const ghost = {
      db: [
        {
          meta: { exported_on: 1700000000000, version: '5.75.0' },
          data: {
            posts: [
              {
                id: '65a1',
                uuid: 'u1',
                title: 'Ghost post',
                slug: 'ghost-post',
                html: `<p>Hello from <strong>Ghost</strong>.</p><figure class="kg-card kg-image-card"><img src="__GHOST_URL__/uploads/gallery.png" alt="A gallery picture"><figcaption>Seen in Ghost</figcaption></figure>`,
                feature_image: '__GHOST_URL__/uploads/featured.jpg',
                type: 'post',
                status: 'published',
                published_at: '2023-06-01T08:30:00.000Z',
                created_at: '2023-05-30T08:30:00.000Z',
              },
              {
                id: '65a2',
                title: 'A Ghost page',
                slug: 'a-page',
                html: '<p>Page</p>',
                type: 'page',
                status: 'published',
              },
              {
                id: '65a3',
                title: 'Ghost draft',
                slug: 'ghost-draft',
                html: '<p>Draft</p>',
                type: 'post',
                status: 'draft',
                created_at: '2023-07-01T00:00:00.000Z',
              },
            ],
            posts_meta: [
              {
                id: 'm1',
                post_id: '65a1',
                feature_image_alt: 'Ghost feature',
                feature_image_caption: 'Cover',
              },
            ],
            tags: [
              { id: 't1', name: 'Roadtrip', slug: 'roadtrip', visibility: 'public' },
              { id: 't2', name: '#hidden', slug: 'hash-hidden', visibility: 'internal' },
            ],
            posts_tags: [
              { id: 'pt1', post_id: '65a1', tag_id: 't1', sort_order: 0 },
              { id: 'pt2', post_id: '65a1', tag_id: 't2', sort_order: 1 },
            ],
          },
        },
      ],
    };
    const started = await upload('ghost.json', JSON.stringify(ghost), {
      sourceUrl: filesUrl,
      drafts: 'skip',
    });
    expect(started.status).toBe(202);
    const report = await finished(started.json.id as string);
    expect(report).toMatchObject({
      state: 'done',
      format: 'ghost',
      total: 2,
      imported: 1,
      skipped: 2,
      skippedBy: { page: 1, draft: 1 },
    });
    const post = await byTitle('Ghost post');
    expect(post).toMatchObject({
      created_at: '2023-06-01T08:30:00.000Z',
      tags: ['Roadtrip'],
      category: 'More',
    });
    expect(post.media.map((m: Json) => [m.alt, m.caption ?? null])).toEqual([
      ['Ghost feature', 'Cover'],
      ['A gallery picture', 'Seen in Ghost'],
    ]);
    expect(
      (await fetch(`${stack.baseUrl}/ghost-post/`, { redirect: 'manual' })).headers.get('location'),
    ).toBe(post.url);
    // Version 4 without the db wrapper.
    const v4 = {
      meta: { version: '4.48.0' },
      data: {
        posts: [
          {
            id: 'v4a',
            title: 'Ghost four',
            slug: 'ghost-four',
            html: '<p>Four</p>',
            status: 'published',
            published_at: '2021-01-02T03:04:05.000Z',
          },
        ],
      },
    };
    const four = await finished((await upload('ghost4.json', JSON.stringify(v4))).json.id as string);
    expect(four).toMatchObject({ state: 'done', imported: 1 });
    expect(await byTitle('Ghost four')).toMatchObject({
      created_at: '2021-01-02T03:04:05.000Z',
      content: 'Four',
    });
  }, 120_000);
});
