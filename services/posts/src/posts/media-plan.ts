import {
  byOrder,
  keyFromUploadsPath,
  parseYoutubeUrl,
  YOUTUBE_URL_ERROR,
  type PostForm,
  type UploadedFile,
  type YoutubeVideo,
} from '@blog/contracts';
import type { MediaItem } from './media-item.entity.js';

/** What the form says of an item besides its file: alt text, caption, and a new item's reference in the text. */
export interface ItemDetails {
  alt?: string;
  caption?: string;
  ref?: string;
}

export type PlannedItem = (
  | { kind: 'existing'; item: MediaItem; title?: string }
  | { kind: 'file'; file: UploadedFile }
  | { kind: 'youtube'; video: YoutubeVideo; title?: string }
) & { details?: ItemDetails };

export interface MediaPlan {
  /** The post's media in their final order (index = position). */
  items: PlannedItem[];
  /** Existing items the form no longer lists: their rows and files go. */
  removed: MediaItem[];
  /** Position of the main image that the crop settings apply to, if any image. */
  mainImageAt: number | null;
}

export class MediaPlanError extends Error {}

const MAX_ITEMS = 200;

function youtube(url: string, where: string): YoutubeVideo {
  const video = parseYoutubeUrl(url);
  if (!video) throw new MediaPlanError(`${YOUTUBE_URL_ERROR} (${where})`);
  return video;
}

/**
 * Turns the form's media fields into the post's ordered media list (docs/product.md#what-a-post-holds):
 * unifiedMedia when sent (new files by fileIndex or name), else existingFiles, then the
 * uploaded files, then youtubeUrls. Uploaded files are never dropped silently; duplicates
 * go (files by path, YouTube by video); mainImageIndex moves that image to the front.
 */
export function planMedia(form: PostForm, files: UploadedFile[], existing: MediaItem[]): MediaPlan {
  // An item is known by its served path, or by its original's while it is still pending.
  const existingByKey = new Map<string, MediaItem>();
  for (const m of existing) {
    if (m.originalKey) existingByKey.set(m.originalKey, m);
    if (m.storageKey) existingByKey.set(m.storageKey, m);
  }
  const existingByVideo = new Map(existing.filter((m) => m.youtubeId).map((m) => [m.youtubeId!, m]));
  const usedFiles = new Set<number>();
  const items: PlannedItem[] = [];

  const addExistingPath = (path: string, where: string, details?: ItemDetails) => {
    const item = existingByKey.get(keyFromUploadsPath(path));
    if (!item) throw new MediaPlanError(`${where}: unknown file "${path}"`);
    items.push({ kind: 'existing', item, details });
  };
  const addYoutube = (url: string, title: string | undefined, where: string, details?: ItemDetails) => {
    if (!url.trim()) return; // a blank URL is ignored (docs/product.md#limits-and-timings)
    const video = youtube(url, where);
    const known = existingByVideo.get(video.videoId);
    items.push(
      known ? { kind: 'existing', item: known, title, details } : { kind: 'youtube', video, title, details },
    );
  };
  const addFile = (index: number, details?: ItemDetails) => {
    usedFiles.add(index);
    items.push({ kind: 'file', file: files[index]!, details });
  };

  if (form.unifiedMedia && form.unifiedMedia.length > 0) {
    [...form.unifiedMedia].sort(byOrder).forEach((entry, i) => {
      const where = `unifiedMedia[${i}]`;
      const details: ItemDetails = { alt: entry.alt, caption: entry.caption, ref: entry.ref };
      if (entry.type === 'youtube') return addYoutube(entry.url ?? '', entry.title, where, details);
      if (entry.fileIndex !== undefined) {
        if (entry.fileIndex >= files.length || usedFiles.has(entry.fileIndex)) {
          throw new MediaPlanError(`${where}: no uploaded file ${entry.fileIndex}`);
        }
        return addFile(entry.fileIndex, details);
      }
      if (entry.path && !entry.isNew) return addExistingPath(entry.path, where, details);
      const byName = files.findIndex((f, index) => !usedFiles.has(index) && f.name === entry.name);
      if (byName >= 0) return addFile(byName, details);
      throw new MediaPlanError(`${where}: neither a known file nor an uploaded one`);
    });
  } else {
    [...(form.existingFiles ?? [])].sort(byOrder).forEach((entry, i) => {
      const where = `existingFiles[${i}]`;
      const details: ItemDetails = { alt: entry.alt, caption: entry.caption };
      if (entry.type === 'youtube' || (!entry.path && entry.url))
        return addYoutube(entry.url ?? '', entry.title, where, details);
      if (entry.path) addExistingPath(entry.path, where, details);
    });
  }
  files.forEach((_file, index) => {
    if (!usedFiles.has(index)) addFile(index);
  });
  (form.youtubeUrls ?? []).forEach((entry, i) => {
    const { url, title } = typeof entry === 'string' ? { url: entry, title: undefined } : entry;
    addYoutube(url, title, `youtubeUrls[${i}]`);
  });

  const unique = dedupe(items);
  if (unique.length > MAX_ITEMS) throw new MediaPlanError(`A post can have at most ${MAX_ITEMS} media items`);
  const ordered = promoteMainImage(unique, form.mainImageIndex);
  const kept = new Set(
    ordered.filter((p) => p.kind === 'existing').map((p) => (p as { item: MediaItem }).item.id),
  );
  const firstImage = ordered.findIndex(isImage);
  return {
    items: ordered,
    removed: existing.filter((m) => !kept.has(m.id)),
    mainImageAt: firstImage >= 0 ? firstImage : null,
  };
}

function identity(planned: PlannedItem): string {
  if (planned.kind === 'file') return `file:${planned.file.key}`;
  if (planned.kind === 'youtube') return `youtube:${planned.video.videoId}`;
  const { item } = planned;
  return item.youtubeId
    ? `youtube:${item.youtubeId}`
    : `file:${item.originalKey ?? item.storageKey ?? item.id}`;
}

function dedupe(items: PlannedItem[]): PlannedItem[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const id = identity(item);
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

function isImage(planned: PlannedItem): boolean {
  return planned.kind === 'file'
    ? planned.file.type === 'image'
    : planned.kind === 'existing' && planned.item.type === 'image';
}

/** mainImageIndex counts images only; that image becomes the first item (the main media). */
function promoteMainImage(items: PlannedItem[], mainImageIndex: number | undefined): PlannedItem[] {
  if (mainImageIndex === undefined) return items;
  const images = items.filter(isImage);
  const main = images[mainImageIndex];
  if (!main) return items;
  return [main, ...items.filter((item) => item !== main)];
}
