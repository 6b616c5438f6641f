/** Media rules shared by the post form, the gateway and the services (SPEC.md §3, §5, §9). */

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

/** HEIC/HEIF are rejected by type or by extension (SPEC.md §5). */
export function isHeic(name: string, mimeType?: string | null): boolean {
  return /\.(heic|heif)$/i.test(name) || (!!mimeType && HEIC_TYPES.has(mimeType.toLowerCase()));
}

export function isImageOrVideo(mimeType: string): boolean {
  return /^(image|video)\/[\w.+-]+$/i.test(mimeType);
}

export type MediaType = 'image' | 'video' | 'youtube';
export type MediaStatus = 'pending' | 'ready' | 'failed';

/** Missing order sorts last (SPEC.md §9). */
export const MISSING_ORDER = 999;

export function byOrder<T extends { order?: number | null }>(a: T, b: T): number {
  return (a.order ?? MISSING_ORDER) - (b.order ?? MISSING_ORDER);
}

export interface YoutubeVideo {
  videoId: string;
  url: string;
  embedUrl: string;
  thumbnailUrl: string;
  isShorts: boolean;
}

/**
 * Embeds come from YouTube's privacy-enhanced host (no cookies until the visitor plays) and
 * thumbnails from its image host; the Content-Security-Policy allows exactly these two.
 */
export const YOUTUBE_EMBED_ORIGIN = 'https://www.youtube-nocookie.com';
export const YOUTUBE_THUMBNAIL_ORIGIN = 'https://i.ytimg.com';
export const youtubeEmbedUrl = (videoId: string) => `${YOUTUBE_EMBED_ORIGIN}/embed/${videoId}`;
export const youtubeThumbnailUrl = (videoId: string) =>
  `${YOUTUBE_THUMBNAIL_ORIGIN}/vi/${videoId}/hqdefault.jpg`;

/** SPEC.md §5: optional http(s) scheme, optional www, youtube.com or youtu.be, then a path. */
export const YOUTUBE_URL = /^(https?:\/\/)?(www\.|m\.)?(youtube\.com|youtu\.be)\/.+$/i;
export const YOUTUBE_URL_ERROR = 'Please enter a valid YouTube URL';

/** Reads the video id from v=, youtu.be/ID, /shorts/ID or /embed/ID; null when the URL is not a YouTube video. */
export function parseYoutubeUrl(input: string): YoutubeVideo | null {
  const url = input.trim();
  if (!YOUTUBE_URL.test(url)) return null;
  let parsed: URL;
  try {
    parsed = new URL(/^https?:\/\//i.test(url) ? url : `https://${url}`);
  } catch {
    return null;
  }
  const host = parsed.hostname.replace(/^(www|m)\./, '');
  let videoId: string | null;
  let isShorts = false;
  if (host === 'youtu.be') {
    videoId = parsed.pathname.split('/')[1] ?? null;
  } else {
    const shorts = /^\/shorts\/([^/?#]+)/.exec(parsed.pathname);
    const embed = /^\/(embed|live)\/([^/?#]+)/.exec(parsed.pathname);
    if (shorts) {
      videoId = shorts[1]!;
      isShorts = true;
    } else if (embed) {
      videoId = embed[2]!;
    } else {
      videoId = parsed.searchParams.get('v');
    }
  }
  if (!videoId || !/^[A-Za-z0-9_-]{6,20}$/.test(videoId)) return null;
  return {
    videoId,
    url,
    embedUrl: youtubeEmbedUrl(videoId),
    thumbnailUrl: youtubeThumbnailUrl(videoId),
    isShorts,
  };
}

/** Uploaded files are served under /uploads/{storage key} (SPEC.md §7). */
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
