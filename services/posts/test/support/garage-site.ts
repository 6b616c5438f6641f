import { parseSiteConfig, type SiteConfig } from '@blog/contracts';

/** A site of one category, Garage › Automobiles, whose entries are `entries` (the rules specs' tree). */
export function garageSite(entries: string[] = ['Car One']): SiteConfig {
  return parseSiteConfig({
    title: 'My blog',
    searchTitle: 'Search',
    welcome: { title: 'Welcome', text: '' },
    about: { title: 'About', text: '' },
    bannerImage: '/banner.svg',
    footerText: '',
    categories: [
      {
        label: 'Garage',
        subcategories: [{ label: 'Automobiles', entries: entries.map((label) => ({ label })) }],
      },
    ],
  });
}
