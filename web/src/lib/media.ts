import { byOrder, parseYoutubeUrl, youtubeEmbedUrl, youtubeThumbnailUrl } from '@blog/contracts/media-view';
import type { MediaItemView } from '@blog/contracts/posts';

/** Files that are part of the site's frame, never a post's media (docs/product.md#what-a-post-holds). */
const FRAME_ASSET =
  /(^|\/)(header|banner)[^/]*\.[a-z0-9]+$|\/assets\/header\/|(^|\/)(icons?|favicon)[^/]*\//i;

/**
 * The media a post page shows, in order: duplicates removed (files by path, YouTube by url),
 * frame assets hidden (docs/product.md#limits-and-timings).
 */
export function carouselItems(media: MediaItemView[]): MediaItemView[] {
  const seen = new Set<string>();
  const items: MediaItemView[] = [];
  for (const item of [...media].sort(byOrder)) {
    const key = item.type === 'youtube' ? `yt:${item.url ?? ''}` : `file:${item.path ?? ''}`;
    if (seen.has(key)) continue;
    if (item.type !== 'youtube' && (!item.path || FRAME_ASSET.test(item.path))) continue;
    seen.add(key);
    items.push(item);
  }
  return items;
}

/** The privacy-enhanced embed and the thumbnail of a YouTube item, from its own URL when it parses. */
export function youtubeSources(item: MediaItemView): { embedUrl: string; thumbnailUrl: string } | null {
  const parsed = item.url ? parseYoutubeUrl(item.url) : null;
  if (parsed)
    return { embedUrl: youtubeEmbedUrl(parsed.videoId), thumbnailUrl: youtubeThumbnailUrl(parsed.videoId) };
  if (item.embedUrl && item.thumbnailUrl) return { embedUrl: item.embedUrl, thumbnailUrl: item.thumbnailUrl };
  return null;
}

export { pictureSources, type PictureSources } from '@blog/contracts/media-view';
