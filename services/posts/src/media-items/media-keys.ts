import type { ObjectStorage } from '@blog/server-kit';
import type { Logger } from '@nestjs/common';
import type { MediaItem } from '../posts/media-item.entity.js';

/** Every storage key an item owns: the upload and what processing derived from it. */
export function keysOf(item: MediaItem): string[] {
  return [
    ...new Set(
      [
        item.originalKey,
        item.storageKey,
        item.thumbnailKey,
        item.croppedPreviewKey,
        ...(item.variants ?? []).map((v) => v.key),
      ].filter((k): k is string => !!k),
    ),
  ];
}

/** The crop the worker renders the preview from (images with crop settings). */
export function cropOf(item: MediaItem): { x: number; y: number; scale: number } | null {
  return item.cropScale !== null && item.cropScale !== undefined
    ? { x: item.cropX ?? 0, y: item.cropY ?? 0, scale: item.cropScale }
    : null;
}

/** The files processing derived from the original (what a newer result replaces). */
export function derivedKeysOf(item: MediaItem): string[] {
  return keysOf(item).filter((key) => key !== item.originalKey);
}

/** After the database changed: a file that fails to go is logged, never fatal (the post is already right). */
export async function deleteFiles(storage: ObjectStorage, keys: string[], logger: Logger): Promise<void> {
  if (keys.length === 0) return;
  try {
    await storage.deleteMany(keys);
  } catch (error) {
    logger.warn(`could not delete ${keys.length} files: ${(error as Error).message}`);
  }
}
