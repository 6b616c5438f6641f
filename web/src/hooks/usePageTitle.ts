import { notFoundMeta, postPageMeta, routePage } from '@blog/contracts/seo';
import type { PostView } from '@blog/contracts/posts';
import { useEffect } from 'react';
import { useLocation } from 'react-router-dom';
import { useSite } from '../site/SiteContext';

/**
 * The tab title and meta description of the page, by the same rule as the tags the server
 * writes (libs/contracts seo.ts). While a search is active the search results own the title.
 */
export function usePageTitle(post?: PostView | null) {
  const site = useSite();
  const { pathname } = useLocation();
  useEffect(() => {
    const origin = window.location.origin;
    const route = routePage(site, origin, pathname);
    const meta = post
      ? postPageMeta(site, origin, post)
      : route?.kind === 'page'
        ? route.meta
        : route
          ? null // a post still loading: keep the title until it arrives
          : notFoundMeta(site, origin, pathname);
    if (!meta) return;
    document.title = meta.title;
    document.querySelector('meta[name="description"]')?.setAttribute('content', meta.description);
  }, [site, pathname, post]);
}
