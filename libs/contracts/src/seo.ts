/**
 * What each page of the public site is called and how it is shared: its title, description,
 * canonical address and picture (the tags the gateway writes into the app shell, and the
 * pages the sitemap lists). One place, so the server's tags and the web's titles agree.
 */
import { absoluteUrl, excerpt, mainImageUrl } from './links.js';
import type { PostView } from './posts.js';
import type { SiteCategory, SiteConfig, SiteEntry, SiteSubcategory } from './site.js';
import { buildListingPath, resolvePath } from './urls.js';

/** The sitemap protocol's limit of URLs in one file; more go into several files behind an index. */
export const SITEMAP_MAX_URLS = 50_000;
/** Posts in /rss.xml. */
export const FEED_SIZE = 20;
/** Between a page's own name and the site title in <title>. */
export const TITLE_SEPARATOR = ' — ';

export interface PageMeta {
  /** The page's own name (og:title); the site title for the home page. */
  name: string;
  /** The document title: "{name} — {site title}". */
  title: string;
  description: string;
  /** Absolute canonical URL. */
  url: string;
  type: 'website' | 'article';
  /** Absolute URL of the picture shown in link previews, if the page has one. */
  image: string | null;
  /** The picture's alt text, when its author wrote one. */
  imageAlt?: string | null;
  /** Pages search engines should leave out: sign-in, admin, placeholders, not found. */
  noindex: boolean;
  /** Posts: ISO date-times. */
  publishedTime?: string;
  modifiedTime?: string;
}

/**
 * What a path is, before any post is looked up: a page whose tags are known already, a
 * post by slug (its page must be at exactly `path`), or a /post/{id} redirect page.
 */
export type PageRoute =
  | { kind: 'page'; meta: PageMeta }
  | { kind: 'post'; slug: string; path: string }
  | { kind: 'postId'; id: number };

const POST_ID = /^\/post\/(\d{1,9})\/?$/;

function meta(
  site: SiteConfig,
  siteUrl: string,
  path: string,
  name: string | null,
  description: string,
  noindex = false,
): PageMeta {
  return {
    name: name ?? site.title,
    title: name ? `${name}${TITLE_SEPARATOR}${site.title}` : site.title,
    description: excerpt(description) || excerpt(site.welcome.text),
    url: absoluteUrl(siteUrl, path),
    type: 'website',
    image: null,
    noindex,
  };
}

/** The pages that are not in the category tree (docs/product.md#screens "Public routes"). */
function staticPage(site: SiteConfig, siteUrl: string, path: string): PageMeta | null {
  const about = site.about.text;
  if (path === '/') return meta(site, siteUrl, '/', null, site.welcome.text);
  if (path === '/about') return meta(site, siteUrl, '/about', site.about.title, about);
  // /contact shows the About page's form: the About page is the one to index.
  if (path === '/contact') return meta(site, siteUrl, '/about', 'Contact', about);
  if (path === '/login') return meta(site, siteUrl, '/login', 'Sign in', site.welcome.text, true);
  if (path === '/register') return meta(site, siteUrl, '/register', 'Register', site.welcome.text, true);
  if (path === '/admin' || path.startsWith('/admin/'))
    return meta(site, siteUrl, '/admin', 'Admin Dashboard', site.welcome.text, true);
  return null;
}

function listingPath(
  site: SiteConfig,
  category: SiteCategory,
  sub?: SiteSubcategory | null,
  entry?: SiteEntry | null,
): string {
  return buildListingPath(site, {
    category: category.label,
    submenu1: sub?.label,
    submenu2: entry?.label,
  })!;
}

/** A section, sub-section or filtered sub-section listing: "Car One — Automobiles — Garage — {site}". */
function listingMeta(
  site: SiteConfig,
  siteUrl: string,
  category: SiteCategory,
  sub: SiteSubcategory | null,
  entry: SiteEntry | null,
): PageMeta {
  const name = [entry?.label, sub?.label, category.label].filter(Boolean).join(TITLE_SEPARATOR);
  const description = sub?.intro ?? category.intro ?? site.welcome.text;
  return meta(
    site,
    siteUrl,
    listingPath(site, category, sub, entry),
    name,
    description,
    !!entry?.underConstruction,
  );
}

/** Normalised for matching: no query, no trailing slash, lowercase (tree segments and slugs are). */
function normalise(path: string): string {
  const clean = path.split(/[?#]/)[0]!.replace(/\/+$/, '');
  return clean === '' ? '/' : clean;
}

/** Null for a path the site has no page for (the server answers 404). */
export function routePage(site: SiteConfig, siteUrl: string, rawPath: string): PageRoute | null {
  const path = normalise(rawPath);
  const known = staticPage(site, siteUrl, path);
  if (known) return { kind: 'page', meta: known };
  const postId = POST_ID.exec(path);
  if (postId) return { kind: 'postId', id: Number(postId[1]) };
  let resolved;
  try {
    resolved = resolvePath(site, path);
  } catch {
    return null; // a malformed %-escape
  }
  if (!resolved) return null;
  if (resolved.kind === 'section')
    return { kind: 'page', meta: listingMeta(site, siteUrl, resolved.category, null, null) };
  if (resolved.kind === 'subsection')
    return {
      kind: 'page',
      meta: listingMeta(site, siteUrl, resolved.category, resolved.subcategory, resolved.entry),
    };
  return { kind: 'post', slug: resolved.slug, path: decodeURIComponent(path).toLowerCase() };
}

/** A post's page: its title, excerpt, main picture and dates; canonical at its tree URL. */
export function postPageMeta(site: SiteConfig, siteUrl: string, post: PostView): PageMeta {
  const image = mainImageUrl(siteUrl, post.mainMedia);
  return {
    ...meta(site, siteUrl, post.url ?? `/post/${post.id}`, post.title, post.excerpt),
    type: 'article',
    image,
    imageAlt: image ? (post.mainMedia?.alt ?? null) : null,
    publishedTime: post.created_at,
    modifiedTime: post.updated_at,
  };
}

export function notFoundMeta(site: SiteConfig, siteUrl: string, path: string): PageMeta {
  return meta(site, siteUrl, normalise(path), 'Page not found', site.welcome.text, true);
}

/** Every listing page worth indexing, home and About first (the sitemap's pages besides posts). */
export function listingPaths(site: SiteConfig): string[] {
  const paths = ['/', '/about'];
  for (const category of site.categories) {
    paths.push(listingPath(site, category));
    for (const sub of category.subcategories) {
      if (sub.general) continue;
      paths.push(listingPath(site, category, sub));
      for (const entry of sub.entries)
        if (!entry.general && !entry.underConstruction) paths.push(listingPath(site, category, sub, entry));
    }
  }
  return paths;
}
