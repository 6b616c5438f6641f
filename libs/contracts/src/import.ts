import { z } from 'zod';

/** An import file may be this large (streamed to storage like uploads, parsed as a stream). */
export const IMPORT_MAX_BYTES = 2 * 1024 ** 3;

export const IMPORT_STATES = ['queued', 'running', 'done', 'failed'] as const;
export type ImportState = (typeof IMPORT_STATES)[number];

export const IMPORT_FORMATS = ['wxr', 'ghost', 'blog'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/**
 * The import form's fields besides the file. `categoryMap`: a WordPress category slug (or a
 * Ghost tag slug) → a node of this blog's tree, by its labels ("Garage / Automobiles") or id.
 * `sourceUrl`: the old site's address, for Ghost's `__GHOST_URL__` and relative links.
 * `drafts`: import the source's drafts as drafts, or skip them.
 */
export const importOptionsSchema = z.object({
  categoryMap: z.record(z.string().max(200), z.string().max(300)).default({}),
  sourceUrl: z
    .string()
    .trim()
    .max(500)
    .refine((v) => v === '' || /^https?:\/\/[^\s/]+/i.test(v), 'sourceUrl must be an http(s) address')
    .default(''),
  drafts: z.enum(['import', 'skip']).default('import'),
});
export type ImportOptions = z.infer<typeof importOptionsSchema>;

export interface ImportError {
  /** The post (its title, else its id in the source) or "file". */
  item: string;
  message: string;
}

/**
 * A post its source kept from the public (a WordPress password or private status, Ghost's
 * members, paid or tiers visibility): it is imported as a draft, never public, and named here.
 */
export interface ImportRestricted {
  /** The post's title. */
  item: string;
  /** "password-protected", "private", "members only", "paid members only", "specific tiers". */
  reason: string;
}

/** GET /api/admin/import/{id}: where an import stands. */
export interface ImportReport {
  id: string;
  state: ImportState;
  format: ImportFormat | null;
  percent: number;
  /** Items in the file that are posts (known once the file has been read through). */
  total: number;
  imported: number;
  updated: number;
  skipped: number;
  failed: number;
  media: { downloaded: number; failed: number };
  /** At most IMPORT_MAX_ERRORS; `failed` counts them all. */
  errors: ImportError[];
  /** Why items were skipped: "page: 3", "attachment: 12", "draft: 2". */
  skippedBy: Record<string, number>;
  /** Old URLs that now answer 301 to their post. */
  redirects: number;
  /** Notes restored from this blog's own export (absent for other formats, and when it held none). */
  notes?: number;
  /** Posts imported as drafts because their source restricted them (at most IMPORT_MAX_ERRORS). */
  restricted: ImportRestricted[];
  /** Why the whole import failed. */
  reason?: string;
  createdAt: string;
  updatedAt: string;
}

export const IMPORT_MAX_ERRORS = 200;
