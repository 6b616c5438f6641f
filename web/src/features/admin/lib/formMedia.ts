import { AdminText } from '@blog/contracts/admin';
import { byOrder, parseYoutubeUrl, YOUTUBE_URL_ERROR } from '@blog/contracts/media';
import type { UnifiedMediaInput } from '@blog/contracts/post-form';
import type { MediaItemView } from '@blog/contracts/posts';

/** One entry of the form's media list: a file picked now, a saved upload, or a YouTube link. */
export type FormMedia =
  | {
      key: string;
      source: 'new';
      type: 'image' | 'video';
      order: number;
      file: File;
      name: string;
      preview: string | null;
      alt?: string;
      caption?: string;
    }
  | {
      key: string;
      source: 'saved';
      type: 'image' | 'video';
      order: number;
      item: MediaItemView;
      alt?: string;
      caption?: string;
    }
  | {
      key: string;
      source: 'youtube';
      type: 'youtube';
      order: number;
      url: string;
      title: string;
      thumbnailUrl: string;
    };

/** Orders become 0, 1, 2… in list order (docs/product.md#what-a-post-holds). */
export function renumber(items: FormMedia[]): FormMedia[] {
  return items.map((item, order) => (item.order === order ? item : { ...item, order }));
}

export function removeMedia(items: FormMedia[], key: string): FormMedia[] {
  return renumber(items.filter((item) => item.key !== key));
}

/** Moves one item to another's place (drag and drop or keyboard), renumbering all. */
export function moveMedia(items: FormMedia[], fromKey: string, toKey: string): FormMedia[] {
  const from = items.findIndex((i) => i.key === fromKey);
  const to = items.findIndex((i) => i.key === toKey);
  if (from < 0 || to < 0 || from === to) return items;
  const next = [...items];
  const [moved] = next.splice(from, 1);
  next.splice(to, 0, moved!);
  return renumber(next);
}

/** The main image is the first image in the list; the next takes over when it goes. */
export function mainImage(items: FormMedia[]): FormMedia | null {
  return items.find((item) => item.type === 'image') ?? null;
}

/** A saved post's media as the form edits them, in order (missing order last). */
export function mediaFromPost(media: MediaItemView[]): FormMedia[] {
  return renumber(
    [...media].sort(byOrder).map((item): FormMedia =>
      item.type === 'youtube'
        ? {
            key: item.id,
            source: 'youtube',
            type: 'youtube',
            order: item.order,
            url: item.url ?? '',
            title: item.title ?? '',
            thumbnailUrl: item.thumbnailUrl ?? '',
          }
        : {
            key: item.id,
            source: 'saved',
            type: item.type,
            order: item.order,
            item,
            alt: item.alt ?? '',
            caption: item.caption ?? '',
          },
    ),
  );
}

/**
 * Adds a YouTube link at the end (docs/product.md#limits-and-timings): a blank URL is ignored, an invalid one refused,
 * a missing title becomes 'YouTube Video N'.
 */
export function addYoutube(
  items: FormMedia[],
  url: string,
  title: string,
  key: string,
): { items: FormMedia[]; error: string | null } {
  if (!url.trim()) return { items, error: null };
  const video = parseYoutubeUrl(url);
  if (!video) return { items, error: YOUTUBE_URL_ERROR };
  const count = items.filter((i) => i.type === 'youtube').length;
  const entry: FormMedia = {
    key,
    source: 'youtube',
    type: 'youtube',
    order: items.length,
    url: video.url,
    title: title.trim() || AdminText.youtubeTitle(count + 1),
    thumbnailUrl: video.thumbnailUrl,
  };
  return { items: [...items, entry], error: null };
}

/** What the multipart form carries for the media (docs/api.md#post-apiposts). */
export interface MediaPayload {
  /** The form's entries as the server reads them (the shared schema's type). */
  unifiedMedia: UnifiedMediaInput[];
  files: File[];
}

/**
 * The Markdown that places an item in the text, by its key: a saved item's key is its id, a
 * new one's is swapped for the id on save (sent as the entry's `ref`).
 */
export function mediaMarkdown(item: FormMedia): string {
  const alt = item.source === 'youtube' ? '' : (item.alt ?? '');
  return `![${alt.replace(/[[\]]/g, '')}](media:${item.key})`;
}

/** Sets an image's or video's alt text or caption. */
export function describeMedia(
  items: FormMedia[],
  key: string,
  field: 'alt' | 'caption',
  value: string,
): FormMedia[] {
  return items.map((item) =>
    item.key === key && item.source !== 'youtube' ? { ...item, [field]: value } : item,
  );
}

/** Duplicates go on submit: files by path, YouTube links by url (docs/product.md#limits-and-timings). */
export function mediaPayload(items: FormMedia[]): MediaPayload {
  const seen = new Set<string>();
  const files: File[] = [];
  const unifiedMedia: MediaPayload['unifiedMedia'] = [];
  for (const item of items) {
    const identity =
      item.source === 'youtube'
        ? `yt:${item.url}`
        : item.source === 'saved'
          ? `path:${item.item.path}`
          : `new:${item.key}`;
    if (seen.has(identity)) continue;
    seen.add(identity);
    const order = unifiedMedia.length;
    const ref = item.key;
    if (item.source === 'youtube')
      unifiedMedia.push({ type: 'youtube', order, url: item.url, title: item.title, ref });
    else {
      const text = { alt: item.alt ?? '', caption: item.caption ?? '' };
      if (item.source === 'saved')
        unifiedMedia.push({
          type: item.type,
          order,
          path: item.item.path,
          name: item.item.name ?? undefined,
          ...text,
        });
      else {
        unifiedMedia.push({
          type: item.type,
          order,
          name: item.name,
          fileIndex: files.length,
          isNew: true,
          ref,
          ...text,
        });
        files.push(item.file);
      }
    }
  }
  return { unifiedMedia, files };
}
