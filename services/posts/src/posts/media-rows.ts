import type { PostForm } from '@blog/contracts';
import { randomUUID } from 'node:crypto';
import { cropOf } from '../media-items/media-keys.js';
import type { MediaPlan } from './media-plan.js';
import { MediaItem } from './media-item.entity.js';

/** New items' references in the text (`media:REF`) → the ids their rows got. */
export function refsOf(plan: MediaPlan, rows: MediaItem[]): Map<string, string> {
  const refs = new Map<string, string>();
  plan.items.forEach((planned, i) => {
    if (planned.details?.ref) refs.set(planned.details.ref, rows[i]!.id);
  });
  return refs;
}

/** Rows for the planned list (the caller sets postId): positions from 0, crop settings on the main image. */
export function mediaRowsOf(plan: MediaPlan, crop: PostForm['cropSettings']): MediaItem[] {
  return plan.items.map((planned, position) => {
    const row = new MediaItem();
    if (planned.kind === 'existing') {
      Object.assign(row, planned.item);
      if (planned.title) row.title = planned.title;
    } else if (planned.kind === 'file') {
      Object.assign(row, {
        id: randomUUID(),
        type: planned.file.type,
        // The media worker makes what is served; until then only admins see the item.
        status: 'pending',
        originalKey: planned.file.key,
        storageKey: null,
        variants: [],
        statusChangedAt: new Date(),
        name: planned.file.name,
        mimeType: planned.file.mimeType,
        sizeBytes: String(planned.file.size),
      });
    } else {
      Object.assign(row, {
        id: randomUUID(),
        type: 'youtube',
        status: 'ready',
        youtubeUrl: planned.video.url,
        youtubeId: planned.video.videoId,
        isShorts: planned.video.isShorts,
        title: planned.title?.trim() || null,
      });
    }
    // Alt text and caption: kept when the form does not send them, cleared when it sends ''.
    const { alt, caption } = planned.details ?? {};
    if (alt !== undefined) row.alt = alt || null;
    else if (planned.kind !== 'existing') row.alt = null;
    if (caption !== undefined) row.caption = caption || null;
    else if (planned.kind !== 'existing') row.caption = null;
    row.position = position;
    if (position === plan.mainImageAt && crop) {
      row.cropX = crop.x;
      row.cropY = crop.y;
      row.cropScale = crop.scale;
    }
    // A processed image whose crop changed is rendered again; it stays served meanwhile.
    if (
      planned.kind === 'existing' &&
      row.originalKey &&
      row.status !== 'pending' &&
      JSON.stringify(cropOf(row)) !== JSON.stringify(cropOf(planned.item))
    ) {
      row.reprocess = true;
      row.statusChangedAt = new Date();
      row.processingAttempts = 0;
    }
    return row;
  });
}
