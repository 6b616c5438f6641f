import { run } from '@blog/server-kit';
import { createWriteStream } from 'node:fs';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  cleanGif,
  cleanJpegHead,
  cleanPng,
  cleanWebp,
  jpegMetadataEnd,
  PNG_SIGNATURE,
} from './image-metadata.js';

/**
 * Location data out of every picture and video that goes into an export: the one module that
 * knows the formats, behind `LocationStripper.strip`, so it can move with the archive's writer.
 * Pictures lose their metadata chunks and keep every pixel byte (no re-encoding); videos are
 * re-muxed by ffmpeg without metadata. A file that cannot be cleaned is not exported: the caller
 * lists it with the reason instead.
 */
export type Stripped = { stream: Readable } | { leftOut: string };

/** Everything before a JPEG's image data (its metadata segments) lies in this many bytes. */
const JPEG_HEAD_MAX = 4 * 1024 * 1024;
/** PNG, WebP and GIF files are cleaned whole in memory; uploads are at most 100 MB. */
const IMAGE_BYTES_MAX = 256 * 1024 * 1024;
/**
 * A video is copied to a temporary file for ffmpeg, which writes another: uploads are at most
 * 100 MB, imports may bring larger ones (the posts service's /tmp in infra/k8s/posts.yaml fits two).
 */
const VIDEO_BYTES_MAX = 1024 * 1024 * 1024;
const REMUX_TIMEOUT_MS = 10 * 60 * 1000;

const VIDEO_FORMATS: Record<string, string> = {
  'video/mp4': 'mp4',
  'video/x-m4v': 'mp4',
  'video/quicktime': 'mov',
  'video/3gpp': '3gp',
  'video/webm': 'webm',
  'video/x-matroska': 'matroska',
  'video/x-msvideo': 'avi',
  'video/ogg': 'ogg',
  'video/mpeg': 'mpeg',
  'video/mp2t': 'mpegts',
};

export const LeftOutReason = {
  unreadablePicture: 'a picture whose metadata could not be read, so its location could not be removed',
  unknownPicture: 'a picture format whose location data the export cannot remove',
  unreadableVideo: 'a video ffmpeg could not read, so its location could not be removed',
  tooLarge: 'too large to remove its location data',
} as const;

class TooLarge extends Error {}

export class LocationStripper {
  constructor(
    private readonly ffmpeg: string,
    private readonly tempRoot = tmpdir(),
  ) {}

  /** The file without location data, or why it is left out. Reads `body` to its end or destroys it. */
  async strip(body: Readable, mimeType: string | null): Promise<Stripped> {
    const source = new Bytes(body);
    try {
      const head = await source.peek(16);
      const kind = sniff(head);
      if (kind === 'jpeg') return await this.jpeg(source);
      if (kind === 'png' || kind === 'webp' || kind === 'gif') {
        const whole = await source.readAll(IMAGE_BYTES_MAX);
        const clean = kind === 'png' ? cleanPng(whole) : kind === 'webp' ? cleanWebp(whole) : cleanGif(whole);
        return clean ? { stream: Readable.from([clean]) } : { leftOut: LeftOutReason.unreadablePicture };
      }
      if (kind === 'bmp') return { stream: source.rest() }; // no metadata container
      if (kind === 'video' || (kind === null && mimeType?.startsWith('video/')))
        return await this.video(source, head, mimeType);
      if (kind === 'heif' || mimeType?.startsWith('image/')) {
        source.destroy();
        return { leftOut: LeftOutReason.unknownPicture };
      }
      return { stream: source.rest() };
    } catch (error) {
      source.destroy();
      if (error instanceof TooLarge) return { leftOut: LeftOutReason.tooLarge };
      throw error;
    }
  }

  /** The metadata segments in front of the image data cleaned; the image data streamed as stored. */
  private async jpeg(source: Bytes): Promise<Stripped> {
    const head = await source.peekUntil((bytes) => jpegMetadataEnd(bytes) !== null, JPEG_HEAD_MAX);
    const end = jpegMetadataEnd(head);
    if (end === null || end < 0) {
      source.destroy();
      return { leftOut: LeftOutReason.unreadablePicture };
    }
    source.skip(end);
    const cleaned = cleanJpegHead(head.subarray(0, end));
    async function* all() {
      yield cleaned;
      yield* source.remaining();
    }
    return { stream: Readable.from(all(), { objectMode: false }) };
  }

  /**
   * Re-muxed by ffmpeg into the same container: every audio, video and subtitle stream copied
   * as it is; global, stream and chapter metadata, data tracks (timed metadata such as a
   * phone's location track) and attachments left behind.
   */
  private async video(source: Bytes, head: Buffer, mimeType: string | null): Promise<Stripped> {
    const format = videoFormat(head, mimeType);
    if (!format) {
      source.destroy();
      return { leftOut: LeftOutReason.unreadableVideo };
    }
    const dir = await mkdtemp(join(this.tempRoot, 'export-video-'));
    try {
      const input = join(dir, 'in');
      const output = join(dir, 'out');
      await pipeline(source.rest(), limit(VIDEO_BYTES_MAX), createWriteStream(input));
      try {
        await run(
          this.ffmpeg,
          [
            ...['-v', 'error', '-nostdin', '-y', '-i', input],
            ...['-map', '0', '-map', '-0:d?', '-map', '-0:t?'],
            ...['-map_metadata', '-1', '-map_metadata:s', '-1', '-map_chapters', '-1'],
            ...['-c', 'copy', '-fflags', '+bitexact', '-f', format, output],
          ],
          REMUX_TIMEOUT_MS,
        );
      } catch {
        return { leftOut: LeftOutReason.unreadableVideo };
      }
      // Open, then delete the folder: the open file stays readable and nothing is left behind.
      const file = await open(output);
      return { stream: file.createReadStream() };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}

/** ISO-BMFF brands of still pictures (AVIF, HEIF): a `ftyp` box that is not a video. */
const PICTURE_BRANDS = new Set([
  'avif',
  'avis',
  'heic',
  'heix',
  'heim',
  'heis',
  'hevc',
  'hevx',
  'mif1',
  'msf1',
]);

function sniff(head: Buffer): 'jpeg' | 'png' | 'webp' | 'gif' | 'bmp' | 'heif' | 'video' | null {
  if (head.length < 12) return null;
  if (head[0] === 0xff && head[1] === 0xd8) return 'jpeg';
  if (head.subarray(0, 8).equals(PNG_SIGNATURE)) return 'png';
  const riff = head.toString('latin1', 0, 4) === 'RIFF';
  if (riff && head.toString('latin1', 8, 12) === 'WEBP') return 'webp';
  if (head.toString('latin1', 0, 4) === 'GIF8') return 'gif';
  if (head.toString('latin1', 0, 2) === 'BM') return 'bmp';
  if (head.toString('latin1', 4, 8) === 'ftyp')
    return PICTURE_BRANDS.has(head.toString('latin1', 8, 12)) ? 'heif' : 'video';
  if (head.readUInt32BE(0) === 0x1a45dfa3) return 'video'; // Matroska, WebM
  if (riff && head.toString('latin1', 8, 11) === 'AVI') return 'video';
  return null;
}

function videoFormat(head: Buffer, mimeType: string | null): string | null {
  // A QuickTime file is written back as QuickTime whatever it was called (mp4 refuses some of its codecs).
  if (head.toString('latin1', 4, 8) === 'ftyp' && head.toString('latin1', 8, 12) === 'qt  ') return 'mov';
  if (mimeType && VIDEO_FORMATS[mimeType]) return VIDEO_FORMATS[mimeType];
  if (head.toString('latin1', 4, 8) === 'ftyp') return 'mp4';
  if (head.length >= 4 && head.readUInt32BE(0) === 0x1a45dfa3) return 'matroska';
  return null;
}

function limit(max: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      done(seen > max ? new TooLarge() : null, chunk);
    },
  });
}

/** A byte stream read ahead as far as a format needs, then handed on with what was read. */
class Bytes {
  private readonly iterator: AsyncIterator<Buffer | Uint8Array>;
  private chunks: Buffer[] = [];
  private size = 0;
  private ended = false;

  constructor(private readonly body: Readable) {
    this.iterator = body[Symbol.asyncIterator]() as AsyncIterator<Buffer | Uint8Array>;
  }

  async peek(bytes: number): Promise<Buffer> {
    return this.peekUntil((head) => head.length >= bytes, bytes);
  }

  /** Reads until `enough` says so, the stream ends or `max` bytes are held. */
  async peekUntil(enough: (head: Buffer) => boolean, max: number): Promise<Buffer> {
    while (!this.ended && this.size < max && !enough(this.held())) await this.pull();
    return this.held();
  }

  /** The whole stream, or TooLarge past `max` bytes. */
  async readAll(max: number): Promise<Buffer> {
    while (!this.ended && this.size <= max) await this.pull();
    if (this.size > max) throw new TooLarge();
    return this.held();
  }

  skip(bytes: number): void {
    const rest = this.held().subarray(bytes);
    this.chunks = [rest];
    this.size = rest.length;
  }

  async *remaining(): AsyncGenerator<Buffer> {
    const held = this.held();
    this.chunks = [];
    this.size = 0;
    if (held.length) yield held;
    for (let next = await this.iterator.next(); !next.done; next = await this.iterator.next())
      yield asBuffer(next.value);
  }

  rest(): Readable {
    return Readable.from(this.remaining(), { objectMode: false });
  }

  destroy(): void {
    this.body.destroy();
  }

  private async pull(): Promise<void> {
    const next = await this.iterator.next();
    if (next.done) this.ended = true;
    else {
      const chunk = asBuffer(next.value);
      this.chunks.push(chunk);
      this.size += chunk.length;
    }
  }

  private held(): Buffer {
    if (this.chunks.length !== 1) this.chunks = [Buffer.concat(this.chunks)];
    return this.chunks[0]!;
  }
}

function asBuffer(chunk: Buffer | Uint8Array): Buffer {
  return Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}
