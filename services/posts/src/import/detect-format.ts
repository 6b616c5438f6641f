import type { ImportFormat } from '@blog/contracts';

/** A zip's local file header: this blog's own export. */
const ZIP_MAGIC = Buffer.from([0x50, 0x4b, 0x03, 0x04]);

/** Reads the file's first bytes: a WordPress export (XML with the WXR namespace), a Ghost export (JSON) or this blog's own (zip). */
export function detectFormat(head: Buffer): ImportFormat | null {
  const text = head
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart();
  if (text.startsWith('<') && /wordpress\.org\/export\//.test(text)) return 'wxr';
  if (text.startsWith('{')) return 'ghost';
  if (head.subarray(0, 4).equals(ZIP_MAGIC)) return 'blog';
  return null;
}
