import { useEffect } from 'react';
import { useSite } from '../site/SiteContext';

/**
 * Sets the tab title ('{page} | {site}', or the site title alone) and the meta description.
 * While a search is active the search results own the title (SPEC.md §1).
 */
export function useDocumentTitle(page: string | null, description?: string) {
  const site = useSite();
  useEffect(() => {
    if (!site) return;
    document.title = page ? `${page} | ${site.title}` : site.title;
    if (description) document.querySelector('meta[name="description"]')?.setAttribute('content', description);
  }, [site, page, description]);
}
