import { SETTINGS_DEFAULTS } from '@blog/contracts';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { resolveBinaries } from '@blog/server-kit';
import { cropWindow, renderImage, UnprocessableMediaError } from '../src/processing/image-processor.js';
import { renderVideo } from '../src/processing/video-processor.js';
import {
  makeAnimatedGif,
  makeCorruptJpeg,
  makePhoto,
  makePngBomb,
  makeRealMp4,
  makeRotatedJpegWithGps,
  makeTransparentPng,
} from './fixtures.js';

const defaults = SETTINGS_DEFAULTS;

describe('image rendering', () => {
  it('turns an EXIF-rotated JPEG upright and removes EXIF and GPS from every output', async () => {
    const input = await makeRotatedJpegWithGps(60, 40);
    const input_meta = await sharp(input).metadata();
    expect(input_meta.orientation).toBe(6);
    const result = await renderImage(input, defaults, { x: 0, y: 0, scale: 1 });
    expect([result.width, result.height]).toEqual([40, 60]);
    for (const file of [...result.variants, result.cropPreview!]) {
      const meta = await sharp(file.data).metadata();
      expect(meta.exif).toBeUndefined();
      expect(meta.orientation ?? 1).toBe(1);
      expect(file.data.includes(Buffer.from('TestCam'))).toBe(false);
    }
    // Upright: the red half (left in the stored pixels) is now on top.
    const { data } = await sharp(result.main.data).raw().toBuffer({ resolveWithObject: true });
    expect(data[0]).toBeGreaterThan(200); // top-left pixel red
    expect(data[2]).toBeLessThan(60);
    expect(result.main.format).toBe('jpeg');
    expect(result.variants.map((v) => v.format).sort()).toEqual(['avif', 'jpeg', 'webp']);
  });

  it('scales a 6000x4000 photo so the longest edge is the setting, with srcset widths', async () => {
    const input = await makePhoto(6000, 4000);
    const result = await renderImage(input, { ...defaults, image_max_size: 1200, image_quality: 80 }, null);
    expect([result.width, result.height]).toEqual([1200, 800]);
    const widths = [...new Set(result.variants.map((v) => v.width))].sort((a, b) => a - b);
    expect(widths).toEqual([400, 800, 1200]);
    expect(result.variants).toHaveLength(9);
    for (const v of result.variants) expect((await sharp(v.data).metadata()).exif).toBeUndefined();
    expect(result.main.data.length).toBeLessThan(input.length);
    expect(result.cropPreview).toBeNull();
  });

  it('never scales up', async () => {
    const result = await renderImage(await makePhoto(300, 200), { ...defaults, image_max_size: 2000 }, null);
    expect([result.width, result.height]).toEqual([300, 200]);
    expect([...new Set(result.variants.map((v) => v.width))]).toEqual([300]);
  });

  it('keeps the original pixels when auto-optimise is off, metadata still removed', async () => {
    const input = await makePhoto(1600, 1000);
    const result = await renderImage(
      input,
      { ...defaults, image_max_size: 400, image_auto_optimize: false },
      {
        x: 0,
        y: 0,
        scale: 1,
      },
    );
    expect([result.width, result.height]).toEqual([1600, 1000]);
    expect((await sharp(result.main.data).metadata()).exif).toBeUndefined();
    expect([...new Set(result.variants.map((v) => v.width))].sort((a, b) => a - b)).toEqual([400, 800, 1600]);
    expect(result.cropPreview).toMatchObject({ width: 400, height: 128 });
  });

  it('keeps the transparency of a PNG', async () => {
    const result = await renderImage(await makeTransparentPng(), defaults, null);
    expect(result.main.format).toBe('png');
    for (const v of result.variants) expect((await sharp(v.data).metadata()).hasAlpha).toBe(true);
  });

  it('keeps an animated GIF animated (GIF and WebP)', async () => {
    const result = await renderImage(await makeAnimatedGif(), defaults, { x: 0, y: 0, scale: 1 });
    expect(result.animated).toBe(true);
    expect([result.width, result.height]).toEqual([40, 30]);
    expect(result.variants.map((v) => v.format).sort()).toEqual(['gif', 'webp']);
    for (const v of result.variants)
      expect((await sharp(v.data, { animated: true }).metadata()).pages).toBe(3);
    expect(result.cropPreview!.format).toBe('png');
  });

  it('renders the crop preview into the 400x128 frame from cropX, cropY, cropScale', async () => {
    expect(cropWindow(800, 600, { x: 0, y: 0, scale: 1 })).toEqual({
      left: 0,
      top: 172,
      width: 800,
      height: 256,
    });
    expect(cropWindow(800, 600, { x: 0, y: 0, scale: 2 })).toEqual({
      left: 200,
      top: 236,
      width: 400,
      height: 128,
    });
    // Panned far down: clamped to the bottom edge.
    expect(cropWindow(800, 600, { x: 0, y: -10_000, scale: 1 })).toEqual({
      left: 0,
      top: 344,
      width: 800,
      height: 256,
    });
    const result = await renderImage(await makePhoto(800, 600), defaults, { x: 10, y: -5, scale: 1.5 });
    const meta = await sharp(result.cropPreview!.data).metadata();
    expect([meta.width, meta.height]).toEqual([400, 128]);
  });

  it('refuses a corrupt image and a decompression bomb as unprocessable', async () => {
    await expect(renderImage(makeCorruptJpeg(), defaults, null)).rejects.toBeInstanceOf(
      UnprocessableMediaError,
    );
    const bomb = makePngBomb();
    expect(bomb.length).toBeLessThan(10_000);
    await expect(renderImage(bomb, defaults, null)).rejects.toThrow(/pixel/i);
  });
});

describe('video rendering', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'video-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('takes a poster from the first second, with duration, width and height', async () => {
    const file = join(dir, 'clip.mp4');
    await writeFile(file, await makeRealMp4());
    const result = await renderVideo(file, defaults, resolveBinaries());
    expect([result.width, result.height]).toEqual([320, 240]);
    expect(result.durationSeconds).toBeCloseTo(2, 0);
    const meta = await sharp(result.poster.data).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 320, 240]);
  });

  it('refuses a file that only claims to be a video', async () => {
    const file = join(dir, 'fake.mp4');
    await writeFile(
      file,
      Buffer.concat([Buffer.from('\0\0\0\x18ftypisom\0\0\0\0isomavc1', 'latin1'), Buffer.alloc(2048, 7)]),
    );
    await expect(renderVideo(file, defaults, resolveBinaries())).rejects.toBeInstanceOf(
      UnprocessableMediaError,
    );
  });
});
