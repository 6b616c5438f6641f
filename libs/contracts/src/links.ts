import type { MainMedia } from './posts.js';

/** Excerpts and absolute links: what the digest e-mails, the share tags and the web show (no schema library). */

export const EXCERPT_LENGTH = 150;
export const EXCERPT_ELLIPSIS = '...';

/**
 * The excerpt rule (docs/product.md#limits-and-timings): whitespace collapsed; text longer than `max` characters is
 * cut at the last word boundary within them (a single longer word is cut hard), trailing
 * punctuation dropped, and '...' appended.
 */
export function excerpt(input: string | null | undefined, max = EXCERPT_LENGTH): string {
  const clean = (input ?? '').replace(/\s+/g, ' ').trim();
  const chars = Array.from(clean); // code points: never split a surrogate pair
  if (chars.length <= max) return clean;
  const head = chars.slice(0, max).join('');
  const atBoundary = chars[max] === ' ';
  const lastSpace = head.lastIndexOf(' ');
  const cut = atBoundary ? head : lastSpace > 0 ? head.slice(0, lastSpace) : head;
  const trimmed = cut.replace(/[\s.,;:!?…—–-]+$/u, '');
  return `${trimmed || cut}${EXCERPT_ELLIPSIS}`;
}

/** SITE_URL without a trailing slash joined to a site path. */
export function absoluteUrl(siteUrl: string, path: string): string {
  if (/^https?:\/\//i.test(path)) return path;
  return `${siteUrl.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

/** A post's absolute link: its page URL (the shared URL builder's), or /post/{id} which redirects there. */
export function postLink(siteUrl: string, post: { id: number; url: string | null }): string {
  return absoluteUrl(siteUrl, post.url ?? `/post/${post.id}`);
}

/** The picture that stands for a post: its main image, a video's thumbnail or a YouTube thumbnail. */
export function mainImageUrl(siteUrl: string, media: MainMedia | null | undefined): string | null {
  if (!media) return null;
  if (media.type === 'image' && media.path) return absoluteUrl(siteUrl, media.path);
  if (media.type === 'video' && media.thumbnailPath) return absoluteUrl(siteUrl, media.thumbnailPath);
  if (media.type === 'youtube' && media.thumbnailUrl) return absoluteUrl(siteUrl, media.thumbnailUrl);
  return null;
}

/** Longest link kept from another server: an actor's page, avatar or inbox, a Note's id. */
export const HTTP_URL_MAX = 2048;
/** Why a link another server sent, which the blog cannot do without, was refused. */
export const HTTP_URL_REQUIRED = 'must be an http(s) URL';

/**
 * `value` when it is an absolute http: or https: URL of at most HTTP_URL_MAX characters, else
 * null: the one test of a link another server chose before the blog stores it, so that no
 * `javascript:`, `data:` or relative link is ever served or rendered as an href. The text is
 * kept as sent (ids are compared as sent); one a browser could read differently from this
 * check (whitespace, control or invisible characters anywhere) is refused, not cleaned.
 */
export function httpUrlOrNull(value: unknown): string | null {
  if (typeof value !== 'string' || value.length > HTTP_URL_MAX) return null;
  if (!/^https?:\/\//i.test(value) || /[\s\p{C}\p{Z}]/u.test(value)) return null;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '' ? value : null;
  } catch {
    return null;
  }
}
