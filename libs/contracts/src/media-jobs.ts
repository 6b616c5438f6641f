import { z } from 'zod';

/** The media pipeline's messages between the gateway, the posts service and the media service. */

/** An uploaded file still waiting for processing, as the posts service hands it to the media worker. */
export interface PendingMediaItem {
  id: string;
  type: 'image' | 'video';
  /** Private storage key of the owner's original (never served). */
  originalKey: string;
  mimeType: string | null;
  crop: { x: number; y: number; scale: number } | null;
}

/** One derived file: a srcset width in one format, or a poster. */
export interface MediaVariant {
  key: string;
  format: string;
  width: number;
  height: number;
  size: number;
}

/**
 * What the worker made of one item. `originalKey` and `crop` (as the job had them) guard
 * against applying it to an item that was replaced or re-cropped meanwhile.
 */
export type MediaResult =
  | {
      id: string;
      originalKey: string;
      crop: PendingMediaItem['crop'];
      status: 'ready';
      storageKey: string;
      thumbnailKey: string | null;
      croppedPreviewKey: string | null;
      width: number;
      height: number;
      durationSeconds: number | null;
      variants: MediaVariant[];
    }
  | { id: string; originalKey: string; crop: PendingMediaItem['crop']; status: 'failed'; error: string };

/** A processing run of one item, as the worker reports it (`error` when it failed). */
export interface MediaRun {
  id: string;
  originalKey: string;
  error?: string;
}

/**
 * The run just counted: `attempts` includes it, `lastError` is the previous run's failure.
 * Null when the item is gone, replaced or no longer waiting (nothing to do).
 */
export type MediaRunStarted = { attempts: number; lastError: string | null } | null;

/** Which pending items to hand out: these ids, or those pending for longer than `olderThanSeconds`. */
export interface PendingMediaQuery {
  ids?: string[];
  olderThanSeconds?: number;
  limit?: number;
}

/** A srcset entry of an image as the API shows it. */
export interface VariantView {
  path: string;
  format: string;
  width: number;
  height: number;
}

/** posts.pendingMedia's request (PendingMediaQuery). */
export const pendingMediaQuerySchema = z.object({
  ids: z.array(z.string().uuid()).max(1000).optional(),
  olderThanSeconds: z.number().int().nonnegative().optional(),
  limit: z.number().int().positive().max(1000).optional(),
});

/** posts.mediaRunStarted's and posts.mediaRunFailed's request (MediaRun). */
export const mediaRunSchema = z.object({
  id: z.string().uuid(),
  originalKey: z.string().min(1),
  error: z.string().max(2000).optional(),
});

const variantSchema = z.object({
  key: z.string().min(1),
  format: z.string().min(1),
  width: z.number().int().nonnegative(),
  height: z.number().int().nonnegative(),
  size: z.number().int().nonnegative(),
});
const cropSchema = z.object({ x: z.number(), y: z.number(), scale: z.number() }).nullable();

/** posts.mediaResult's request (MediaResult): the worker's outcome for one item. */
export const mediaResultSchema = z.discriminatedUnion('status', [
  z.object({
    id: z.string().uuid(),
    originalKey: z.string().min(1),
    crop: cropSchema,
    status: z.literal('ready'),
    storageKey: z.string().min(1),
    thumbnailKey: z.string().min(1).nullable(),
    croppedPreviewKey: z.string().min(1).nullable(),
    width: z.number().int().nonnegative(),
    height: z.number().int().nonnegative(),
    durationSeconds: z.number().nonnegative().nullable(),
    variants: z.array(variantSchema).max(100),
  }),
  z.object({
    id: z.string().uuid(),
    originalKey: z.string().min(1),
    crop: cropSchema,
    status: z.literal('failed'),
    error: z.string().max(1000),
  }),
]);
