import { dataSourceOptions, openMigrated } from '@blog/server-kit';
import { createTestDatabase, type TestDatabase } from '@blog/server-kit/testing';
import { seedPosts } from '../../../scripts/seed.mjs';
import { MIGRATIONS as POSTS_MIGRATIONS } from '../src/migrations/index.js';
import { renderMarkdown } from '../src/content/markdown.js';
import { PostContent1764200000000 } from '../src/migrations/1764200000000-PostContent.js';

/**
 * Posts written before Markdown (plain text, line breaks meant as line breaks) are rendered
 * by the PostContent migration: they read as before, search still finds their words, and
 * the new columns are filled. The migration runs on a database that the earlier migrations
 * built and filled, as an upgrade would.
 */
describe('PostContent migration on posts written as plain text', () => {
  let db: TestDatabase;

  const open = (migrations: typeof POSTS_MIGRATIONS) =>
    openMigrated(dataSourceOptions({ url: db.url, schema: 'posts', entities: [], migrations }), 'posts');

  const OLD_POSTS = [
    'Fitted four new tyres today.\nThe roadster now tracks straight.\n\nNext week: the brakes.',
    'Price went from 10 < 20 to 30 > 20 & "quoted" \'text\'\nsecond line',
    '',
    'One very long line '.repeat(400).trim(),
  ];

  beforeAll(async () => {
    db = await createTestDatabase('content_migration');
    const before = await open(POSTS_MIGRATIONS.slice(0, POSTS_MIGRATIONS.indexOf(PostContent1764200000000)));
    for (const [i, content] of OLD_POSTS.entries()) {
      await before.query(
        `INSERT INTO posts.posts (title, content, slug, category, submenu1, created_at, updated_at)
         VALUES ($1, $2, $3, 'More', 'General', now() - interval '1 day', now())`,
        [`Old post ${i}`, content, `old-post-${i}`],
      );
    }
    await before.destroy();
    const after = await open(POSTS_MIGRATIONS);
    await after.destroy();
  });
  afterAll(() => db?.drop());

  async function rows() {
    const source = await open(POSTS_MIGRATIONS);
    try {
      return (await source.query(
        `SELECT slug, content, content_html, content_text, excerpt, reading_minutes, status
           FROM posts.posts ORDER BY id`,
      )) as {
        slug: string;
        content: string;
        content_html: string;
        content_text: string;
        excerpt: string;
        reading_minutes: number;
        status: string;
      }[];
    } finally {
      await source.destroy();
    }
  }

  it('renders each old post: single line breaks stay line breaks, blank lines make paragraphs', async () => {
    const [first, second, empty, long] = await rows();
    expect(first!.content_html).toBe(
      '<p>Fitted four new tyres today.<br />\nThe roadster now tracks straight.</p>\n<p>Next week: the brakes.</p>\n',
    );
    // Characters that mean something in HTML are shown as text, never as markup.
    expect(second!.content_html).toBe(
      '<p>Price went from 10 &lt; 20 to 30 &gt; 20 &amp; "quoted" \'text\'<br />\nsecond line</p>\n',
    );
    expect(empty!.content_html).toBe('');
    expect(long!.reading_minutes).toBe(Math.ceil(1600 / 230));
    // The source is kept as written.
    expect(first!.content).toBe(OLD_POSTS[0]);
  });

  it('fills the plain text, excerpt and status, and search reads the plain text', async () => {
    const [first, , empty, long] = await rows();
    expect(first!.content_text).toBe(
      'Fitted four new tyres today. The roadster now tracks straight.\nNext week: the brakes.',
    );
    expect(first!.excerpt).toBe(
      'Fitted four new tyres today. The roadster now tracks straight. Next week: the brakes.',
    );
    expect(first!.reading_minutes).toBe(1);
    expect(empty!.reading_minutes).toBe(0);
    expect(long!.excerpt.length).toBeLessThanOrEqual(300 + '...'.length);
    expect(long!.excerpt.endsWith('...')).toBe(true);
    expect(new Set((await rows()).map((r) => r.status))).toEqual(new Set(['published']));

    const source = await open(POSTS_MIGRATIONS);
    try {
      const found = await source.query(
        `SELECT slug FROM posts.posts WHERE search @@ to_tsquery('english', 'brakes')`,
      );
      expect(found).toEqual([{ slug: 'old-post-0' }]);
    } finally {
      await source.destroy();
    }
  });

  it('seeds demo and benchmark posts with the fields the renderer would store', async () => {
    await seedPosts(db.url, 40);
    const seeded = (await rows()).filter((row) => row.slug.startsWith('seed-'));
    expect(seeded).toHaveLength(40);
    for (const row of seeded) {
      const rendered = renderMarkdown(row.content);
      expect([row.slug, row.content_html, row.content_text, row.excerpt, row.reading_minutes]).toEqual([
        row.slug,
        rendered.html,
        rendered.text,
        rendered.excerpt,
        rendered.readingMinutes,
      ]);
    }
  });
});
