import type { ImageSettings } from '@blog/contracts';
import sharp from 'sharp';
import { run } from '@blog/server-kit';
import { fitWithin, MAX_INPUT_PIXELS, UnprocessableMediaError } from './image-processor.js';

export interface VideoRendering {
  /** The poster (`thumbnailPath`), a JPEG from the first second, within the max size. */
  poster: { name: string; data: Buffer; width: number; height: number };
  width: number;
  height: number;
  durationSeconds: number | null;
}

interface Probe {
  streams?: { codec_type?: string; width?: number; height?: number; duration?: string }[];
  format?: { duration?: string };
}

/** Probes a video file with ffprobe and takes its poster with ffmpeg. Unreadable → UnprocessableMediaError. */
export async function renderVideo(
  file: string,
  settings: ImageSettings,
  bin: { ffmpeg: string; ffprobe: string },
): Promise<VideoRendering> {
  let probe: Probe;
  try {
    const { stdout } = await run(bin.ffprobe, [
      '-v',
      'error',
      '-print_format',
      'json',
      '-show_streams',
      '-show_format',
      file,
    ]);
    probe = JSON.parse(stdout.toString('utf8')) as Probe;
  } catch (error) {
    throw new UnprocessableMediaError(`not a readable video: ${firstLine(error)}`);
  }
  const video = probe.streams?.find((s) => s.codec_type === 'video' && s.width && s.height);
  if (!video) throw new UnprocessableMediaError('not a readable video: no video stream');
  const durationText = probe.format?.duration ?? video.duration;
  const duration =
    durationText !== undefined && Number.isFinite(Number(durationText)) ? Number(durationText) : null;
  const at = duration !== null && duration < 1 ? 0 : 1;
  let frame: Buffer;
  try {
    frame = await grab(bin.ffmpeg, file, at);
    if (frame.length === 0 && at > 0) frame = await grab(bin.ffmpeg, file, 0);
  } catch (error) {
    throw new UnprocessableMediaError(`no frame could be read: ${firstLine(error)}`);
  }
  if (frame.length === 0) throw new UnprocessableMediaError('no frame could be read');
  const size = fitWithin(video.width!, video.height!, settings.image_max_size);
  const { data, info } = await sharp(frame, { limitInputPixels: MAX_INPUT_PIXELS })
    .resize({ width: size.width, withoutEnlargement: true })
    .jpeg({ quality: settings.image_quality, mozjpeg: true })
    .toBuffer({ resolveWithObject: true });
  return {
    poster: { name: 'poster.jpg', data, width: info.width, height: info.height },
    width: video.width!,
    height: video.height!,
    durationSeconds: duration,
  };
}

async function grab(ffmpeg: string, file: string, at: number): Promise<Buffer> {
  const { stdout } = await run(ffmpeg, [
    '-v',
    'error',
    '-ss',
    String(at),
    '-i',
    file,
    '-frames:v',
    '1',
    '-f',
    'image2pipe',
    '-c:v',
    'png',
    'pipe:1',
  ]);
  return stdout;
}

function firstLine(error: unknown): string {
  const stderr = (error as { stderr?: string }).stderr?.trim();
  return (stderr || (error as Error).message || String(error)).split('\n')[0]!.slice(0, 200);
}
