import type { MediaItemView } from '@blog/contracts/posts';
import { Thumbnail } from '../ui/Thumbnail';

const STATE_LABEL = { pending: 'Processing', failed: 'Failed', ready: 'Ready' } as const;

/** The picture of a saved item, or null while there is none to show (pending, failed, no poster). */
export function thumbnailSrc(item: MediaItemView): string | null {
  if (item.type === 'youtube') return item.thumbnailUrl ?? null;
  if (item.status !== 'ready') return null;
  if (item.type === 'video') return item.thumbnailPath ?? null;
  const smallest = [...(item.variants ?? [])].sort((a, b) => a.width - b.width)[0];
  return smallest?.path ?? item.path ?? null;
}

/**
 * One saved media item as a small square with its processing state. A pending or failed
 * upload shows a placeholder (its path names a private original), never a broken image.
 */
export function MediaThumb({ item, index }: { item: MediaItemView; index: number }) {
  const src = thumbnailSrc(item);
  const name = item.type === 'youtube' ? (item.title ?? 'YouTube video') : (item.name ?? item.type);
  const state = item.type === 'youtube' ? 'YouTube' : STATE_LABEL[item.status];
  return (
    <figure className={`admin-thumb admin-thumb-${item.status}`} data-status={item.status}>
      <Thumbnail
        src={src}
        alt={`${index + 1}: ${name}, ${state}`}
        placeholder={item.type === 'video' ? '▶' : item.status === 'failed' ? '!' : '…'}
      />
      <figcaption className="admin-thumb-state">{state}</figcaption>
    </figure>
  );
}
