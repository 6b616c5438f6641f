import {
  buildPostPath,
  uploadsPath,
  youtubeEmbedUrl,
  youtubeThumbnailUrl,
  type MainMedia,
  type MediaItemView,
  type PostView,
  type SiteConfig,
  type VariantView,
} from '@blog/contracts';
import type { MediaItem } from './media-item.entity.js';
import type { Post } from './post.entity.js';
import { visibilityOf } from './visibility.js';

const path = (key: string | null) => (key ? uploadsPath(key) : null);

function youtubeFields(item: MediaItem) {
  const id = item.youtubeId ?? '';
  return {
    url: item.youtubeUrl ?? '',
    embedUrl: youtubeEmbedUrl(id),
    thumbnailUrl: youtubeThumbnailUrl(id),
    isShorts: item.isShorts,
  };
}

function variantViews(item: MediaItem): VariantView[] {
  return (item.variants ?? [])
    .filter((v) => v.format !== 'poster' && v.format !== 'video')
    .map((v) => ({ path: uploadsPath(v.key), format: v.format, width: v.width, height: v.height }));
}

export function toMediaView(item: MediaItem, index: number): MediaItemView {
  const base = { id: item.id, type: item.type, order: index, status: item.status };
  if (item.type === 'youtube') {
    return { ...base, ...youtubeFields(item), title: item.title ?? `YouTube Video ${index + 1}` };
  }
  return {
    ...base,
    // Until processed only an admin sees the item; its path then names the private original.
    path: path(item.storageKey ?? item.originalKey)!,
    name: item.name,
    thumbnailPath: path(item.thumbnailKey),
    cropX: item.cropX,
    cropY: item.cropY,
    cropScale: item.cropScale,
    croppedPreviewPath: path(item.croppedPreviewKey),
    width: item.width,
    height: item.height,
    ...(item.type === 'video' ? { duration: item.durationSeconds } : {}),
    variants: variantViews(item),
    error: item.error,
    alt: item.alt,
    caption: item.caption,
  };
}

function mainMediaOf(first: MediaItemView | undefined): MainMedia | null {
  if (!first) return null;
  if (first.type === 'youtube') {
    return { type: 'youtube', url: first.url, thumbnailUrl: first.thumbnailUrl, embedUrl: first.embedUrl };
  }
  if (first.type === 'video')
    return {
      type: 'video',
      path: first.path,
      thumbnailPath: first.thumbnailPath ?? null,
      alt: first.alt ?? null,
    };
  return { type: 'image', path: first.croppedPreviewPath ?? first.path, alt: first.alt ?? null };
}

/**
 * The API shape of a post (docs/product.md#what-a-post-holds): the unified ordered media list plus the legacy
 * images / videos / youtubeVideos arrays and mainMedia (the first item by order).
 * Visitors get only ready items; admins every item with its status.
 */
export function toPostView(
  post: Post,
  media: MediaItem[],
  site: SiteConfig,
  includeAllMedia = false,
): PostView {
  const visible = [...media]
    .sort((a, b) => a.position - b.position)
    .filter((m) => includeAllMedia || m.status === 'ready');
  const views = visible.map(toMediaView);
  const submenu = post.submenu2 ? `${post.submenu1}/${post.submenu2}` : post.submenu1;
  return {
    id: post.id,
    title: post.title,
    // Both texts are loaded for single posts and for lists that ask (not selected by default).
    ...(post.content !== undefined && { content: post.content }),
    ...(post.contentHtml !== undefined && { contentHtml: post.contentHtml }),
    excerpt: post.excerpt,
    readingMinutes: post.readingMinutes,
    status: visibilityOf(post),
    slug: post.slug,
    category: post.category,
    submenu,
    submenu1: post.submenu1,
    submenu2: post.submenu2,
    tags: post.tags,
    created_at: post.createdAt.toISOString(),
    updated_at: post.updatedAt.toISOString(),
    url: buildPostPath(site, post),
    // The admin's reads only (they ask for every item): whether the post is to be e-mailed.
    ...(includeAllMedia && post.sendByEmail !== undefined && { sendByEmail: post.sendByEmail }),
    images: views
      .filter((v) => v.type === 'image')
      .map((v) => ({
        id: v.id,
        path: v.path!,
        order: v.order,
        name: v.name ?? null,
        cropX: v.cropX ?? null,
        cropY: v.cropY ?? null,
        cropScale: v.cropScale ?? null,
        croppedPreviewPath: v.croppedPreviewPath ?? null,
        width: v.width ?? null,
        height: v.height ?? null,
        status: v.status,
        variants: v.variants ?? [],
        alt: v.alt ?? null,
        caption: v.caption ?? null,
      })),
    videos: views
      .filter((v) => v.type === 'video')
      .map((v) => ({
        id: v.id,
        path: v.path!,
        name: v.name ?? null,
        order: v.order,
        thumbnailPath: v.thumbnailPath ?? null,
        status: v.status,
      })),
    youtubeVideos: views
      .filter((v) => v.type === 'youtube')
      .map((v) => ({
        id: v.id,
        url: v.url!,
        title: v.title!,
        embedUrl: v.embedUrl!,
        thumbnailUrl: v.thumbnailUrl!,
        isShorts: v.isShorts ?? false,
        order: v.order,
      })),
    mainMedia: mainMediaOf(views[0]),
    media: views,
    mediaReady: media.every((m) => m.status === 'ready'),
  };
}
