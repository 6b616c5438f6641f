/**
 * Taking the blog out: the archive an export makes, through the real gateway and services: a
 * .zip with blog.json (parsed with the contracts' schema), every original without location data
 * (checked by exiftool over every file: EXIF, XMP, PNG/WebP metadata, QuickTime/MP4 location
 * atoms; pixels unchanged), a video that cannot be cleaned left out and listed in blog.json's
 * notes, and one Markdown file per post with front matter.
 */
import { blogArchiveSchema } from '@blog/contracts';
import { resolveBinaries, run } from '@blog/server-kit';
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import sharp from 'sharp';
import { parse } from 'yaml';
import { useExportStack } from './support/export-stack.js';
import { makeImage, makeMp4 } from './support/media-fixtures.js';
import { ADMIN, api, type TestStack } from './support/test-stack.js';
import { unzip } from './support/zip.js';

const XMP_WITH_GPS =
  '<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/">' +
  '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about=""' +
  ' xmlns:exif="http://ns.adobe.com/exif/1.0/" exif:GPSLatitude="48,51.4N" exif:GPSLongitude="2,21.1E"/>' +
  '</rdf:RDF></x:xmpmeta><?xpacket end="w"?>';
const EXIF_WITH_GPS = {
  IFD0: { Artist: 'Anna' },
  IFD3: {
    GPSLatitudeRef: 'N',
    GPSLatitude: '48/1 51/1 2400/100',
    GPSLongitudeRef: 'E',
    GPSLongitude: '2/1 21/1 700/100',
  },
};
/** A tag that tells a place: EXIF/XMP GPS*, QuickTime Location / GPSCoordinates (©xyz), Apple's ISO6709 key. */
const PLACE_TAG = /GPS|Location|xyz|ISO6709/i;

function installed(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}
/** CI installs exiftool (.ci/run); elsewhere the test says why it did not run. */
const withExiftool: (name: string, fn: jest.ProvidesCallback, timeout?: number) => void = installed(
  'exiftool',
)
  ? it
  : (name, fn, timeout) => it.skip(`${name} (skipped: exiftool not installed)`, fn, timeout);

/** Every tag exiftool reads in each file under `dir`, by path relative to it. */
async function exiftool(dir: string): Promise<Map<string, Record<string, unknown>>> {
  const { stdout } = await run('exiftool', ['-json', '-G', '-a', '-r', '-ext', '*', dir]);
  const entries = JSON.parse(stdout.toString('utf8')) as Record<string, unknown>[];
  return new Map(entries.map((tags) => [String(tags.SourceFile).slice(dir.length + 1), tags]));
}

const placeTags = (tags: Record<string, unknown>) => Object.keys(tags).filter((tag) => PLACE_TAG.test(tag));

/** An MP4 with a location in its udta and keys (`use_metadata_tags`), and a QuickTime file with a ©xyz atom. */
async function videosWithLocation(): Promise<{ mp4: Buffer; mov: Buffer }> {
  const { ffmpeg } = resolveBinaries();
  const dir = await mkdtemp(join(tmpdir(), 'export-fixtures-'));
  try {
    const source = ['-f', 'lavfi', '-i', 'testsrc=size=64x48:rate=10', '-t', '1', '-c:v', 'mpeg4'];
    const location = [
      '-metadata',
      'location=+48.8584+002.2945/',
      '-metadata',
      'location-eng=+48.8584+002.2945/',
    ];
    await run(ffmpeg, [
      '-v',
      'error',
      '-y',
      ...source,
      ...location,
      '-movflags',
      'use_metadata_tags',
      join(dir, 'a.mp4'),
    ]);
    await run(ffmpeg, ['-v', 'error', '-y', ...source, ...location, join(dir, 'b.mov')]);
    return { mp4: await readFile(join(dir, 'a.mp4')), mov: await readFile(join(dir, 'b.mov')) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** GPSLatitude's last rational (2400/100), as the little-endian EXIF sharp writes stores it. */
const LATITUDE_SECONDS = Buffer.from([0x60, 0x09, 0x00, 0x00, 0x64, 0x00, 0x00, 0x00]);

describe('the export archive', () => {
  const rig = useExportStack();
  const { create, exportZip } = rig;
  let stack: TestStack;
  let photo: Buffer;
  let png: Buffer;
  const video = makeMp4();

  beforeAll(async () => {
    stack = rig.stack;
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
    // Not a video ffmpeg can read, so its location could not be removed: left out, and said so.
    expect(drive).toBeUndefined();
    expect(archive.notes).toEqual([
      { file: post.media[2]!.file, note: expect.stringMatching(/^left out: a video ffmpeg could not read/) },
    ]);

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

  withExiftool(
    'leaves no location in any file: EXIF, XMP, PNG and WebP metadata, MP4 and QuickTime atoms (exiftool reads every file)',
    async () => {
      const pictures = await Promise.all(
        (['jpeg', 'png', 'webp'] as const).map((format) =>
          sharp({ create: { width: 64, height: 48, channels: 3, background: '#3060a0' } })
            .toFormat(format)
            .withExif(EXIF_WITH_GPS)
            .withXmp(XMP_WITH_GPS)
            .toBuffer(),
        ),
      );
      const { mp4, mov } = await videosWithLocation();
      const uploads = [
        { filename: 'here.jpg', type: 'image/jpeg', data: pictures[0]! },
        { filename: 'here.png', type: 'image/png', data: pictures[1]! },
        { filename: 'here.webp', type: 'image/webp', data: pictures[2]! },
        { filename: 'here.mp4', type: 'video/mp4', data: mp4 },
        { filename: 'here.mov', type: 'video/quicktime', data: mov },
      ];
      const dir = await mkdtemp(join(tmpdir(), 'export-check-'));
      try {
        // The fixtures do tell the place, to each reader.
        await mkdir(join(dir, 'in'));
        for (const upload of uploads) await writeFile(join(dir, 'in', upload.filename), upload.data);
        const before = await exiftool(join(dir, 'in'));
        for (const upload of uploads)
          expect([upload.filename, placeTags(before.get(upload.filename)!).length > 0]).toEqual([
            upload.filename,
            true,
          ]);

        const located = await create(
          {
            title: 'Where I was',
            content: 'Here.',
            category: 'More',
            submenu1: 'General',
            unifiedMedia: JSON.stringify(
              uploads.map((upload, i) => ({
                type: upload.type.startsWith('video/') ? 'video' : 'image',
                order: i,
                fileIndex: i,
              })),
            ),
          },
          uploads.map((file) => ({ name: 'files', file })),
        );
        const response = await exportZip();
        expect(response.status).toBe(200);
        const files = await unzip(Buffer.from(await response.arrayBuffer()));
        for (const [name, data] of files) {
          await mkdir(dirname(join(dir, 'out', name)), { recursive: true });
          await writeFile(join(dir, 'out', name), data);
        }
        const after = await exiftool(join(dir, 'out'));
        expect(after.size).toBe(files.size);
        for (const [name, tags] of after) expect([name, placeTags(tags)]).toEqual([name, []]);

        const archive = blogArchiveSchema.parse(JSON.parse(files.get('blog.json')!.toString('utf8')));
        const exported = archive.posts.find((p) => p.id === located.id)!.media.map((m) => files.get(m.file!));
        // Every file is there, the pictures with the same pixels and the EXIF that tells no place.
        expect(exported.every(Boolean)).toBe(true);
        for (const [i, picture] of pictures.entries()) {
          const [was, is] = await Promise.all(
            [picture, exported[i]!].map((data) => sharp(data).raw().toBuffer()),
          );
          expect(is.equals(was)).toBe(true);
        }
        expect(after.get(`media/${located.id}/0-here.jpg`)).toMatchObject({ 'EXIF:Artist': 'Anna' });
        // The videos keep their streams.
        for (const i of [3, 4])
          expect(after.get(archive.posts.find((p) => p.id === located.id)!.media[i]!.file!)).toMatchObject({
            'QuickTime:ImageWidth': 64,
            'QuickTime:ImageHeight': 48,
          });
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
    120_000,
  );
});
