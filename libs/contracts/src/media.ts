/** Media rules shared by the post form, the gateway and the services (docs/product.md#what-a-post-holds, #limits-and-timings). */

export const MAX_FILE_BYTES = 100 * 1024 * 1024;
export const MAX_FILE_LABEL = '100MB';

export const FileErrors = {
  unsupported: (name: string) => `File "${name}" is not a supported image or video format.`,
  tooLarge: (name: string) => `File "${name}" is too large. Maximum size is ${MAX_FILE_LABEL}.`,
  heic: (name: string) =>
    `HEIC file "${name}" was rejected. Please convert it to JPEG or PNG format before uploading.`,
  heicPlural: (names: string[]) =>
    `HEIC files ${names.map((n) => `"${n}"`).join(', ')} were rejected. Please convert them to JPEG or PNG format before uploading.`,
  othersProcessed: ' Other files were processed successfully.',
} as const;

const HEIC_TYPES = new Set(['image/heic', 'image/heif', 'image/heic-sequence', 'image/heif-sequence']);

/** HEIC/HEIF are rejected by type or by extension (docs/product.md#limits-and-timings). */
export function isHeic(name: string, mimeType?: string | null): boolean {
  return /\.(heic|heif)$/i.test(name) || (!!mimeType && HEIC_TYPES.has(mimeType.toLowerCase()));
}

export function isImageOrVideo(mimeType: string): boolean {
  return /^(image|video)\/[\w.+-]+$/i.test(mimeType);
}

export type MediaType = 'image' | 'video' | 'youtube';
export type MediaStatus = 'pending' | 'ready' | 'failed';

// Order and YouTube rules live in media-view.ts (what a reader's page needs, kept apart so
// the public bundle does not carry the upload checks above).
export * from './media-view.js';

/** Uploaded files are served under /uploads/{storage key} (docs/api.md). */
export const UPLOADS_PREFIX = '/uploads/';

export function uploadsPath(key: string): string {
  return `${UPLOADS_PREFIX}${key}`;
}

/** The storage key behind a path the web sends back: '/uploads/k', 'uploads/k', 'http://host/uploads/k' or 'k'. */
export function keyFromUploadsPath(path: string): string {
  let value = path.trim();
  const absolute = /^https?:\/\/[^/]+(\/.*)$/i.exec(value);
  if (absolute) value = absolute[1]!;
  value = value.split(/[?#]/)[0]!;
  if (value.startsWith(UPLOADS_PREFIX)) return value.slice(UPLOADS_PREFIX.length);
  if (value.startsWith('uploads/')) return value.slice('uploads/'.length);
  return value.replace(/^\/+/, '');
}

const HTML_ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text for HTML element content and quoted attribute values (the pages and e-mails the servers write). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ENTITIES[c]!);
}

/** The processed site banner (POST /api/admin/site/banner). */
export interface BannerRendering {
  /** What `bannerImage` becomes: the main variant's public path. */
  path: string;
  /** The storage folder of all its files (the previous banner's is removed whole). */
  folder: string;
  keys: string[];
  width: number;
  height: number;
}
