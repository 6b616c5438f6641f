/**
 * A post's life through the gateway (real services, real files in storage): created with real
 * JPEG, PNG, WebP, GIF and MP4 files and a YouTube link, read by id and slug (ETag, 304),
 * written by admins only, its slug numbered on collision, updated (media reordered, dropped with
 * their files, added), its main image chosen, and deleted with its files.
 */
import type { ObjectStorage } from '@blog/server-kit';
import { fields, makeImage, multipart, type Part } from './support/media-fixtures.js';
import { usePostsStack } from './support/posts-stack.js';
import { api, type TestStack } from './support/test-stack.js';
import { makeRealMp4 } from '../../services/media/test/fixtures.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('posts through the gateway (real services, real files in storage)', () => {
  const rig = usePostsStack();
  const { send, stored, originals, whenReady } = rig;
  let stack: TestStack;
  let storage: ObjectStorage;
  let admin: string;
  let user: string;
  beforeAll(() => ({ stack, storage, admin, user } = rig));

  let created: Json;

  it('creates a post with real JPEG, PNG, WebP, GIF and MP4 files and a YouTube link', async () => {
    const parts: Part[] = [
      ...fields({
        title: 'New tyres for the roadster',
        content: 'Fitted four new tyres today.',
        date: '2025-03-04T14:30:00Z',
        category: 'Garage',
        submenu1: 'Automobiles',
        submenu2: 'Car One',
        tags: 'tyres, wheels,  tyres ',
        youtubeUrls: JSON.stringify(['https://www.youtube.com/watch?v=dQw4w9WgXcQ']),
        cropSettings: JSON.stringify({ x: 10, y: -5, scale: 1.5 }),
      }),
      { name: 'files', file: { filename: 'front.jpg', type: 'image/jpeg', data: await makeImage('jpeg') } },
      { name: 'files', file: { filename: 'side.png', type: 'image/png', data: await makeImage('png') } },
      { name: 'files', file: { filename: 'rear.webp', type: 'image/webp', data: await makeImage('webp') } },
      { name: 'files', file: { filename: 'spin.gif', type: 'image/gif', data: await makeImage('gif') } },
      { name: 'files', file: { filename: 'drive.mp4', type: 'video/mp4', data: await makeRealMp4() } },
    ];
    const response = await send('POST', '/api/posts', parts);
    expect(response.status).toBe(201);
    // The admin's answer lists every item, pending until the media worker has processed it.
    expect(response.json.mediaReady).toBe(false);
    expect(response.json.media.filter((m: Json) => m.type !== 'youtube').map((m: Json) => m.status)).toEqual(
      Array(5).fill('pending'),
    );
    expect(await originals()).toHaveLength(5);
    created = await whenReady(response.json.id);
    expect(created).toMatchObject({
      title: 'New tyres for the roadster',
      slug: 'new-tyres-for-the-roadster',
      category: 'Garage',
      submenu1: 'Automobiles',
      submenu2: 'Car One',
      submenu: 'Automobiles/Car One',
      tags: ['tyres', 'wheels'],
      created_at: '2025-03-04T14:30:00.000Z',
      url: '/garage/automobiles/car-one/new-tyres-for-the-roadster',
    });
    expect(created.images.map((i: Json) => i.name)).toEqual([
      'front.jpg',
      'side.png',
      'rear.webp',
      'spin.gif',
    ]);
    expect(created.images.map((i: Json) => i.order)).toEqual([0, 1, 2, 3]);
    expect(created.images[0]).toMatchObject({ cropX: 10, cropY: -5, cropScale: 1.5 });
    expect(created.videos).toEqual([expect.objectContaining({ name: 'drive.mp4', order: 4 })]);
    expect(created.youtubeVideos).toEqual([
      expect.objectContaining({
        url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
        embedUrl: 'https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ',
        thumbnailUrl: 'https://i.ytimg.com/vi/dQw4w9WgXcQ/hqdefault.jpg',
        isShorts: false,
        order: 5,
        title: 'YouTube Video 6',
      }),
    ]);
    // The main image is shown through its 400x128 crop preview once processed.
    expect(created.images[0].croppedPreviewPath).toMatch(/\/crop-[0-9a-f]{8}-crop\.jpg$/);
    expect(created.mainMedia).toEqual({
      type: 'image',
      path: created.images[0].croppedPreviewPath,
      alt: null,
    });
    expect(created.media.map((m: Json) => m.status)).toEqual(Array(6).fill('ready'));
    const types = await Promise.all(
      created.media
        .filter((m: Json) => m.path)
        .map((m: Json) => storage.stat(m.path.slice('/uploads/'.length))),
    );
    expect(types.map((t) => t?.contentType)).toEqual([
      'image/jpeg',
      'image/png',
      'image/webp',
      'image/gif',
      'video/mp4',
    ]);
    for (const image of created.images)
      expect(image.path).toMatch(/^\/uploads\/media\/items\/[0-9a-f-]{36}\/[0-9a-f]{16}\/w\d+\.\w+$/);
    expect(created.videos[0].thumbnailPath).toMatch(/\/poster\.jpg$/);
    // No public answer names an original.
    expect(JSON.stringify(created)).not.toContain('private/');
  });

  it('reads it by id and by slug, with ETag and 304', async () => {
    const byId = await fetch(`${stack.baseUrl}/api/posts/${created.id}`);
    expect(byId.status).toBe(200);
    const etag = byId.headers.get('etag');
    expect(etag).toBeTruthy();
    // A visitor's read is the admin's answer without the admin's own field.
    const { sendByEmail, ...visitorView } = created;
    expect(sendByEmail).toBe(false);
    expect(await byId.json()).toEqual(visitorView);
    const bySlug = await api(stack, `/api/posts/by-slug/${created.slug}`);
    expect(bySlug.json).toEqual(visitorView);
    const again = await fetch(`${stack.baseUrl}/api/posts/${created.id}`, {
      headers: { 'if-none-match': etag! },
    });
    expect(again.status).toBe(304);
  });

  it('keeps writes for admins: 401 without a token, 403 for other roles', async () => {
    const parts = fields({ title: 'Nope', category: 'Projects' });
    const { body, contentType } = multipart(parts);
    const anonymous = await fetch(`${stack.baseUrl}/api/posts`, {
      method: 'POST',
      headers: { 'content-type': contentType },
      body,
    });
    expect(anonymous.status).toBe(401);
    expect((await send('POST', '/api/posts', parts, user)).status).toBe(403);
    expect((await api(stack, `/api/posts/${created.id}`, { method: 'DELETE', token: user })).status).toBe(
      403,
    );
  });

  it('numbers slugs on collision and never uses a tree segment as a slug', async () => {
    const first = await send(
      'POST',
      '/api/posts',
      fields({ title: 'New tyres for the roadster', category: 'Projects' }),
    );
    expect(first.json.slug).toBe('new-tyres-for-the-roadster-2');
    const reserved = await send('POST', '/api/posts', fields({ title: 'Automobiles', category: 'Garage' }));
    expect(reserved.json.slug).toBe('automobiles-2');
    expect(reserved.json.url).toBe('/garage/automobiles/automobiles-2');
    for (const id of [first.json.id, reserved.json.id])
      await api(stack, `/api/posts/${id}`, { method: 'DELETE', token: admin });
  });

  it('updates: reorders, drops media (deleting their files), adds new ones, keeps the slug', async () => {
    const [front, side, rear, gif] = created.images;
    const unifiedMedia = [
      { type: 'image', path: rear.path, order: 0 },
      { type: 'youtube', url: 'https://youtu.be/dQw4w9WgXcQ', order: 1, title: 'The classic' },
      { type: 'image', isNew: true, name: 'extra.png', order: 2 },
      { type: 'image', path: front.path, order: 3 },
      { type: 'youtube', url: 'https://www.youtube.com/shorts/abcdefghijk', order: 4 },
    ];
    const response = await send('PUT', `/api/posts/${created.id}`, [
      ...fields({
        title: 'New tyres, updated',
        content: 'Updated text.',
        category: 'Garage',
        submenu1: 'Automobiles',
        submenu2: 'Car One',
        tags: JSON.stringify(['tyres']),
        unifiedMedia: JSON.stringify(unifiedMedia),
      }),
      { name: 'files', file: { filename: 'extra.png', type: 'image/png', data: await makeImage('png') } },
    ]);
    expect(response.status).toBe(200);
    const post = await whenReady(response.json.id);
    expect(post.slug).toBe(created.slug);
    expect(post.title).toBe('New tyres, updated');
    expect(post.media.map((m: Json) => m.type)).toEqual(['image', 'youtube', 'image', 'image', 'youtube']);
    expect(post.media.map((m: Json) => m.order)).toEqual([0, 1, 2, 3, 4]);
    expect(post.media[0].path).toBe(rear.path);
    expect(post.media[1]).toMatchObject({ title: 'The classic', id: created.youtubeVideos[0].id });
    expect(post.media[4]).toMatchObject({
      isShorts: true,
      embedUrl: 'https://www.youtube-nocookie.com/embed/abcdefghijk',
    });
    expect(post.videos).toEqual([]);
    const keys = await stored();
    for (const gone of [side, gif, created.videos[0]])
      expect(keys).not.toContain(gone.path.slice('/uploads/'.length));
    for (const kept of [front, rear]) expect(keys).toContain(kept.path.slice('/uploads/'.length));
    expect(await originals()).toHaveLength(3);
    expect(keys.filter((k) => !k.startsWith('private/') && !k.startsWith('media/'))).toEqual([]);
    created = post;
  });

  it('moves the image named by mainImageIndex to the front', async () => {
    const response = await send('PUT', `/api/posts/${created.id}`, [
      ...fields({
        title: created.title,
        category: 'Garage',
        submenu1: 'Automobiles',
        submenu2: 'Car One',
        existingFiles: JSON.stringify(
          created.media.map((m: Json) => ({ path: m.path, url: m.url, type: m.type, order: m.order })),
        ),
        mainImageIndex: '2',
      }),
    ]);
    expect(response.status).toBe(200);
    expect(response.json.media[0].path).toBe(created.images[2].path);
    expect(response.json.mainMedia.type).toBe('image');
    expect(response.json.media).toHaveLength(5);
  });

  it('refuses an update that names a file of another post', async () => {
    const response = await send('PUT', `/api/posts/${created.id}`, [
      ...fields({
        title: 'x',
        category: 'Projects',
        existingFiles: JSON.stringify([{ path: '/uploads/media/2020/01/not-mine.jpg', type: 'image' }]),
      }),
    ]);
    expect(response.status).toBe(400);
    expect(response.json.error).toMatch(/existingFiles\[0\]: unknown file/);
  });

  it('deletes a post with its files', async () => {
    const response = await api(stack, `/api/posts/${created.id}`, { method: 'DELETE', token: admin });
    expect(response.status).toBe(200);
    expect(await stored()).toEqual([]);
    expect((await api(stack, `/api/posts/${created.id}`)).status).toBe(404);
    expect((await api(stack, `/api/posts/${created.id}`, { method: 'DELETE', token: admin })).status).toBe(
      404,
    );
  });
});
