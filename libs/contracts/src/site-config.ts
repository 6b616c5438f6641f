import { z } from 'zod';
import { deriveSegment, siteNodes, type SiteCategory, type SiteConfig } from './site.js';
import {
  ALSO_KNOWN_AS_MAX,
  FEDIVERSE_ACCOUNT_URI_ERROR,
  FEDIVERSE_ACCOUNT_URI_MAX,
  FEDIVERSE_AVATAR,
  FEDIVERSE_AVATAR_ERROR,
  FEDIVERSE_AVATAR_MAX,
  FEDIVERSE_DEFAULTS,
  FEDIVERSE_HANDLE,
  FEDIVERSE_HANDLE_ERROR,
  FEDIVERSE_POST_FORMATS,
  NEWSLETTER_DEFAULTS,
  QUOTE_POLICIES,
} from './site-settings.js';

/** Validates the owner's site file (SITE_CONFIG) into the resolved SiteConfig. */

const SEGMENT = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const nodeId = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,39}$/, 'id must be 1-40 lowercase letters, digits and hyphens');
const label = z.string().trim().min(1, 'label is required').max(80, 'label is too long');
const segment = z.string().regex(SEGMENT, 'segment must be lowercase letters, digits and single hyphens');

const entryInput = z.object({
  id: nodeId.optional(),
  label,
  segment: segment.optional(),
  /** The page shows 'This page is under construction.' instead of a listing (docs/product.md#pages-and-urls). */
  underConstruction: z.boolean().optional(),
});
const subcategoryInput = z.object({
  id: nodeId.optional(),
  label,
  segment: segment.optional(),
  intro: z.string().optional(),
  entries: z.array(entryInput).default([]),
});
const categoryInput = z.object({
  id: nodeId.optional(),
  label,
  segment: segment.optional(),
  intro: z.string().optional(),
  emptyText: z.string().optional(),
  subcategories: z.array(subcategoryInput).min(1, 'a category needs at least one sub-category'),
});
/** An account's actor URI (an alias, or where the followers moved). */
const fediverseAccountUri = z
  .string({ error: FEDIVERSE_ACCOUNT_URI_ERROR })
  .trim()
  .max(FEDIVERSE_ACCOUNT_URI_MAX, FEDIVERSE_ACCOUNT_URI_ERROR)
  .pipe(z.url({ protocol: /^https?$/, error: FEDIVERSE_ACCOUNT_URI_ERROR }));
export const fediverseSettingsSchema = z.object({
  handle: z.string().regex(FEDIVERSE_HANDLE, FEDIVERSE_HANDLE_ERROR).default(FEDIVERSE_DEFAULTS.handle),
  approveFollowers: z.boolean().default(FEDIVERSE_DEFAULTS.approveFollowers),
  avatarImage: z
    .string()
    .max(FEDIVERSE_AVATAR_MAX, FEDIVERSE_AVATAR_ERROR)
    .regex(FEDIVERSE_AVATAR, FEDIVERSE_AVATAR_ERROR)
    .default(FEDIVERSE_DEFAULTS.avatarImage),
  postFormat: z
    .enum(FEDIVERSE_POST_FORMATS, { error: 'postFormat must be "article" or "note"' })
    .default(FEDIVERSE_DEFAULTS.postFormat),
  quotePolicy: z
    .enum(QUOTE_POLICIES, { error: 'quotePolicy must be "anyone", "followers" or "nobody"' })
    .default(FEDIVERSE_DEFAULTS.quotePolicy),
  alsoKnownAs: z
    .array(fediverseAccountUri)
    .max(ALSO_KNOWN_AS_MAX, `alsoKnownAs takes at most ${ALSO_KNOWN_AS_MAX} accounts`)
    .default([]),
  movedTo: z.union([z.literal(''), fediverseAccountUri]).default(FEDIVERSE_DEFAULTS.movedTo),
  indexable: z.boolean({ error: 'indexable must be true or false' }).default(FEDIVERSE_DEFAULTS.indexable),
  discoverable: z
    .boolean({ error: 'discoverable must be true or false' })
    .default(FEDIVERSE_DEFAULTS.discoverable),
  showFollowing: z
    .boolean({ error: 'showFollowing must be true or false' })
    .default(FEDIVERSE_DEFAULTS.showFollowing),
});
export const newsletterSettingsSchema = z.object({
  sendByDefault: z
    .boolean({ error: 'sendByDefault must be true or false' })
    .default(NEWSLETTER_DEFAULTS.sendByDefault),
});
export const siteConfigInputSchema = z.object({
  title: z.string().min(1),
  searchTitle: z.string().min(1),
  welcome: z.object({ title: z.string().min(1), text: z.string() }),
  about: z.object({ title: z.string().min(1), text: z.string() }),
  bannerImage: z.string(),
  footerText: z.string(),
  registrationOpen: z.boolean().default(true),
  fediverse: fediverseSettingsSchema.prefault({}),
  newsletter: newsletterSettingsSchema.prefault({}),
  categories: z.array(categoryInput).min(1, 'at least one category is required'),
});
export type SiteConfigInput = z.input<typeof siteConfigInputSchema>;

/** The web app's own top-level paths: a category's segment cannot take one of them. */
export const APP_ROUTES = [
  'about',
  'account',
  'admin',
  'api',
  'assets',
  'contact',
  'login',
  'media',
  'post',
  'register',
  'uploads',
];

const isGeneral = (value: string) => value.trim().toLowerCase() === 'general';

export class SiteConfigError extends Error {
  override name = 'SiteConfigError';
}

/** Names an entry by its position and label: categories[6] "Garage" → subcategories[0] "Automobiles". */
function describePath(raw: unknown, path: PropertyKey[]): string {
  const parts: string[] = [];
  let node: unknown = raw;
  for (const key of path) {
    node = node && typeof node === 'object' ? (node as Record<PropertyKey, unknown>)[key] : undefined;
    if (typeof key === 'number') {
      const name = node && typeof node === 'object' ? (node as { label?: unknown }).label : undefined;
      parts[parts.length - 1] += `[${key}]${typeof name === 'string' ? ` "${name}"` : ''}`;
    } else {
      parts.push(String(key));
    }
  }
  return parts.join(' → ') || '(root)';
}

function assertUnique(items: { label: string; segment: string }[], where: string) {
  const seen = new Map<string, string>();
  for (const item of items) {
    for (const key of [`segment "${item.segment}"`, `label "${item.label.toLowerCase()}"`]) {
      if (seen.has(key))
        throw new SiteConfigError(`Invalid site config: ${where}: duplicate ${key} ("${item.label}")`);
      seen.set(key, item.label);
    }
  }
}

/** Validates the owner's file and fills in derived segments; the error names the wrong entry. */
export function parseSiteConfig(raw: unknown): SiteConfig {
  const result = siteConfigInputSchema.safeParse(raw);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    throw new SiteConfigError(`Invalid site config: ${describePath(raw, issue.path)}: ${issue.message}`);
  }
  const input = result.data;
  // A node keeps its id; a new one (or the file's, which names none) gets a fresh one.
  const idOf = (node: { id?: string }) =>
    node.id ?? `n${globalThis.crypto.randomUUID().replace(/-/g, '').slice(0, 11)}`;
  const categories: SiteCategory[] = input.categories.map((category) => ({
    id: idOf(category),
    label: category.label,
    segment: category.segment ?? deriveSegment(category.label),
    intro: category.intro,
    emptyText: category.emptyText,
    subcategories: category.subcategories.map((sub) => ({
      id: idOf(sub),
      label: sub.label,
      segment: sub.segment ?? deriveSegment(sub.label),
      general: isGeneral(sub.label),
      intro: sub.intro,
      entries: sub.entries.map((entry) => ({
        id: idOf(entry),
        label: entry.label,
        segment: entry.segment ?? deriveSegment(entry.label),
        general: isGeneral(entry.label),
        ...(entry.underConstruction ? { underConstruction: true } : {}),
      })),
    })),
  }));
  assertUnique(categories, 'categories');
  categories.forEach((category, i) => {
    if (APP_ROUTES.includes(category.segment))
      throw new SiteConfigError(
        `Invalid site config: categories[${i}] "${category.label}": segment "${category.segment}" is a page of the site itself; set another "segment"`,
      );
  });
  categories.forEach((category, i) => {
    const where = `categories[${i}] "${category.label}"`;
    assertUnique(category.subcategories, `${where} → subcategories`);
    category.subcategories.forEach((sub, j) => {
      assertUnique(sub.entries, `${where} → subcategories[${j}] "${sub.label}" → entries`);
      for (const entry of sub.entries) {
        if (!SEGMENT.test(entry.segment)) {
          throw new SiteConfigError(
            `Invalid site config: ${where} → "${sub.label}" → "${entry.label}": cannot derive a URL segment; set "segment"`,
          );
        }
      }
    });
  });
  const ids = new Set<string>();
  for (const node of siteNodes({ ...input, categories })) {
    if (ids.has(node.id))
      throw new SiteConfigError(
        `Invalid site config: ${node.labels.join(' → ')}: id "${node.id}" is used twice`,
      );
    ids.add(node.id);
  }
  return { ...input, categories };
}
