import { CROP_FRAME, type ImageSettings } from '@blog/contracts';
import sharp, { type Metadata, type Sharp } from 'sharp';

/** Sharp's decompression-bomb guard stays on: more pixels than this is refused. */
export const MAX_INPUT_PIXELS = 120_000_000;
/** Widths offered in `srcset` besides the full one. */
export const SRCSET_WIDTHS = [400, 800];

export type OutputFormat = 'jpeg' | 'png' | 'gif' | 'webp' | 'avif';

export interface RenderedFile {
  /** Name inside the item's output folder, e.g. `w800.webp`. */
  name: string;
  format: OutputFormat;
  width: number;
  height: number;
  data: Buffer;
}

export interface CropSettings {
  x: number;
  y: number;
  scale: number;
}

export interface ImageRendering {
  /** The file served as the item's `path`: the fallback format at full (possibly scaled) size. */
  main: RenderedFile;
  /** Every srcset variant (WebP, AVIF and the fallback at each width), main included. */
  variants: RenderedFile[];
  /** The 400x128 crop preview, when crop settings were given. */
  cropPreview: RenderedFile | null;
  width: number;
  height: number;
  animated: boolean;
}

/** A file the worker cannot turn into an image: the item fails with this reason (no retry). */
export class UnprocessableMediaError extends Error {
  override name = 'UnprocessableMediaError';
}

const open = (input: Buffer, animated: boolean): Sharp =>
  sharp(input, { animated, limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error' });

/** The original's own format when the web serves it (JPEG, PNG, WebP, GIF); else JPEG, or PNG with transparency. */
function fallbackFormat(meta: Metadata, animated: boolean): 'jpeg' | 'png' | 'gif' | 'webp' {
  if (animated) return meta.format === 'webp' ? 'webp' : 'gif';
  switch (meta.format) {
    case 'jpeg':
    case 'png':
    case 'webp':
    case 'gif':
      return meta.format;
    default:
      return meta.hasAlpha ? 'png' : 'jpeg';
  }
}

function encode(image: Sharp, format: OutputFormat, quality: number, lossless: boolean): Sharp {
  switch (format) {
    case 'jpeg':
      return image.jpeg({ quality });
    case 'png':
      return image.png({ compressionLevel: 9, effort: 4 });
    case 'gif':
      return image.gif({ effort: 4 });
    case 'webp':
      return lossless ? image.webp({ lossless: true, effort: 3 }) : image.webp({ quality, effort: 4 });
    case 'avif':
      return image.avif({ quality: Math.max(30, quality - 20), effort: 0, lossless });
  }
}

/** The scaled size of an upright `width`x`height` with its longest edge at most `max`, never up. */
export function fitWithin(width: number, height: number, max: number): { width: number; height: number } {
  const longest = Math.max(width, height);
  if (longest <= max) return { width, height };
  const ratio = max / longest;
  return {
    width: Math.max(1, Math.round(width * ratio)),
    height: Math.max(1, Math.round(height * ratio)),
  };
}

/**
 * The window of the crop preview in an upright `width`x`height` image, from the crop dialog's
 * settings (react-easy-crop style): the image covers the 400x128 frame at zoom 1, `scale`
 * zooms it (below 1 still covers the frame), `x`/`y` move its centre by that many frame
 * pixels; panning is clamped to the image bounds (docs/product.md#limits-and-timings).
 */
export function cropWindow(
  width: number,
  height: number,
  crop: CropSettings,
): { left: number; top: number; width: number; height: number } {
  const frame = CROP_FRAME;
  const cover = Math.max(frame.width / width, frame.height / height);
  const scale = cover * Math.max(1, Number.isFinite(crop.scale) ? crop.scale : 1);
  const w = Math.min(width, frame.width / scale);
  const h = Math.min(height, frame.height / scale);
  const cx = width / 2 - (Number.isFinite(crop.x) ? crop.x : 0) / scale;
  const cy = height / 2 - (Number.isFinite(crop.y) ? crop.y : 0) / scale;
  const left = Math.min(Math.max(0, cx - w / 2), width - w);
  const top = Math.min(Math.max(0, cy - h / 2), height - h);
  return {
    left: Math.round(left),
    top: Math.round(top),
    width: Math.max(1, Math.min(width - Math.round(left), Math.round(w))),
    height: Math.max(1, Math.min(height - Math.round(top), Math.round(h))),
  };
}

/**
 * Turns an uploaded image into what the site serves: upright (EXIF orientation applied),
 * without EXIF/GPS or other metadata, scaled to the settings when auto-optimise is on
 * (original pixels otherwise), in WebP, AVIF and the original's format at a few widths,
 * plus the crop preview. Animated GIFs stay animated (GIF and WebP; no AVIF).
 */
export async function renderImage(
  input: Buffer,
  settings: ImageSettings,
  crop: CropSettings | null,
): Promise<ImageRendering> {
  let meta: Metadata;
  try {
    meta = await open(input, true).metadata();
  } catch (error) {
    throw new UnprocessableMediaError(`not a readable image: ${(error as Error).message}`);
  }
  const animated = (meta.pages ?? 1) > 1;
  const pageHeight = animated ? (meta.pageHeight ?? meta.height) : meta.height;
  if (!meta.width || !pageHeight) throw new UnprocessableMediaError('not a readable image: no dimensions');
  if (meta.width * pageHeight * (meta.pages ?? 1) > MAX_INPUT_PIXELS)
    throw new UnprocessableMediaError('image has too many pixels');
  const swap = !animated && (meta.orientation ?? 1) >= 5;
  const upright = swap
    ? { width: pageHeight, height: meta.width }
    : { width: meta.width, height: pageHeight };
  const optimise = settings.image_auto_optimize;
  const full = optimise ? fitWithin(upright.width, upright.height, settings.image_max_size) : upright;
  const fallback = fallbackFormat(meta, animated);
  const quality = optimise ? settings.image_quality : 95;
  const lossless = !optimise && meta.format !== 'jpeg';
  const formats = [...new Set<OutputFormat>(animated ? [fallback, 'webp'] : [fallback, 'webp', 'avif'])];
  const widths = [...new Set([...SRCSET_WIDTHS.filter((w) => w < full.width), full.width])];

  try {
    // Decode once: upright and at full size (JPEG shrink-on-load applies), then every variant from that.
    let source: () => Sharp;
    if (animated) {
      source = () => open(input, true);
    } else {
      let base = open(input, false).autoOrient();
      if (full.width !== upright.width) base = base.resize({ width: full.width, withoutEnlargement: true });
      const raw = await base.raw().toBuffer({ resolveWithObject: true });
      source = () =>
        sharp(raw.data, {
          raw: { width: raw.info.width, height: raw.info.height, channels: raw.info.channels },
        });
    }
    const render = async (width: number, format: OutputFormat): Promise<RenderedFile> => {
      let image = source();
      if (width !== (animated ? upright.width : full.width))
        image = image.resize({ width, withoutEnlargement: true });
      const { data, info } = await encode(image, format, quality, lossless).toBuffer({
        resolveWithObject: true,
      });
      const height = animated ? (info.pageHeight ?? info.height) : info.height;
      return {
        name: `w${width}.${format === 'jpeg' ? 'jpg' : format}`,
        format,
        width: info.width,
        height,
        data,
      };
    };
    const variants: RenderedFile[] = [];
    for (const width of widths) {
      const rendered = await Promise.all(formats.map((format) => render(width, format)));
      variants.push(...rendered);
    }
    const main = variants.find((v) => v.width === full.width && v.format === fallback)!;
    let cropPreview: RenderedFile | null = null;
    if (crop) {
      const frameSource = animated ? open(input, false).autoOrient() : source();
      const size = animated ? upright : full;
      const window = cropWindow(size.width, size.height, crop);
      const format: OutputFormat = fallback === 'gif' ? 'png' : fallback;
      const data = await encode(
        frameSource.extract(window).resize(CROP_FRAME.width, CROP_FRAME.height, { fit: 'fill' }),
        format,
        optimise ? settings.image_quality : 90,
        false,
      ).toBuffer();
      cropPreview = {
        name: `crop.${format === 'jpeg' ? 'jpg' : format}`,
        format,
        width: CROP_FRAME.width,
        height: CROP_FRAME.height,
        data,
      };
    }
    return { main, variants, cropPreview, width: main.width, height: main.height, animated };
  } catch (error) {
    if (error instanceof UnprocessableMediaError) throw error;
    throw new UnprocessableMediaError(`image could not be processed: ${(error as Error).message}`);
  }
}
