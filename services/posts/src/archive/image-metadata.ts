/**
 * The byte-level cleaning of each picture format the export strips (LocationStripper decides
 * which applies): metadata chunks and segments removed, every pixel byte kept.
 */

// ---- JPEG: APP1 EXIF keeps its other tags with its GPS directory emptied; XMP and IPTC go.

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
const APP1 = 0xe1;
const APP13 = 0xed; // Photoshop IPTC: city, sub-location, country

/** Where a JPEG's metadata segments end (its first SOS marker); null until read that far, -1 when unreadable. */
export function jpegMetadataEnd(jpeg: Buffer): number | null {
  let at = 2;
  while (at + 4 <= jpeg.length) {
    if (jpeg[at] !== 0xff) return -1;
    const marker = jpeg[at + 1]!;
    if (marker === 0xff) {
      at += 1; // fill byte
      continue;
    }
    if (marker === 0xda) return at;
    if (marker === 0xd9 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) return -1;
    at += 2 + jpeg.readUInt16BE(at + 2);
  }
  return null;
}

/** The segments before the image data, without XMP and IPTC, EXIF without its GPS directory. */
export function cleanJpegHead(head: Buffer): Buffer {
  const kept: Buffer[] = [head.subarray(0, 2)];
  let at = 2;
  while (at + 4 <= head.length) {
    const marker = head[at + 1]!;
    if (marker === 0xff) {
      at += 1;
      continue;
    }
    const end = at + 2 + head.readUInt16BE(at + 2);
    const segment = head.subarray(at, Math.min(end, head.length));
    const app1 = marker === APP1 ? head.toString('latin1', at + 4, at + 10) : '';
    if (app1 === 'Exif\0\0') {
      const data = Buffer.from(segment);
      try {
        emptyGpsIfd(data, 10, data.length);
        kept.push(data);
      } catch {
        // Unreadable EXIF: the whole segment goes.
      }
    } else if (marker !== APP13 && !(marker === APP1 && app1 !== '')) {
      kept.push(segment);
    }
    at = end;
  }
  return Buffer.concat(kept);
}

/** The GPS directory emptied in place (entries and the values they point at zeroed, count 0): every other byte keeps its position. */
function emptyGpsIfd(data: Buffer, tiff: number, end: number): void {
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
  }
}

// ---- PNG: the eXIf chunk and every text chunk (XMP travels in iTXt, raw EXIF profiles in tEXt/zTXt) go.

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const PNG_DROPPED = new Set(['eXIf', 'tEXt', 'zTXt', 'iTXt']);

/** The PNG without its metadata chunks, or null when its chunks do not add up. */
export function cleanPng(png: Buffer): Buffer | null {
  const kept: Buffer[] = [PNG_SIGNATURE];
  let at = 8;
  while (at < png.length) {
    if (at + 12 > png.length) return null;
    const end = at + 12 + png.readUInt32BE(at);
    if (end > png.length) return null;
    const type = png.toString('latin1', at + 4, at + 8);
    if (!PNG_DROPPED.has(type)) kept.push(png.subarray(at, end));
    at = end;
    if (type === 'IEND') break;
  }
  return Buffer.concat(kept);
}

// ---- WebP: the EXIF and XMP chunks go, and the VP8X header stops announcing them.

const VP8X_EXIF = 0x08;
const VP8X_XMP = 0x04;

export function cleanWebp(webp: Buffer): Buffer | null {
  const kept: Buffer[] = [];
  let at = 12;
  while (at < webp.length) {
    if (at + 8 > webp.length) return null;
    const size = webp.readUInt32LE(at + 4);
    const end = at + 8 + size + (size % 2);
    if (end > webp.length) return null;
    const type = webp.toString('latin1', at, at + 4);
    if (type === 'VP8X') {
      const chunk = Buffer.from(webp.subarray(at, end));
      chunk[8] = chunk[8]! & ~(VP8X_EXIF | VP8X_XMP);
      kept.push(chunk);
    } else if (type !== 'EXIF' && type !== 'XMP ') kept.push(webp.subarray(at, end));
    at = end;
  }
  const header = Buffer.from(webp.subarray(0, 12));
  const body = Buffer.concat(kept);
  header.writeUInt32LE(4 + body.length, 4);
  return Buffer.concat([header, body]);
}

// ---- GIF: comments and the XMP application extension go; frames and the loop count stay.

export function cleanGif(gif: Buffer): Buffer | null {
  try {
    const kept: Buffer[] = [];
    const packed = gif[10]!;
    let at = 13 + (packed & 0x80 ? 3 * 2 ** ((packed & 7) + 1) : 0);
    kept.push(gif.subarray(0, at));
    const subBlocks = (from: number) => {
      let i = from;
      for (let size = gif[i]; size !== 0; size = gif[i]) {
        if (size === undefined) throw new RangeError('GIF block past the end');
        i += size + 1;
      }
      return i + 1;
    };
    for (;;) {
      const introducer = gif[at];
      if (introducer === undefined) return null;
      if (introducer === 0x3b) {
        kept.push(gif.subarray(at, at + 1));
        break;
      }
      let end: number;
      let keep = true;
      if (introducer === 0x21) {
        const label = gif[at + 1];
        if (label === 0xff) {
          const blockSize = gif[at + 2]!;
          keep = gif.toString('latin1', at + 3, at + 11) !== 'XMP Data';
          end = subBlocks(at + 3 + blockSize);
        } else {
          keep = label !== 0xfe;
          end = subBlocks(at + 2);
        }
      } else if (introducer === 0x2c) {
        const local = gif[at + 9]!;
        const table = local & 0x80 ? 3 * 2 ** ((local & 7) + 1) : 0;
        end = subBlocks(at + 10 + table + 1);
      } else return null;
      if (end > gif.length) return null;
      if (keep) kept.push(gif.subarray(at, end));
      at = end;
    }
    return Buffer.concat(kept);
  } catch {
    return null;
  }
}
