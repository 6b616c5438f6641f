import {
  findCategory,
  findEntry,
  findSubcategory,
  type SiteCategory,
  type SiteConfig,
  type SiteEntry,
  type SiteSubcategory,
} from './site.js';

/** Where a post sits in the tree, by canonical labels (what posts store). */
export interface Placement {
  category: string;
  submenu1: string;
  /** null when the sub-category has no level 2. */
  submenu2: string | null;
  /** 'level1/level2', or 'level1' alone when there is no level 2 (docs/product.md#what-a-post-holds). */
  submenu: string;
  /** The id of the deepest node: what the post keeps when labels or segments change. */
  placeId: string;
}

export interface PlacementInput {
  category?: string | null;
  submenu1?: string | null;
  submenu2?: string | null;
}

export class PlacementError extends Error {
  constructor(
    readonly field: 'category' | 'submenu1' | 'submenu2',
    message: string,
  ) {
    super(message);
  }
}

const blank = (value: string | null | undefined) => !value || value.trim() === '';

/**
 * Checks a category/submenu1/submenu2 choice against the tree. A missing level defaults
 * to the first entry, as the post form does when the category changes (docs/product.md#how-the-screens-behave).
 */
export function resolvePlacement(site: SiteConfig, input: PlacementInput): Placement {
  if (blank(input.category)) throw new PlacementError('category', 'category is required');
  const category = findCategory(site, input.category!);
  if (!category) throw new PlacementError('category', `Unknown category "${input.category}"`);
  const sub = blank(input.submenu1) ? category.subcategories[0]! : findSubcategory(category, input.submenu1!);
  if (!sub) throw new PlacementError('submenu1', `Unknown submenu1 "${input.submenu1}" in ${category.label}`);
  let entry: SiteEntry | null = null;
  if (sub.entries.length > 0) {
    entry = blank(input.submenu2) ? sub.entries[0]! : (findEntry(sub, input.submenu2!) ?? null);
    if (!entry)
      throw new PlacementError(
        'submenu2',
        `Unknown submenu2 "${input.submenu2}" in ${category.label} / ${sub.label}`,
      );
  } else if (!blank(input.submenu2) && input.submenu2!.trim().toLowerCase() !== 'general') {
    throw new PlacementError(
      'submenu2',
      `${category.label} / ${sub.label} has no submenu2 "${input.submenu2}"`,
    );
  }
  return {
    category: category.label,
    submenu1: sub.label,
    submenu2: entry?.label ?? null,
    submenu: entry ? `${sub.label}/${entry.label}` : sub.label,
    placeId: (entry ?? sub).id,
  };
}

/** The path of a listing or post: category segment, then each non-General level, then the slug. */
function treePath(category: SiteCategory, sub?: SiteSubcategory | null, entry?: SiteEntry | null): string[] {
  const parts = [category.segment];
  if (sub && !sub.general) parts.push(sub.segment);
  if (sub && entry && !entry.general) parts.push(entry.segment);
  return parts;
}

/**
 * A post's page path (docs/product.md#screens "Post URL building"): /projects/{slug},
 * /garage/automobiles/{slug}, /activities/racing/moto-gp/{slug}. Null when the post's
 * category is not in the tree (the web then falls back to /post/{id}).
 */
export function buildPostPath(
  site: SiteConfig,
  post: { category?: string | null; submenu1?: string | null; submenu2?: string | null; slug: string },
): string | null {
  if (!post.slug || !post.category) return null;
  const category = findCategory(site, post.category);
  if (!category) return null;
  const sub = blank(post.submenu1)
    ? category.subcategories.find((s) => s.general)
    : findSubcategory(category, post.submenu1!);
  const entry = sub && !blank(post.submenu2) ? findEntry(sub, post.submenu2!) : null;
  return `/${[...treePath(category, sub, entry), post.slug].join('/')}`;
}

/** The path of a section, sub-section or filtered sub-section listing. */
export function buildListingPath(site: SiteConfig, placement: PlacementInput): string | null {
  if (blank(placement.category)) return null;
  const category = findCategory(site, placement.category!);
  if (!category) return null;
  const sub = blank(placement.submenu1) ? null : findSubcategory(category, placement.submenu1!);
  const entry = sub && !blank(placement.submenu2) ? findEntry(sub, placement.submenu2!) : null;
  return `/${treePath(category, sub, entry).join('/')}`;
}

export type ResolvedPath =
  | { kind: 'section'; category: SiteCategory }
  | { kind: 'subsection'; category: SiteCategory; subcategory: SiteSubcategory; entry: SiteEntry | null }
  | {
      kind: 'post';
      category: SiteCategory;
      subcategory: SiteSubcategory | null;
      entry: SiteEntry | null;
      slug: string;
    };

/**
 * The reverse of the builders: what a path shows. A segment that names a sub-category or a
 * level-2 entry is a listing; otherwise the last segment is a post slug (slugs never equal
 * a tree segment, so this is never ambiguous). Null for a path outside the tree.
 */
export function resolvePath(site: SiteConfig, path: string): ResolvedPath | null {
  const parts = path
    .split(/[?#]/)[0]!
    .split('/')
    .filter(Boolean)
    .map((p) => decodeURIComponent(p).toLowerCase());
  if (parts.length === 0) return null;
  const category = site.categories.find((c) => c.segment === parts[0]);
  if (!category) return null;
  if (parts.length === 1) return { kind: 'section', category };

  const named = category.subcategories.find((s) => !s.general && s.segment === parts[1]);
  const subcategory = named ?? category.subcategories.find((s) => s.general) ?? null;
  const rest = named ? parts.slice(2) : parts.slice(1);
  if (named && rest.length === 0) return { kind: 'subsection', category, subcategory: named, entry: null };

  const entry = subcategory?.entries.find((e) => !e.general && e.segment === rest[0]) ?? null;
  const afterEntry = entry ? rest.slice(1) : rest;
  if (entry && afterEntry.length === 0)
    return { kind: 'subsection', category, subcategory: subcategory!, entry };
  if (afterEntry.length !== 1) return null;
  if (!named && !subcategory) return null;
  return { kind: 'post', category, subcategory, entry, slug: afterEntry[0]! };
}

/**
 * Where an old path now lives: the longest old listing path that is `path` or a prefix of it
 * (at a segment boundary), with the rest of the path kept. Null when none applies.
 */
export function redirectFor(redirects: Record<string, string>, path: string): string | null {
  const clean = path.length > 1 ? path.replace(/\/+$/, '') : path;
  for (let prefix = clean; prefix.length > 1; prefix = prefix.slice(0, prefix.lastIndexOf('/')) || '/') {
    const target = redirects[prefix];
    if (target !== undefined) return target + clean.slice(prefix.length);
    if (prefix.lastIndexOf('/') <= 0) break;
  }
  return null;
}
