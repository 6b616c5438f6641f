import { parseSiteConfig } from '@blog/contracts/site-config';
import { readFileSync } from 'node:fs';
import { loadingTextFor } from './loadingText';

const site = parseSiteConfig(JSON.parse(readFileSync('config/site.json', 'utf8')));
const at = (url: string) => {
  const { pathname, search } = new URL(url, 'http://blog.test');
  return loadingTextFor(site, { pathname, search });
};

describe("a page's loading text while its data arrives (docs/product.md#screens)", () => {
  test('the home list, listings by their own name, a post, a search, the /post/{id} redirect', () => {
    expect(at('/')).toBe('Loading posts...');
    expect(at('/aquariums')).toBe('Loading aquariums posts...');
    expect(at('/garage/motorcycles')).toBe('Loading motorcycles posts...');
    expect(at('/garage/motorcycles/bike-one')).toBe('Loading bike one posts...');
    expect(at('/garage/motorcycles/bike-one/rebuilt-the-carb')).toBe('Loading post...');
    expect(at('/garage?q=engine')).toBe('Searching...');
    expect(at('/?q=%20%20')).toBe('Loading posts...');
    expect(at('/post/12')).toBe('Redirecting...');
    expect(at('/no/such/place/here')).toBe('Loading...');
  });
});
