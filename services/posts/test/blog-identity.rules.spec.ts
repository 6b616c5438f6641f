import { parseSiteConfig } from '@blog/contracts';
import type { PostsConfig } from '../src/config.js';
import { BlogIdentity, madeByThisBlog } from '../src/import/blog-identity.js';
import { InMemorySiteSettingsRepository } from './support/in-memory-site-settings.repository.js';

/** This blog's archive identity, against an in-memory site settings repository. */
describe('blog identity rules', () => {
  const site = parseSiteConfig({
    title: 'My blog',
    searchTitle: 'Search',
    welcome: { title: 'Welcome', text: '' },
    about: { title: 'About', text: '' },
    bannerImage: '/banner.svg',
    footerText: '',
    categories: [{ label: 'Garage', subcategories: [{ label: 'Automobiles', entries: [] }] }],
  });
  const config = { SITE_URL: 'https://Blog.example' } as PostsConfig;

  it('is the seeded row’s id and SITE_URL; before the seed it is an error', async () => {
    const store = new InMemorySiteSettingsRepository();
    const identity = new BlogIdentity(store, config);
    await expect(identity.current()).rejects.toThrow('not seeded');
    await store.seed(site);
    expect(await identity.current()).toEqual({ id: store.madeBlogId, url: 'https://Blog.example' });
  });

  it('an archive is this blog’s by the same id or the same address in any case, never without an identity', () => {
    const here = { id: 'a', url: 'https://blog.example' };
    expect(madeByThisBlog({ id: 'a', url: null }, here)).toBe(true);
    expect(madeByThisBlog({ id: 'b', url: 'HTTPS://BLOG.EXAMPLE' }, here)).toBe(true);
    expect(madeByThisBlog({ id: 'b', url: 'https://other.example' }, here)).toBe(false);
    expect(madeByThisBlog({ id: 'b', url: null }, { id: 'a', url: null })).toBe(false);
    expect(madeByThisBlog(undefined, here)).toBe(false);
  });
});
