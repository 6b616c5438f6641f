import { randomUUID } from 'node:crypto';
import { reservedSegments, type NewsletterPost, type SiteConfig } from '@blog/contracts';
import { dataSourceOptions, IdempotencyLedger, openMigrated, type ObjectStorage } from '@blog/server-kit';
import { createTestDatabase, type TestDatabase } from '@blog/server-kit/testing';
import type { DataSource } from 'typeorm';
import { MIGRATIONS as POSTS_MIGRATIONS } from '../src/migrations/index.js';
import type { PostsConfig } from '../src/config.js';
import { ContentService } from '../src/content/content.service.js';
import { NewsletterEventsRepository } from '../src/newsletter/newsletter-events.repository.js';
import { NewsletterRepository } from '../src/newsletter/newsletter.repository.js';
import { NewsletterService } from '../src/newsletter/newsletter.service.js';
import { MediaItem } from '../src/posts/media-item.entity.js';
import { Post } from '../src/posts/post.entity.js';
import { PostgresPostsRepository } from '../src/posts/posts.repository.js';
import { PostsService } from '../src/posts/posts.service.js';
import { PostSearchRepository } from '../src/search/post-search.repository.js';
import type { SiteSettings } from '../src/site/site-settings.js';
import { garageSite } from './support/garage-site.js';

const SITE = 'https://blog.example';
const PAST = '2024-03-01T10:00:00.000Z';
const FUTURE = '2099-01-01T10:00:00.000Z';
const LATER = '2099-02-01T10:00:00.000Z';

/**
 * Every post by e-mail, the posts side, on a real PostgreSQL through PostsService: what a save
 * owes the each-post subscribers (posts.newsletter_events, written in the save's transaction),
 * the mail service's pending/done round, and a post as its e-mail carries it.
 */
describe('newsletter events and posts', () => {
  let db: TestDatabase;
  let source: DataSource;
  let posts: PostsService;
  let newsletter: NewsletterService;
  let content: ContentService;
  let stored: PostgresPostsRepository;
  let site: SiteConfig;

  beforeAll(async () => {
    db = await createTestDatabase('newsletter_events');
    source = await openMigrated(
      dataSourceOptions({
        url: db.url,
        schema: 'posts',
        entities: [Post, MediaItem],
        migrations: POSTS_MIGRATIONS,
      }),
      'posts',
    );
    site = garageSite(['Car One']);
    const settings = {
      current: () => site,
      reservedSegments: () => reservedSegments(site),
    } as unknown as SiteSettings;
    const storage = { deleteMany: async () => undefined } as unknown as ObjectStorage;
    stored = new PostgresPostsRepository(source, new PostSearchRepository(source));
    content = new ContentService(stored);
    newsletter = new NewsletterService(
      new NewsletterEventsRepository(source),
      new NewsletterRepository(source),
      settings,
      { SITE_URL: SITE } as PostsConfig,
    );
    posts = new PostsService(
      settings,
      storage,
      content,
      new IdempotencyLedger(source),
      stored,
      undefined,
      newsletter,
    );
  });
  afterAll(async () => {
    await source?.destroy();
    await db?.drop();
  });

  const fields = (title: string, more: Record<string, string> = {}) => ({
    title,
    content: `The text of ${title}.`,
    category: 'Garage',
    submenu1: 'Automobiles',
    submenu2: 'Car One',
    status: 'published',
    date: PAST,
    sendByEmail: 'true',
    ...more,
  });
  const create = async (title: string, more: Record<string, string> = {}) =>
    (await posts.create({ fields: fields(title, more), files: [] })).answer;
  const update = async (id: number, title: string, more: Record<string, string> = {}) =>
    (await posts.update({ id, fields: fields(title, more), files: [] })).answer;
  const rowsOf = async (postId: number) =>
    (
      (await source.query(`SELECT due_at, done_at FROM posts.newsletter_events WHERE post_id = $1`, [
        postId,
      ])) as { due_at: Date; done_at: Date | null }[]
    ).map((row) => ({ dueAt: row.due_at.toISOString(), done: row.done_at !== null }));
  /** The mail service's round for `postId`: its due event taken over and marked done. */
  const takeOver = async (postId: number) => {
    const due = (await newsletter.pending(100)).filter((e) => e.postId === postId);
    for (const event of due) expect(await newsletter.done(event.id)).toEqual({ done: true });
    return due.length;
  };

  it('a post published with sendByEmail is owed once, due at its date; a draft never', async () => {
    const post = await create('Sent by e-mail');
    expect(post.sendByEmail).toBe(true);
    expect(await rowsOf(post.id)).toEqual([{ dueAt: PAST, done: false }]);

    const draft = await create('A draft', { status: 'draft' });
    await update(draft.id, 'A draft', { status: 'draft', content: 'Changed.' });
    expect(await rowsOf(draft.id)).toEqual([]);
    await update(draft.id, 'A draft', { status: 'published' });
    expect(await rowsOf(draft.id)).toEqual([{ dueAt: PAST, done: false }]);

    const quiet = await create('Not by e-mail', { sendByEmail: 'false' });
    expect(quiet.sendByEmail).toBe(false);
    expect(await rowsOf(quiet.id)).toEqual([]);
  });

  it('edits of a post owed or taken over write nothing new: it is never owed twice', async () => {
    const post = await create('Edited after');
    await update(post.id, 'Edited after, retitled', { content: 'New text.' });
    expect(await rowsOf(post.id)).toEqual([{ dueAt: PAST, done: false }]);
    expect(await takeOver(post.id)).toBe(1);
    // Unpublished and published again, edited, its box ticked again: still the one row, done.
    await update(post.id, 'Edited after', { status: 'draft' });
    await update(post.id, 'Edited after', { status: 'published', date: '2024-04-01T00:00:00.000Z' });
    await update(post.id, 'Edited after', { sendByEmail: 'false' });
    await update(post.id, 'Edited after', { sendByEmail: 'true' });
    expect(await rowsOf(post.id)).toEqual([{ dueAt: PAST, done: true }]);
    expect(await takeOver(post.id)).toBe(0);
    expect(await newsletter.done(randomUUID())).toEqual({ done: false });
  });

  it('a scheduled post is due at its time, which follows the post until it is taken over', async () => {
    const post = await create('Scheduled', { date: FUTURE });
    expect(await rowsOf(post.id)).toEqual([{ dueAt: FUTURE, done: false }]);
    expect((await newsletter.pending(100)).some((e) => e.postId === post.id)).toBe(false);
    await update(post.id, 'Scheduled', { date: LATER });
    expect(await rowsOf(post.id)).toEqual([{ dueAt: LATER, done: false }]);
    await update(post.id, 'Scheduled', { date: PAST });
    expect(await takeOver(post.id)).toBe(1);
  });

  it('the box ticked on a published post never sent owes it now; unticked before it went, it is dropped', async () => {
    const post = await create('Ticked later', { sendByEmail: 'false' });
    expect(await rowsOf(post.id)).toEqual([]);
    // An edit that leaves the field out keeps the post's own choice.
    const { sendByEmail: _unset, ...withoutField } = fields('Ticked later');
    await posts.update({ id: post.id, fields: withoutField, files: [] });
    expect(await rowsOf(post.id)).toEqual([]);
    await update(post.id, 'Ticked later', { sendByEmail: 'true' });
    expect(await rowsOf(post.id)).toEqual([{ dueAt: PAST, done: false }]);
    await posts.update({ id: post.id, fields: withoutField, files: [] });
    expect(await rowsOf(post.id)).toEqual([{ dueAt: PAST, done: false }]);
    await update(post.id, 'Ticked later', { sendByEmail: 'false' });
    expect(await rowsOf(post.id)).toEqual([]);
  });

  it('a new post without the field takes the Site setting', async () => {
    const { sendByEmail: _unset, ...withoutField } = fields('Default off');
    const off = (await posts.create({ fields: withoutField, files: [] })).answer;
    expect(off.sendByEmail).toBe(false);
    expect(await rowsOf(off.id)).toEqual([]);
    site = { ...site, newsletter: { sendByDefault: true } };
    try {
      const on = (await posts.create({ fields: { ...withoutField, title: 'Default on' }, files: [] })).answer;
      expect(on.sendByEmail).toBe(true);
      expect(await rowsOf(on.id)).toEqual([{ dueAt: PAST, done: false }]);
    } finally {
      site = { ...site, newsletter: { sendByDefault: false } };
    }
  });

  it('imports and restores are never owed, whatever the Site setting', async () => {
    site = { ...site, newsletter: { sendByDefault: true } };
    try {
      const input = {
        title: 'Imported',
        content: 'From WordPress.',
        category: 'Garage',
        submenu1: 'Automobiles',
        submenu2: 'Car One',
        tags: ['cars'],
        status: 'published' as const,
        date: new Date(PAST),
        media: [],
      };
      const origin = { sourceId: 'wxr:newsletter-1', oldPaths: [] };
      const { answer } = await posts.saveImported(input, [], origin);
      await posts.saveImported({ ...input, content: 'Again.' }, [], origin, answer.id);
      expect(answer.sendByEmail).toBe(false);
      expect(await rowsOf(answer.id)).toEqual([]);
    } finally {
      site = { ...site, newsletter: { sendByDefault: false } };
    }
  });

  it('pending: due and visible now, oldest first, up to its limit; a post made a draft waits, a deleted one is gone', async () => {
    await source.query(`UPDATE posts.newsletter_events SET done_at = now() WHERE done_at IS NULL`);
    const first = await create('Due first', { date: '2024-01-01T00:00:00.000Z' });
    const second = await create('Due second', { date: '2024-02-01T00:00:00.000Z' });
    const hidden = await create('Made a draft', { date: '2023-01-01T00:00:00.000Z' });
    await update(hidden.id, 'Made a draft', { status: 'draft', date: '2023-01-01T00:00:00.000Z' });
    const deleted = await create('Deleted', { date: '2023-01-01T00:00:00.000Z' });
    await posts.delete(deleted.id);
    await create('Not due', { date: FUTURE });

    const pending = await newsletter.pending(10);
    expect(pending.map((e) => [e.postId, e.dueAt])).toEqual([
      [first.id, '2024-01-01T00:00:00.000Z'],
      [second.id, '2024-02-01T00:00:00.000Z'],
    ]);
    expect(pending[0]!.id).toMatch(/^[0-9a-f-]{36}$/);
    expect((await newsletter.pending(1)).map((e) => e.postId)).toEqual([first.id]);
    expect(await rowsOf(deleted.id)).toEqual([]);
    // Published again: owed still (it never went), and listed.
    await update(hidden.id, 'Made a draft', { date: '2023-01-01T00:00:00.000Z' });
    expect((await newsletter.pending(10)).map((e) => e.postId)).toEqual([hidden.id, first.id, second.id]);
  });

  it('waits while the post’s pictures are processing (so the e-mail carries them), at most the media wait', async () => {
    const post = await create('Pictures on their way', { date: '2024-03-01T00:00:00.000Z' });
    const item = randomUUID();
    await source.query(
      `INSERT INTO posts.media_items (id, post_id, position, type, status, original_key)
       VALUES ($1, $2, 0, 'image', 'pending', 'private/originals/car.jpg')`,
      [item, post.id],
    );
    const listed = async () => (await newsletter.pending(100)).some((e) => e.postId === post.id);
    expect(await listed()).toBe(false);
    await source.query(`UPDATE posts.media_items SET status = 'ready' WHERE id = $1`, [item]);
    expect(await listed()).toBe(true);
    // A stuck item holds it no longer than the media wait.
    await source.query(`UPDATE posts.media_items SET status = 'pending' WHERE id = $1`, [item]);
    expect(await listed()).toBe(false);
    await source.query(
      `UPDATE posts.newsletter_events SET created_at = now() - interval '31 minutes' WHERE post_id = $1`,
      [post.id],
    );
    expect(await listed()).toBe(true);
  });

  it('a post unpublished, scheduled again or deleted mid-send answers gone', async () => {
    const post = await create('Mid-send');
    expect(await newsletter.post(post.id)).toMatchObject({ id: post.id, title: 'Mid-send' });
    await update(post.id, 'Mid-send', { status: 'draft' });
    expect(await newsletter.post(post.id)).toEqual({ gone: true });
    // The owner's test e-mail of a draft: the post as it would go.
    expect(await newsletter.post(post.id, true)).toMatchObject({ id: post.id, title: 'Mid-send' });
    await update(post.id, 'Mid-send', { date: FUTURE });
    expect(await newsletter.post(post.id)).toEqual({ gone: true });
    // Dated a moment ahead by the database's clock: gone until then.
    await source.query(`UPDATE posts.posts SET created_at = now() + interval '1 hour' WHERE id = $1`, [
      post.id,
    ]);
    expect(await newsletter.post(post.id)).toEqual({ gone: true });
    await posts.delete(post.id);
    expect(await newsletter.post(post.id)).toEqual({ gone: true });
    expect(await newsletter.post(post.id, true)).toEqual({ gone: true });
    expect(await newsletter.post(999_999)).toEqual({ gone: true });
  });

  it('a post as its e-mail carries it: absolute links, JPEG/PNG pictures, videos and YouTube as linked pictures', async () => {
    const post = await create('Red car', { date: '2024-05-01T12:00:00.000Z' });
    const jpeg = randomUUID();
    const webpOnly = randomUUID();
    const video = randomUUID();
    const youtube = randomUUID();
    const sizes = [400, 800, 1600];
    const variants = (base: string, formats: string[]) =>
      sizes.flatMap((width) =>
        formats.map((format) => ({
          key: `${base}/w${width}.${format === 'jpeg' ? 'jpg' : format}`,
          format,
          width,
          height: (width * 3) / 4,
          size: 1000,
        })),
      );
    const insert = (values: unknown[]) =>
      source.query(
        `INSERT INTO posts.media_items (id, post_id, position, type, status, storage_key, thumbnail_key, mime_type,
                                        variants, width, height, alt, youtube_url, youtube_id, title)
         VALUES ($1, $2, $3, $4, 'ready', $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
        values,
      );
    await insert([
      jpeg,
      post.id,
      0,
      'image',
      'media/red/w1600.jpg',
      'media/red/w400.jpg',
      'image/jpeg',
      JSON.stringify(variants('media/red', ['jpeg', 'webp', 'avif'])),
      1600,
      1200,
      'A red car',
      null,
      null,
      null,
    ]);
    await insert([
      webpOnly,
      post.id,
      1,
      'image',
      'media/w/w1600.webp',
      'media/w/w400.webp',
      'image/webp',
      JSON.stringify(variants('media/w', ['webp', 'avif'])),
      1600,
      1200,
      'Only WebP',
      null,
      null,
      null,
    ]);
    await insert([
      video,
      post.id,
      2,
      'video',
      'media/v/video.mp4',
      'media/v/poster.jpg',
      'video/mp4',
      JSON.stringify([
        { key: 'media/v/video.mp4', format: 'video', width: 1280, height: 720, size: 1 },
        { key: 'media/v/poster.jpg', format: 'poster', width: 1280, height: 720, size: 1 },
      ]),
      1280,
      720,
      'A drive',
      null,
      null,
      null,
    ]);
    await insert([
      youtube,
      post.id,
      3,
      'youtube',
      null,
      null,
      null,
      '[]',
      null,
      null,
      null,
      'https://youtu.be/dQw4w9WgXcQ',
      'dQw4w9WgXcQ',
      'The race',
    ]);
    const markdown = [
      'See [the older post](/garage/automobiles/car-one/older-post), [below](#more) and <script>alert(1)</script>.',
      '',
      `![](media:${jpeg})`,
      '',
      `![](media:${webpOnly})`,
      '',
      `![](media:${video})`,
      '',
      `![](media:${youtube})`,
      '',
      '- [x] done',
      '- [ ] to do',
      '',
      '## More',
    ].join('\n');
    const rendered = content.render(markdown, await stored.mediaOf(post.id));
    await source.query(`UPDATE posts.posts SET content = $2, content_html = $3, excerpt = $4 WHERE id = $1`, [
      post.id,
      markdown,
      rendered.contentHtml,
      rendered.excerpt,
    ]);

    const url = `${SITE}/garage/automobiles/car-one/red-car`;
    const mail = (await newsletter.post(post.id)) as NewsletterPost;
    expect(mail).toMatchObject({ id: post.id, title: 'Red car', url, published: '2024-05-01T12:00:00.000Z' });
    expect(mail.excerpt).toMatch(/^See the older post/);
    expect(mail.pictures).toEqual([
      { url: `${SITE}/uploads/media/red/w1600.jpg`, alt: 'A red car', width: 1600, height: 1200 },
    ]);
    const html = mail.html;
    expect(html).toContain(`href="${SITE}/garage/automobiles/car-one/older-post"`);
    expect(html).toContain(`href="${url}#more"`);
    expect(html).toContain(
      `<img src="${SITE}/uploads/media/red/w1600.jpg" alt="A red car" width="600" height="450" />`,
    );
    // No WebP or AVIF anywhere, no srcset, players or scripts.
    expect(html).not.toMatch(/\.webp|\.avif|srcset|<picture|<source|<video|<iframe|<script|<input/);
    // The picture with no JPEG or PNG: a link to the post, by its alt text.
    expect(html).toContain(`<a href="${url}">Only WebP</a>`);
    // The video as its poster and the YouTube video as its thumbnail, both linking to the post.
    expect(html).toContain(
      `<a href="${url}"><img src="${SITE}/uploads/media/v/poster.jpg" alt="▶ A drive" width="600" height="338" /></a>`,
    );
    expect(html).toContain(
      `<a href="${url}"><img src="https://i.ytimg.com/vi/dQw4w9WgXcQ/hqdefault.jpg" alt="▶ The race" width="480" height="360" /></a>`,
    );
    expect(html).toContain('☑ done');
    expect(html).toContain('☐ to do');
    // Every link and picture absolute.
    for (const [, value] of html.matchAll(/\s(?:href|src)="([^"]*)"/g))
      expect(value).toMatch(/^(https?|mailto):/);

    expect(mail.text).toContain(`the older post (${SITE}/garage/automobiles/car-one/older-post)`);
    expect(mail.text).toContain('[A red car]');
    expect(mail.text).toContain('## More');
    expect(mail.text).toContain(`[▶ A drive] (${url})`);
    // Tags the author typed are text in both parts; no markup of the e-mail's own.
    expect(mail.text).toContain('and <script>alert(1)</script>.');
    expect(mail.text).not.toMatch(/<(a|img|p|figure|li)\b/);
  });
});
