/** Media rules a reader's page needs too: order, YouTube links and picture sources (docs/product.md#what-a-post-holds, #limits-and-timings). */
import type { VariantView } from './media-jobs.js';
import type { MediaItemView } from './posts.js';

/** Missing order sorts last (docs/product.md#limits-and-timings). */
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

/** docs/product.md#limits-and-timings: optional http(s) scheme, optional www, youtube.com or youtu.be, then a path. */
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

export interface PictureSources {
  avif: string;
  webp: string;
  fallback: string;
  fallbackSrc: string;
  width: number | null;
  height: number | null;
}

const srcset = (variants: VariantView[]) => variants.map((v) => `${v.path} ${v.width}w`).join(', ');

/**
 * srcsets per format from the processed variants, for the carousel's <picture> and the
 * server's inline media alike: AVIF and WebP for browsers that take them, the original's
 * format as the fallback. The fallback src is its 800 px (or nearest) width.
 */
export function pictureSources(
  item: Pick<MediaItemView, 'path' | 'variants' | 'width' | 'height'>,
): PictureSources {
  const variants = [...(item.variants ?? [])].sort((a, b) => a.width - b.width);
  const of = (format: string) => variants.filter((v) => v.format === format);
  const fallback = variants.filter((v) => v.format !== 'avif' && v.format !== 'webp');
  const largest = variants.at(-1);
  const middle = fallback.find((v) => v.width >= 800) ?? fallback.at(-1);
  return {
    avif: srcset(of('avif')),
    webp: srcset(of('webp')),
    fallback: srcset(fallback),
    fallbackSrc: middle?.path ?? item.path ?? '',
    width: item.width ?? largest?.width ?? null,
    height: item.height ?? largest?.height ?? null,
  };
}
