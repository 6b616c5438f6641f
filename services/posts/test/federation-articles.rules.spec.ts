import { randomUUID } from 'node:crypto';
import { type ArticleView } from '@blog/contracts';
import type { DataSource } from 'typeorm';
import type { PostsConfig } from '../src/config.js';
import { ContentService } from '../src/content/content.service.js';
import { ArticlesRepository } from '../src/federation/articles.repository.js';
import { ArticlesService } from '../src/federation/articles.service.js';
import { FederationController } from '../src/federation/federation.controller.js';
import { FederationEvents } from '../src/federation/federation-events.js';
import { PostgresPostsRepository } from '../src/posts/posts.repository.js';
import { PostsService } from '../src/posts/posts.service.js';
import { openFederationPosts, type FederationPosts } from './support/federation-posts.js';

const SITE = 'https://blog.example';
const RED_CAR = randomUUID();

/** Every URL an element of `html` points at (href, src, poster, each srcset candidate). */
function urlsIn(html: string): string[] {
  const urls: string[] = [];
  for (const [, name, value] of html.matchAll(/\s(href|src|poster|srcset)="([^"]*)"/g)) {
    if (name === 'srcset') urls.push(...value!.split(',').map((c) => c.trim().split(/\s+/)[0]!));
    else urls.push(value!);
  }
  return urls;
}

/** Posts as Articles on a real PostgreSQL, the posts written through PostsService. */
describe('federation articles', () => {
  let source: DataSource;
  let posts: PostsService;
  let events: FederationEvents;
  let articles: ArticlesService;
  let content: ContentService;
  let stored: PostgresPostsRepository;
  const ids: Record<'pictured' | 'older' | 'draft' | 'scheduled' | 'replied', number> = {} as never;

  const create = async (title: string, more: Record<string, string> = {}) =>
    (
      await posts.create({
        fields: {
          title,
          content: `The text of ${title}.`,
          category: 'Garage',
          submenu1: 'Automobiles',
          submenu2: 'Car One',
          status: 'published',
          date: '2024-01-01T00:00:00.000Z',
          ...more,
        },
        files: [],
      })
    ).answer.id;
  const article = async (id: number) => (await articles.get(id)) as ArticleView;
  /** The social service's round for `postId`: its due events handed over and marked done. */
  const deliver = async (postId: number) => {
    for (const event of (await events.pending(500)).filter((e) => e.postId === postId))
      await events.done(event.id);
  };
  const addPicture = async (
    postId: number,
    picture: {
      id?: string;
      position: number;
      status?: string;
      type?: string;
      alt: string | null;
      base: string;
    },
  ) => {
    const variants = [400, 800, 1600].flatMap((width) =>
      ['jpeg', 'webp', 'avif'].map((format) => ({
        key: `${picture.base}/w${width}.${format === 'jpeg' ? 'jpg' : format}`,
        format,
        width,
        height: (width * 3) / 4,
        size: 1000,
      })),
    );
    await source.query(
      `INSERT INTO posts.media_items (id, post_id, position, type, status, storage_key, mime_type, variants, width, height, alt)
       VALUES ($1, $2, $3, $4, $5, $6, 'image/jpeg', $7, 1600, 1200, $8)`,
      [
        picture.id ?? randomUUID(),
        postId,
        picture.position,
        picture.type ?? 'image',
        picture.status ?? 'ready',
        `${picture.base}/w1600.jpg`,
        JSON.stringify(variants),
        picture.alt,
      ],
    );
  };

  let rig: FederationPosts;

  beforeAll(async () => {
    rig = await openFederationPosts('federation_articles');
    ({ source, posts, events, content, stored } = rig);
    const settings = rig.settings;
    articles = new ArticlesService(new ArticlesRepository(source), settings, {
      SITE_URL: SITE,
    } as PostsConfig);

    ids.older = await create('Older post', { date: '2023-06-01T00:00:00.000Z' });
    ids.pictured = await create('Red car', {
      date: '2024-05-01T12:00:00.000Z',
      tags: 'cars, Red',
      content: [
        'See [the older post](/garage/automobiles/car-one/older-post), [below](#more),',
        '[the docs](https://docs.example/a) and [mail](mailto:me@blog.example).',
        '',
        `![A red car](media:${RED_CAR})`,
        '',
        '## More',
        '',
        'The end.',
      ].join('\n'),
    });
    // The picture the text places arrives processed, as the media worker's result would: the
    // stored HTML is rendered again then (ContentService.refreshFor, the same path).
    await addPicture(ids.pictured, { id: RED_CAR, position: 0, alt: 'A red car', base: 'media/red' });
    await addPicture(ids.pictured, { position: 1, alt: null, base: 'media/blue' });
    await addPicture(ids.pictured, {
      position: 2,
      alt: 'Still processing',
      status: 'pending',
      base: 'media/p',
    });
    await addPicture(ids.pictured, { position: 3, alt: 'A video', type: 'video', base: 'media/v' });
    await source.transaction(async (manager) => {
      const [post] = (await manager.query(`SELECT id, content FROM posts.posts WHERE id = $1 FOR UPDATE`, [
        ids.pictured,
      ])) as { id: number; content: string }[];
      const item = (await stored.mediaOf(ids.pictured, manager)).find((m) => m.id === RED_CAR)!;
      await content.refreshFor(manager, post!, item);
    });
    ids.draft = await create('A draft', { status: 'draft', date: '2024-06-01T00:00:00.000Z' });
    ids.scheduled = await create('Scheduled', { date: '2099-01-01T00:00:00.000Z' });
    ids.replied = await create('Much discussed', { date: '2024-04-01T00:00:00.000Z' });
  });
  afterAll(async () => {
    await rig?.close();
  });

  it('shows a visible post with absolute links, pictures with their alt text, its URL, dates and tags', async () => {
    const view = await article(ids.pictured);
    const url = `${SITE}/garage/automobiles/car-one/red-car`;
    expect(view).toMatchObject({
      id: ids.pictured,
      title: 'Red car',
      url,
      published: '2024-05-01T12:00:00.000Z',
      tags: ['cars', 'Red'],
      replies: { total: 0, items: [] },
    });
    expect(view.excerpt).toMatch(/^See the older post, below, the docs and mail\./);
    expect(Date.parse(view.updated!)).toBeGreaterThan(Date.parse('2026-01-01'));
    // The processed pictures, in order, each as the page draws it (the 800 px fallback); not the
    // one still processing, nor the video.
    expect(view.images).toEqual([
      { url: `${SITE}/uploads/media/red/w800.jpg`, mediaType: 'image/jpeg', alt: 'A red car' },
      { url: `${SITE}/uploads/media/blue/w800.jpg`, mediaType: 'image/jpeg', alt: '' },
    ]);

    // The HTML is the page's, every URL in it absolute: links, the inline picture and its sources.
    const stored = (await source.query(`SELECT content_html FROM posts.posts WHERE id = $1`, [
      ids.pictured,
    ])) as {
      content_html: string;
    }[];
    expect(stored[0]!.content_html).toContain('src="/uploads/media/red/w800.jpg"');
    expect(view.html).toContain(`href="${SITE}/garage/automobiles/car-one/older-post"`);
    expect(view.html).toContain(`href="${url}#more"`);
    expect(view.html).toContain('href="https://docs.example/a"');
    expect(view.html).toContain('href="mailto:me@blog.example"');
    expect(view.html).toContain(`src="${SITE}/uploads/media/red/w800.jpg"`);
    expect(view.html).toContain(
      `${SITE}/uploads/media/red/w400.webp 400w, ${SITE}/uploads/media/red/w800.webp 800w`,
    );
    expect(view.html).toContain('alt="A red car"');
    expect(view.html).toContain('<h2 id="more">More</h2>');
    const urls = urlsIn(view.html);
    expect(urls.length).toBeGreaterThan(8);
    expect(urls.filter((u) => !/^(https:\/\/|mailto:)/.test(u))).toEqual([]);
  });

  it('lists approved comments as replies: Note ids for remote ones, the page anchor for local ones, 100 at most', async () => {
    const add = async (status: string, remote: string | null, at: string) =>
      (
        (await source.query(
          `INSERT INTO posts.comments (post_id, status, content_html, author_name, local, remote_object_id, created_at)
           VALUES ($1, $2, '<p>Hi</p>', 'Someone', $3, $4, $5) RETURNING id`,
          [ids.replied, status, remote === null, remote, at],
        )) as { id: number }[]
      )[0]!.id;
    const local = await add('approved', null, '2024-04-02T00:00:00Z');
    await add('approved', 'https://social.example/notes/1', '2024-04-03T00:00:00Z');
    await add('pending', 'https://social.example/notes/2', '2024-04-01T00:00:00Z');
    await add('spam', 'https://social.example/notes/3', '2024-04-01T00:00:00Z');
    expect((await article(ids.replied)).replies).toEqual({
      total: 2,
      items: [`${SITE}/post/${ids.replied}#comment-${local}`, 'https://social.example/notes/1'],
    });

    await source.query(
      `INSERT INTO posts.comments (post_id, status, content_html, author_name, local, created_at)
       SELECT $1, 'approved', '<p>More</p>', 'Reader', true, '2024-05-01T00:00:00Z'::timestamptz + n * interval '1 minute'
         FROM generate_series(1, 120) n`,
      [ids.replied],
    );
    const replies = (await article(ids.replied)).replies;
    expect(replies.total).toBe(122);
    expect(replies.items).toHaveLength(100);
    expect(replies.items.slice(0, 2)).toEqual([
      `${SITE}/post/${ids.replied}#comment-${local}`,
      'https://social.example/notes/1',
    ]);
  });

  it('pages the outbox newest first with the total of visible posts (no draft, no scheduled post)', async () => {
    const all = await articles.outbox(0, 100);
    expect(all.total).toBe(3);
    expect(all.items.map((a) => a.id)).toEqual([ids.pictured, ids.replied, ids.older]);
    const pictured = await article(ids.pictured);
    expect(all.items[0]).toEqual({ id: ids.pictured, published: pictured.published });
    const second = await articles.outbox(1, 1);
    expect(second).toEqual({
      total: 3,
      items: [{ id: ids.replied, published: (await article(ids.replied)).published }],
    });
    expect(await articles.outbox(3, 10)).toEqual({ total: 3, items: [] });

    // Through the RPC handler: the contract's defaults and bounds apply.
    const controller = new FederationController(articles, events);
    const envelope = (data: unknown) => ({ requestId: 'r', data });
    expect((await controller.outbox(envelope({}))).items).toHaveLength(3);
    expect(() => controller.outbox(envelope({ limit: 1000 }))).toThrow();
    expect(await controller.article(envelope({ postId: String(ids.older) }))).toEqual(
      await article(ids.older),
    );
  });

  it('answers null for a draft, a scheduled post and a post that never was', async () => {
    expect(await articles.get(ids.draft)).toBeNull();
    expect(await articles.get(ids.scheduled)).toBeNull();
    expect(await articles.get(999_999)).toBeNull();
  });

  it('answers gone once a delivered post is unpublished or deleted; null when it never went out', async () => {
    const deliveredThenDraft = await create('Delivered, then a draft');
    await deliver(deliveredThenDraft);
    await posts.update({
      id: deliveredThenDraft,
      fields: {
        title: 'Delivered, then a draft',
        content: 'x',
        category: 'Garage',
        submenu1: 'Automobiles',
        submenu2: 'Car One',
        status: 'draft',
      },
      files: [],
    });
    expect(await articles.get(deliveredThenDraft)).toEqual({ gone: true });

    const deliveredThenDeleted = await create('Delivered, then deleted');
    expect((await articles.get(deliveredThenDeleted)) as ArticleView).toMatchObject({
      title: 'Delivered, then deleted',
    });
    await deliver(deliveredThenDeleted);
    await posts.delete(deliveredThenDeleted);
    expect(await articles.get(deliveredThenDeleted)).toEqual({ gone: true });

    // Deleted while its Create was still waiting: followers never saw it, so it is simply unknown.
    const neverDelivered = await create('Deleted before delivery');
    await posts.delete(neverDelivered);
    expect(await articles.get(neverDelivered)).toBeNull();
  });
});
