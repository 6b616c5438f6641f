import { resolveBinaries, run } from '@blog/server-kit';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';

/** Real image files made by the test with sharp. */
export async function makeImage(
  format: 'jpeg' | 'png' | 'webp' | 'gif',
  width = 64,
  height = 48,
): Promise<Buffer> {
  const image = sharp({
    create: { width, height, channels: 4, background: { r: 200, g: 80, b: 40, alpha: 1 } },
  });
  return image.toFormat(format).toBuffer();
}

function box(type: string, payload: Buffer): Buffer {
  const header = Buffer.alloc(8);
  header.writeUInt32BE(8 + payload.length, 0);
  header.write(type, 4, 'latin1');
  return Buffer.concat([header, payload]);
}

/** An ISO-BMFF (MP4) file: ftyp, an empty moov and some mdat bytes; enough for type detection. */
export function makeMp4(): Buffer {
  const ftyp = box(
    'ftyp',
    Buffer.concat([
      Buffer.from('isom', 'latin1'),
      Buffer.alloc(4),
      Buffer.from('isomiso2avc1mp41', 'latin1'),
    ]),
  );
  return Buffer.concat([ftyp, box('moov', Buffer.alloc(0)), box('mdat', Buffer.alloc(2048, 7))]);
}

/** A real one-second MP4 made by ffmpeg (the export re-muxes videos, so it must be playable). */
export async function makeVideo(): Promise<Buffer> {
  const dir = await mkdtemp(join(tmpdir(), 'video-fixture-'));
  try {
    const file = join(dir, 'clip.mp4');
    await run(resolveBinaries().ffmpeg, [
      ...['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc=size=64x48:rate=10', '-t', '1'],
      ...['-c:v', 'mpeg4', file],
    ]);
    return await readFile(file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A HEIC file's first bytes (ftyp brand heic). */
export function makeHeic(): Buffer {
  const ftyp = box(
    'ftyp',
    Buffer.concat([Buffer.from('heic', 'latin1'), Buffer.alloc(4), Buffer.from('mif1heic', 'latin1')]),
  );
  return Buffer.concat([ftyp, Buffer.alloc(4096, 1)]);
}

export interface Part {
  name: string;
  value?: string;
  file?: { filename: string; type: string; data: Buffer };
}

/** A multipart/form-data body built by hand, so tests control every byte. */
export function multipart(parts: Part[]): { body: Buffer; contentType: string } {
  const boundary = `----test${Math.random().toString(16).slice(2)}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    if (part.file) {
      chunks.push(
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"; filename="${part.file.filename}"\r\n` +
            `Content-Type: ${part.file.type}\r\n\r\n`,
        ),
        part.file.data,
        Buffer.from('\r\n'),
      );
    } else {
      chunks.push(
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"\r\n\r\n${part.value ?? ''}\r\n`,
        ),
      );
    }
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

export function fields(values: Record<string, string>): Part[] {
  return Object.entries(values).map(([name, value]) => ({ name, value }));
}
