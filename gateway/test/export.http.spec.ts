/**
 * Taking the blog out: GET /api/admin/export through the real gateway and services streams a
 * .zip with blog.json (parsed with the contracts' schema), every original (a JPEG's GPS
 * directory emptied, other files byte for byte) and one Markdown file per post with front
 * matter; admins only.
 */
import { blogArchiveSchema, type PostView } from '@blog/contracts';
import sharp from 'sharp';
import { parse } from 'yaml';
import { fields, makeImage, makeMp4, multipart, type Part } from './support/media-fixtures.js';
import { ADMIN, api, loginAs, startTestStack, type TestStack } from './support/test-stack.js';
import { unzip } from './support/zip.js';

/** GPSLatitude's last rational (2400/100), as the little-endian EXIF sharp writes stores it. */
const LATITUDE_SECONDS = Buffer.from([0x60, 0x09, 0x00, 0x00, 0x64, 0x00, 0x00, 0x00]);

describe('export everything', () => {
  let stack: TestStack;
  let admin: string;
  let photo: Buffer;
  let png: Buffer;
  const video = makeMp4();

  const create = async (values: Record<string, string>, files: Part[] = []) => {
    const { body, contentType } = multipart([...fields(values), ...files]);
    const response = await fetch(`${stack.baseUrl}/api/posts`, {
      method: 'POST',
      headers: { 'content-type': contentType, authorization: `Bearer ${admin}` },
      body,
    });
    if (response.status !== 201)
      throw new Error(`create answered ${response.status}: ${await response.text()}`);
    return (await response.json()) as PostView;
  };
  const exportZip = async (token = admin) =>
    fetch(`${stack.baseUrl}/api/admin/export`, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });

  beforeAll(async () => {
    stack = await startTestStack();
    admin = await loginAs(stack, ADMIN.username, ADMIN.password);
    photo = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#a04020' } })
      .jpeg()
      .withExif({
        IFD0: { Artist: 'Anna' },
        IFD3: {
          GPSLatitudeRef: 'N',
          GPSLatitude: '48/1 51/1 2400/100',
          GPSLongitudeRef: 'E',
          GPSLongitude: '2/1 21/1 700/100',
        },
      })
      .toBuffer();
    expect(photo.includes(LATITUDE_SECONDS)).toBe(true);
    png = await makeImage('png');
  }, 60_000);
  afterAll(() => stack?.stop());

  it('streams a zip with blog.json, the originals (without GPS) and a Markdown file per post', async () => {
    const trip = await create(
      {
        title: 'Lake trip',
        content: 'Morning at the lake.\n\n![](media:lake)\n\nThen home.',
        tags: 'lake, roadster',
        category: 'Garage',
        submenu1: 'Automobiles',
        submenu2: 'Car One',
        date: '2024-05-06T07:08:09.000Z',
        cropSettings: JSON.stringify({ x: 12, y: -4, scale: 1.5 }),
        unifiedMedia: JSON.stringify([
          { type: 'image', order: 0, fileIndex: 0, ref: 'lake', alt: 'The lake at dawn', caption: 'Quiet' },
          { type: 'image', order: 1, fileIndex: 1, alt: 'A map' },
          { type: 'video', order: 2, fileIndex: 2 },
          { type: 'youtube', order: 3, url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ' },
        ]),
      },
      [
        { name: 'files', file: { filename: 'lake.jpg', type: 'image/jpeg', data: photo } },
        { name: 'files', file: { filename: 'map.png', type: 'image/png', data: png } },
        { name: 'files', file: { filename: 'drive.mp4', type: 'video/mp4', data: video } },
      ],
    );
    await create({
      title: 'Half done',
      content: 'Draft text.',
      status: 'draft',
      category: 'More',
      submenu1: 'General',
    });
    await create({
      title: 'Next year',
      content: 'Later.',
      date: '2099-01-01T00:00:00.000Z',
      category: 'More',
      submenu1: 'General',
    });
    await api(stack, '/api/subscribe', { body: { email: 'reader@example.com' } });

    const response = await exportZip();
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/zip');
    expect(response.headers.get('content-disposition')).toMatch(
      /^attachment; filename="blog-export-\d{4}-\d{2}-\d{2}\.zip"$/,
    );
    const files = await unzip(Buffer.from(await response.arrayBuffer()));

    const archive = blogArchiveSchema.parse(JSON.parse(files.get('blog.json')!.toString('utf8')));
    expect(archive).toMatchObject({ format: 'blog-archive', version: 1 });
    expect(archive.site).toMatchObject({ title: (await api(stack, '/api/site')).json.title });
    expect(archive.posts.map((p) => [p.title, p.status])).toEqual(
      expect.arrayContaining([
        ['Lake trip', 'published'],
        ['Half done', 'draft'],
        ['Next year', 'published'],
      ]),
    );
    const post = archive.posts.find((p) => p.id === trip.id)!;
    expect(post).toMatchObject({
      slug: 'lake-trip',
      createdAt: '2024-05-06T07:08:09.000Z',
      category: 'Garage',
      submenu1: 'Automobiles',
      submenu2: 'Car One',
      tags: ['lake', 'roadster'],
      oldPaths: [],
    });
    expect(post.media.map((m) => [m.type, m.alt ?? null, m.caption ?? null])).toEqual([
      ['image', 'The lake at dawn', 'Quiet'],
      ['image', 'A map', null],
      ['video', null, null],
      ['youtube', null, null],
    ]);
    expect(post.media[0]!.crop).toEqual({ x: 12, y: -4, scale: 1.5 });
    expect(post.media[3]!.youtubeUrl).toContain('dQw4w9WgXcQ');
    expect(post.content).toBe(`Morning at the lake.\n\n![](media:${post.media[0]!.id})\n\nThen home.`);
    expect(archive.users.map((u) => u.username)).toContain(ADMIN.username);
    expect(JSON.stringify(archive.users)).not.toMatch(/hash|\$argon2/);
    expect(archive.subscribers).toEqual([
      expect.objectContaining({ email: 'reader@example.com', status: 'pending', confirmedAt: null }),
    ]);

    // The originals: the JPEG keeps its size, its picture and its other EXIF, not its position.
    const [lake, map, drive] = post.media.map((m) => (m.file ? files.get(m.file) : undefined));
    expect(post.media[0]!.file).toBe(`media/${trip.id}/0-lake.jpg`);
    expect(lake!.length).toBe(photo.length);
    expect(lake!.includes(LATITUDE_SECONDS)).toBe(false);
    expect(lake!.includes(Buffer.from('Anna'))).toBe(true);
    expect(await sharp(lake!).metadata()).toMatchObject({ width: 64, height: 48 });
    expect(map!.equals(png)).toBe(true);
    expect(drive!.equals(video)).toBe(true);

    // The Markdown file opens anywhere: front matter, and the picture by its path in the archive.
    const markdown = files.get(`posts/2024-05-06-lake-trip.md`)!.toString('utf8');
    const [, front, body] = /^---\n([\s\S]*?)\n---\n\n([\s\S]*)$/.exec(markdown)!;
    expect(parse(front!)).toEqual({
      title: 'Lake trip',
      date: '2024-05-06T07:08:09.000Z',
      slug: 'lake-trip',
      draft: false,
      status: 'published',
      category: 'Garage/Automobiles/Car One',
      tags: ['lake', 'roadster'],
    });
    expect(body).toBe(`Morning at the lake.\n\n![](../media/${trip.id}/0-lake.jpg)\n\nThen home.\n`);
    expect([...files.keys()].filter((n) => n.startsWith('posts/'))).toHaveLength(archive.posts.length);
  }, 60_000);

  it('downloads through a one-time link the dashboard asks for', async () => {
    const link = await api(stack, '/api/admin/export/link', { method: 'POST', token: admin });
    expect(link.status).toBe(200);
    const url = (link.json as unknown as { url: string }).url;
    expect(url).toMatch(/^\/api\/admin\/export\/download\?t=/);
    const first = await fetch(`${stack.baseUrl}${url}`);
    expect(first.status).toBe(200);
    expect((await unzip(Buffer.from(await first.arrayBuffer()))).has('blog.json')).toBe(true);
    // Once only, and never as a session.
    expect((await fetch(`${stack.baseUrl}${url}`)).status).toBe(401);
    const token = new URL(url, stack.baseUrl).searchParams.get('t')!;
    expect((await api(stack, '/api/auth/account', { token })).status).toBe(401);
    expect((await fetch(`${stack.baseUrl}/api/admin/export/download?t=forged`)).status).toBe(401);
  });

  it('is for admins only', async () => {
    expect((await exportZip('')).status).toBe(401);
    await api(stack, '/api/auth/register', {
      body: { username: 'exporter', password: 'exporter-password-1' },
    });
    const user = await loginAs(stack, 'exporter', 'exporter-password-1');
    expect((await exportZip(user)).status).toBe(403);
    expect((await api(stack, '/api/admin/export/link', { method: 'POST', token: user })).status).toBe(403);
  });
});
