import { Readable } from 'node:stream';

/** A JPEG's EXIF (APP1) segment lies in its first 64 KB after a few other segments. */
const JPEG_HEAD_BYTES = 256 * 1024;
const TYPE_SIZES: Record<number, number> = {
  1: 1,
  2: 1,
  3: 2,
  4: 4,
  5: 8,
  6: 1,
  7: 1,
  8: 2,
  9: 4,
  10: 8,
  11: 4,
  12: 8,
};
const GPS_IFD_TAG = 0x8825;

/**
 * The GPS directory of a JPEG's EXIF emptied in place: its entries and the values they point
 * at are zeroed and its count set to 0, so the file keeps every byte's position, its other
 * metadata (orientation, camera) and its image data, and tells no place. A JPEG whose EXIF
 * cannot be read loses its whole EXIF segment instead. Answers whether anything changed.
 */
export function emptyJpegGps(jpeg: Buffer): { data: Buffer; changed: boolean } {
  if (jpeg.length < 4 || jpeg[0] !== 0xff || jpeg[1] !== 0xd8) return { data: jpeg, changed: false };
  let at = 2;
  while (at + 4 <= jpeg.length && jpeg[at] === 0xff) {
    const marker = jpeg[at + 1]!;
    if (marker === 0xda || marker === 0xd9) break; // image data: no metadata after this
    const length = jpeg.readUInt16BE(at + 2);
    const end = at + 2 + length;
    if (end > jpeg.length) break;
    if (marker === 0xe1 && jpeg.toString('latin1', at + 4, at + 10) === 'Exif\0\0') {
      const data = Buffer.from(jpeg);
      try {
        return { data, changed: emptyGpsIfd(data, at + 10, end) };
      } catch {
        // Unreadable EXIF: the whole segment goes.
        return { data: Buffer.concat([jpeg.subarray(0, at), jpeg.subarray(end)]), changed: true };
      }
    }
    at = end;
  }
  return { data: jpeg, changed: false };
}

function emptyGpsIfd(data: Buffer, tiff: number, end: number): boolean {
  const little = data.toString('latin1', tiff, tiff + 2) === 'II';
  const u16 = (offset: number) => (little ? data.readUInt16LE(offset) : data.readUInt16BE(offset));
  const u32 = (offset: number) => (little ? data.readUInt32LE(offset) : data.readUInt32BE(offset));
  const inside = (offset: number, size: number) => {
    if (offset < tiff || offset + size > end) throw new RangeError('EXIF offset outside its segment');
  };
  const ifd0 = tiff + u32(tiff + 4);
  inside(ifd0, 2);
  const count = u16(ifd0);
  for (let i = 0; i < count; i++) {
    const entry = ifd0 + 2 + i * 12;
    inside(entry, 12);
    if (u16(entry) !== GPS_IFD_TAG) continue;
    const gps = tiff + u32(entry + 8);
    inside(gps, 2);
    const gpsCount = u16(gps);
    for (let j = 0; j < gpsCount; j++) {
      const field = gps + 2 + j * 12;
      inside(field, 12);
      const size = (TYPE_SIZES[u16(field + 2)] ?? 1) * u32(field + 4);
      if (size > 4) {
        const value = tiff + u32(field + 8);
        inside(value, size);
        data.fill(0, value, value + size);
      }
      data.fill(0, field, field + 12);
    }
    data.fill(0, gps, gps + 2);
    return gpsCount > 0;
  }
  return false;
}

/** The original as it goes into the export: a JPEG without its GPS directory, anything else as stored. */
export async function withoutLocation(body: Readable, mimeType: string | null): Promise<Readable> {
  if (mimeType !== 'image/jpeg') return body;
  const chunks: Buffer[] = [];
  let size = 0;
  const iterator = body[Symbol.asyncIterator]();
  while (size < JPEG_HEAD_BYTES) {
    const next = await iterator.next();
    if (next.done) break;
    chunks.push(next.value as Buffer);
    size += (next.value as Buffer).length;
  }
  const head = emptyJpegGps(Buffer.concat(chunks)).data;
  async function* all() {
    yield head;
    for (let next = await iterator.next(); !next.done; next = await iterator.next())
      yield next.value as Buffer;
  }
  return Readable.from(all(), { objectMode: false });
}
