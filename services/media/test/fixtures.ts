import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync, crc32 } from 'node:zlib';
import sharp from 'sharp';
import { resolveBinaries } from '@blog/server-kit';

/** A JPEG stored sideways (EXIF orientation 6: shown rotated 90° clockwise) with a GPS position. */
export async function makeRotatedJpegWithGps(width = 60, height = 40): Promise<Buffer> {
  // Left half red, right half blue: upright (rotated 90° cw), red is on top.
  return sharp({ create: { width, height, channels: 3, background: { r: 255, g: 0, b: 0 } } })
    .composite([
      {
        input: {
          create: { width: width / 2, height, channels: 3, background: { r: 0, g: 0, b: 255 } },
        },
        left: width / 2,
        top: 0,
      },
    ])
    .jpeg()
    .withMetadata({ orientation: 6 })
    .withExif({
      IFD0: { Make: 'TestCam', Orientation: '6' },
      IFD3: {
        GPSLatitudeRef: 'N',
        GPSLatitude: '51/1 30/1 0/1',
        GPSLongitudeRef: 'W',
        GPSLongitude: '0/1 7/1 0/1',
      },
    })
    .toBuffer();
}

/** A photo with some detail (noise, upscaled so it is quick to make, compresses like a photo) and a GPS position. */
export async function makePhoto(width: number, height: number, quality = 90): Promise<Buffer> {
  const small = { width: Math.max(8, Math.round(width / 16)), height: Math.max(8, Math.round(height / 16)) };
  const noise = await sharp({
    create: { ...small, channels: 3, noise: { type: 'gaussian', mean: 128, sigma: 50 } },
  })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return sharp(noise.data, { raw: noise.info })
    .resize(width, height, { kernel: 'cubic' })
    .jpeg({ quality })
    .withExif({ IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '48/1 51/1 0/1' } })
    .toBuffer();
}

export async function makeTransparentPng(): Promise<Buffer> {
  return sharp({
    create: { width: 80, height: 60, channels: 4, background: { r: 0, g: 128, b: 0, alpha: 0.25 } },
  })
    .png()
    .toBuffer();
}

/** A three-frame animated GIF. */
export async function makeAnimatedGif(): Promise<Buffer> {
  const frames = await Promise.all(
    [
      { r: 255, g: 0, b: 0 },
      { r: 0, g: 255, b: 0 },
      { r: 0, g: 0, b: 255 },
    ].map((background) =>
      sharp({ create: { width: 40, height: 30, channels: 3, background } })
        .raw()
        .toBuffer(),
    ),
  );
  return sharp(Buffer.concat(frames), { raw: { width: 40, height: 90, channels: 3, pageHeight: 30 } })
    .gif({ delay: [100, 100, 100], loop: 0 })
    .toBuffer();
}

/** JPEG magic bytes followed by garbage. */
export function makeCorruptJpeg(): Buffer {
  return Buffer.concat([
    Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]),
    Buffer.from('JFIF\0'),
    Buffer.alloc(3000, 0x5a),
  ]);
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body) >>> 0);
  return Buffer.concat([length, body, crc]);
}

/** A decompression bomb: a tiny PNG that declares 50000x50000 pixels. */
export function makePngBomb(): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(50_000, 0);
  ihdr.writeUInt32BE(50_000, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // greyscale
  const rows = deflateSync(Buffer.alloc(50_001 * 16));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', rows),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A real 2-second 320x240 MP4 made with ffmpeg (MPEG-4 Part 2, no external codec needed). */
export async function makeRealMp4(): Promise<Buffer> {
  const dir = await mkdtemp(join(tmpdir(), 'mp4-'));
  const file = join(dir, 'clip.mp4');
  try {
    await new Promise<void>((resolve, reject) =>
      execFile(
        resolveBinaries().ffmpeg,
        [
          '-v',
          'error',
          '-f',
          'lavfi',
          '-i',
          'testsrc=size=320x240:rate=10',
          '-t',
          '2',
          '-c:v',
          'mpeg4',
          '-pix_fmt',
          'yuv420p',
          '-y',
          file,
        ],
        (error) => (error ? reject(error) : resolve()),
      ),
    );
    return await readFile(file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
