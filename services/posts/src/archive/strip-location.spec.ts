/**
 * The export's location stripping on its own: pictures keep every pixel and lose their
 * metadata chunks, and a hostile or broken file ends in a clear "left out" at once, never a
 * hang or a crash (the exiftool check over whole exports is in gateway/test/export.archive.http.spec.ts).
 */
import { resolveBinaries } from '@blog/server-kit';
import { Readable } from 'node:stream';
import sharp from 'sharp';
import { cleanGif } from './image-metadata.js';
import { LeftOutReason, LocationStripper, type Stripped } from './strip-location.js';

const XMP = '<x:xmpmeta xmlns:x="adobe:ns:meta/">GPSLatitude 48,51.4N</x:xmpmeta>';
const stripper = new LocationStripper(resolveBinaries().ffmpeg);

async function bytesOf(stripped: Stripped): Promise<Buffer> {
  if (!('stream' in stripped)) throw new Error(`left out: ${stripped.leftOut}`);
  const chunks: Buffer[] = [];
  for await (const chunk of stripped.stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Delivered in small chunks, as storage streams do. */
const streamOf = (data: Buffer) =>
  Readable.from(
    Array.from({ length: Math.ceil(data.length / 1000) }, (_, i) => data.subarray(i * 1000, i * 1000 + 1000)),
  );

const pixels = (data: Buffer) => sharp(data).raw().toBuffer();

/** A GIF with a comment and an XMP application extension (sharp writes neither). */
async function gifWithMetadata(): Promise<Buffer> {
  const gif = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#208040' } })
    .gif()
    .toBuffer();
  const packed = gif[10]!;
  const at = 13 + (packed & 0x80 ? 3 * 2 ** ((packed & 7) + 1) : 0);
  const comment = Buffer.concat([Buffer.from([0x21, 0xfe, 5]), Buffer.from('Paris'), Buffer.from([0])]);
  const xmp = Buffer.from(XMP, 'latin1');
  const application = Buffer.concat([
    Buffer.from([0x21, 0xff, 11]),
    Buffer.from('XMP DataXMP', 'latin1'),
    Buffer.from([xmp.length]),
    xmp,
    Buffer.from([0]),
  ]);
  return Buffer.concat([gif.subarray(0, at), comment, application, gif.subarray(at)]);
}

describe('LocationStripper', () => {
  it("empties a JPEG's GPS directory and drops its XMP, streaming the image data as stored", async () => {
    const jpeg = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#a04020' } })
      .jpeg()
      .withExif({
        IFD0: { Artist: 'Anna' },
        IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '48/1 51/1 2400/100' },
      })
      .withXmp(XMP)
      .toBuffer();
    const clean = await bytesOf(await stripper.strip(streamOf(jpeg), 'image/jpeg'));
    expect(clean.includes(Buffer.from('GPSLatitude'))).toBe(false);
    expect(clean.includes(Buffer.from('Anna'))).toBe(true);
    expect((await sharp(clean).metadata()).exif).toBeDefined();
    expect((await pixels(clean)).equals(await pixels(jpeg))).toBe(true);
  });

  it.each(['png', 'webp'] as const)("drops a %s's EXIF and XMP, keeping its pixels", async (format) => {
    const image = await sharp({ create: { width: 16, height: 16, channels: 4, background: '#4080c0' } })
      .toFormat(format)
      .withExif({
        IFD0: { Artist: 'Anna' },
        IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '48/1 51/1 2400/100' },
      })
      .withXmp(XMP)
      .toBuffer();
    const clean = await bytesOf(await stripper.strip(streamOf(image), `image/${format}`));
    const metadata = await sharp(clean).metadata();
    expect([metadata.exif, metadata.xmp]).toEqual([undefined, undefined]);
    expect(clean.includes(Buffer.from('GPSLatitude'))).toBe(false);
    expect((await pixels(clean)).equals(await pixels(image))).toBe(true);
  });

  it("drops a GIF's comments and XMP, keeping its frames", async () => {
    const gif = await gifWithMetadata();
    expect(gif.includes(Buffer.from('GPSLatitude'))).toBe(true);
    const clean = await bytesOf(await stripper.strip(streamOf(gif), 'image/gif'));
    expect(clean.includes(Buffer.from('GPSLatitude'))).toBe(false);
    expect(clean.includes(Buffer.from('Paris'))).toBe(false);
    expect((await pixels(clean)).equals(await pixels(gif))).toBe(true);
  });

  describe('hostile or broken files end in "left out", at once', () => {
    const png = Buffer.from('89504e470d0a1a0a', 'hex');
    const chunk = (length: number, type: string) => {
      const head = Buffer.alloc(8);
      head.writeUInt32BE(length);
      head.write(type, 4, 'latin1');
      return head;
    };
    const riff = (body: Buffer) => {
      const head = Buffer.from('RIFF\0\0\0\0WEBP', 'latin1');
      head.writeUInt32LE(4 + body.length, 4);
      return Buffer.concat([head, body]);
    };
    const cases: [string, Buffer, string, string][] = [
      [
        'a PNG chunk longer than the file',
        Buffer.concat([png, chunk(0xffffffff, 'IHDR')]),
        'image/png',
        LeftOutReason.unreadablePicture,
      ],
      [
        'a PNG cut inside a chunk header',
        Buffer.concat([png, Buffer.from([0, 0, 0, 13, 0x49])]),
        'image/png',
        LeftOutReason.unreadablePicture,
      ],
      [
        'a WebP chunk longer than the file',
        riff(Buffer.from('VP8X\xff\xff\xff\x7f', 'latin1')),
        'image/webp',
        LeftOutReason.unreadablePicture,
      ],
      [
        'a GIF whose blocks run past its end',
        Buffer.from('GIF89a\x08\x00\x08\x00\x00\x00\x00\x21\xff\x0bXMP DataXMP\xff', 'latin1'),
        'image/gif',
        LeftOutReason.unreadablePicture,
      ],
      [
        'a GIF with an unknown block',
        Buffer.from('GIF89a\x08\x00\x08\x00\x00\x00\x00\x99', 'latin1'),
        'image/gif',
        LeftOutReason.unreadablePicture,
      ],
      [
        'a JPEG without image data',
        Buffer.concat([Buffer.from([0xff, 0xd8]), Buffer.alloc(5000, 0x41)]),
        'image/jpeg',
        LeftOutReason.unreadablePicture,
      ],
      [
        'a JPEG whose segments stop short',
        Buffer.from([0xff, 0xd8, 0xff, 0xe1, 0xff, 0xff, 0x45, 0x78, 0x69, 0x66, 0, 0]),
        'image/jpeg',
        LeftOutReason.unreadablePicture,
      ],
      [
        'an AVIF picture (an ISO-BMFF file, not a video)',
        Buffer.concat([Buffer.from('\0\0\0\x1cftypavif', 'latin1'), Buffer.alloc(200, 3)]),
        'image/avif',
        LeftOutReason.unknownPicture,
      ],
      [
        'a picture format it cannot clean',
        Buffer.from('II*\0\x08\0\0\0\0\0\0\0\0\0', 'latin1'),
        'image/tiff',
        LeftOutReason.unknownPicture,
      ],
      ['a picture of a few bytes', Buffer.from('abc'), 'image/png', LeftOutReason.unknownPicture],
      [
        'a video that is not one',
        Buffer.concat([Buffer.from('\0\0\0\x18ftypisom', 'latin1'), Buffer.alloc(4000, 7)]),
        'video/mp4',
        LeftOutReason.unreadableVideo,
      ],
      [
        'a video in a container it does not know',
        Buffer.alloc(64, 1),
        'video/x-unheard-of',
        LeftOutReason.unreadableVideo,
      ],
    ];
    it.each(cases)('%s', async (_name, data, mimeType, reason) => {
      const started = Date.now();
      expect(await stripper.strip(streamOf(data), mimeType)).toEqual({ leftOut: reason });
      expect(Date.now() - started).toBeLessThan(5000);
    });

    it('a GIF with a sub-block length past the end is refused by the parser itself', () => {
      expect(cleanGif(Buffer.from('GIF89a\x08\x00\x08\x00\x00\x00\x00\x21\xfe\x40abc', 'latin1'))).toBeNull();
    });
  });
});
