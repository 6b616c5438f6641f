/**
 * The site configuration (docs/product.md#site-settings-and-the-category-tree): texts and the category tree, as the services and
 * the web read it. Validation of the owner's file lives in site-config.ts, so the browser
 * never downloads the schema library.
 */

/** The URL segment rule (docs/product.md#pages-and-urls): lowercase, spaces to hyphens, parentheses and apostrophes removed. */
export function deriveSegment(label: string): string {
  return label
    .toLowerCase()
    .replace(/[()'’]/g, '')
    .replace(/&/g, '')
    .trim()
    .replace(/\s+/g, '-')
    .replace(/-+/g, '-');
}

export interface SiteEntry {
  /** Stable across renames and moves: posts keep their place by it. */
  id: string;
  label: string;
  segment: string;
  /** 'General' leaves its segment out of URLs. */
  general: boolean;
  /** A placeholder page ('This page is under construction.'); its posts still have pages. */
  underConstruction?: boolean;
}
export interface SiteSubcategory extends SiteEntry {
  intro?: string;
  entries: SiteEntry[];
}
export interface SiteCategory {
  id: string;
  label: string;
  segment: string;
  intro?: string;
  emptyText?: string;
  subcategories: SiteSubcategory[];
}
export interface SiteConfig {
  title: string;
  searchTitle: string;
  welcome: { title: string; text: string };
  about: { title: string; text: string };
  bannerImage: string;
  footerText: string;
  /** Whether visitors may create accounts (POST /api/auth/register answers 403 when not). */
  registrationOpen: boolean;
  categories: SiteCategory[];
  /** Absent from a configuration stored before the blog joined the fediverse: read it through fediverseOf. */
  fediverse?: FediverseSettings;
  /** Absent from a configuration stored before the newsletter: read it through newsletterOf. */
  newsletter?: NewsletterSettings;
  /**
   * The host of SITE_URL (the server part of the fediverse handle), added by the gateway to the
   * site it serves; never stored (the Site tab's save drops it).
   */
  host?: string;
}

/** Every post by e-mail: the post form's default. */
export interface NewsletterSettings {
  /** A new post's "Send by e-mail" box starts ticked. */
  sendByDefault: boolean;
}

/** How the blog shows itself in the fediverse: its handle and avatar. */
export interface FediverseSettings {
  /** The blog's handle: `@{handle}@{host of SITE_URL}` (the actor's id does not change with it). */
  handle: string;
  /** Follow requests wait for the owner's approval. */
  approveFollowers: boolean;
  /** The actor's icon (a site path such as the banner's), or '' for none. */
  avatarImage: string;
  /** How a post reaches Mastodon: an Article (a title and a link there) or a Note (its whole text). */
  postFormat: FediversePostFormat;
  /** Who may quote the blog's posts and notes (FEP-044f): answered per quote request. */
  quotePolicy: QuotePolicy;
  /** The blog's other accounts (actor URIs): a Mastodon account moving here lists them, FEP-7628. */
  alsoKnownAs: string[];
  /** The account the blog's followers were moved to ('' for none): the actor shows it until cleared. */
  movedTo: string;
  /** Search consent (FEP-5feb): the blog's posts may be found by full-text search. */
  indexable: boolean;
  /** The blog may be suggested in directories and profile search. */
  discoverable: boolean;
  /** The actor's `following` collection lists the accounts the blog follows (else only their count). */
  showFollowing: boolean;
}

export type FediversePostFormat = 'article' | 'note';
export type QuotePolicy = 'anyone' | 'followers' | 'nobody';

/** The handle a blog has until its owner picks one. */
export const DEFAULT_FEDIVERSE_HANDLE = 'blog';

/** The blog's fediverse address, `@handle@host`, or null when the host is not known. */
export function fediverseAddress(site: Pick<SiteConfig, 'fediverse' | 'host'>): string | null {
  return site.host ? `@${site.fediverse?.handle ?? DEFAULT_FEDIVERSE_HANDLE}@${site.host}` : null;
}

export const GENERAL = 'General';

const sameName = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

export function findCategory(site: SiteConfig, name: string): SiteCategory | undefined {
  return site.categories.find((c) => sameName(c.label, name) || c.segment === name.toLowerCase());
}

export function findSubcategory(category: SiteCategory, name: string): SiteSubcategory | undefined {
  return category.subcategories.find((s) => sameName(s.label, name) || s.segment === name.toLowerCase());
}

export function findEntry(subcategory: SiteSubcategory, name: string): SiteEntry | undefined {
  return subcategory.entries.find((e) => sameName(e.label, name) || e.segment === name.toLowerCase());
}

/** Every URL segment the tree uses: a post slug may never be one of them (the path would be ambiguous). */
export function reservedSegments(site: SiteConfig): Set<string> {
  const reserved = new Set<string>();
  for (const category of site.categories) {
    reserved.add(category.segment);
    for (const sub of category.subcategories) {
      reserved.add(sub.segment);
      for (const entry of sub.entries) reserved.add(entry.segment);
    }
  }
  return reserved;
}

/** A node of the category tree with where it sits: its labels from the top and its listing path. */
export interface SiteNodeInfo {
  id: string;
  /** [category], [category, sub-category] or [category, sub-category, entry]. */
  labels: string[];
  /** The listing's URL path; General levels drop out, so a General node shares its parent's. */
  path: string;
  /** How many posts may sit here: the deepest level of each branch. */
  leaf: boolean;
  parentId: string | null;
}

/** Every node of the tree, parents before children. */
export function siteNodes(site: SiteConfig): SiteNodeInfo[] {
  const nodes: SiteNodeInfo[] = [];
  for (const category of site.categories) {
    const top = `/${category.segment}`;
    nodes.push({ id: category.id, labels: [category.label], path: top, leaf: false, parentId: null });
    for (const sub of category.subcategories) {
      const subPath = sub.general ? top : `${top}/${sub.segment}`;
      nodes.push({
        id: sub.id,
        labels: [category.label, sub.label],
        path: subPath,
        leaf: sub.entries.length === 0,
        parentId: category.id,
      });
      for (const entry of sub.entries)
        nodes.push({
          id: entry.id,
          labels: [category.label, sub.label, entry.label],
          path: entry.general ? subPath : `${subPath}/${entry.segment}`,
          leaf: true,
          parentId: sub.id,
        });
    }
  }
  return nodes;
}

/** A node named by its id or by its labels ("Garage / Automobiles / Car One", any case). */
export function findSiteNode(nodes: SiteNodeInfo[], ref: string): SiteNodeInfo | undefined {
  const byId = nodes.find((node) => node.id === ref);
  if (byId) return byId;
  const labels = ref.split('/').map((part) => part.trim().toLowerCase());
  return nodes.find(
    (node) =>
      node.labels.length === labels.length &&
      node.labels.every((label, i) => label.toLowerCase() === labels[i]),
  );
}
