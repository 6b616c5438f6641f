import type { SiteConfig } from '@blog/contracts/site';
import { resolvePath } from '@blog/contracts/urls';
import { activeQuery } from './searchParams';

/**
 * What a page says while its data loads after a click (docs/product.md#screens): 'Loading posts...' for
 * the home page, 'Loading garage posts...' for a listing, 'Loading post...', 'Searching...',
 * and 'Redirecting...' on /post/{id}.
 */
export function loadingTextFor(site: SiteConfig, { pathname, search }: { pathname: string; search: string }) {
  if (activeQuery(new URLSearchParams(search))) return 'Searching...';
  if (pathname === '/') return 'Loading posts...';
  if (/^\/post\/[^/]+\/?$/.test(pathname)) return 'Redirecting...';
  const resolved = resolvePath(site, pathname);
  if (!resolved) return 'Loading...';
  if (resolved.kind === 'post') return 'Loading post...';
  const name =
    resolved.kind === 'section' ? resolved.category.label : (resolved.entry ?? resolved.subcategory).label;
  return `Loading ${name.toLowerCase()} posts...`;
}
