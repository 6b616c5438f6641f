import { readFileSync } from 'node:fs';
import { parseSiteConfig, SiteConfigError } from './site-config.js';
import { reservedSegments, type SiteConfig } from './site.js';
import {
  buildListingPath,
  buildPostPath,
  PlacementError,
  redirectFor,
  resolvePath,
  resolvePlacement,
} from './urls.js';

const site: SiteConfig = parseSiteConfig(JSON.parse(readFileSync('config/site.json', 'utf8')));

describe('the default site config', () => {
  it("has the default tree's categories with their URL segments", () => {
    expect(site.categories.map((c) => c.segment).sort()).toEqual(
      ['activities', 'aquariums', 'food-bev', 'gadgets', 'garage', 'more', 'projects', 'social'].sort(),
    );
  });

  it("has the default tree's sub-sections", () => {
    const subs = (segment: string) =>
      site.categories
        .find((c) => c.segment === segment)!
        .subcategories.filter((s) => !s.general)
        .map((s) => s.segment);
    expect(subs('garage')).toEqual(['automobiles', 'bicycles', 'motorcycles', 'jetski']);
    expect(subs('gadgets')).toEqual(['computers', 'electronics']);
    expect(subs('food-bev')).toEqual(['cooking', 'beverages']);
    expect(subs('activities')).toEqual(['fishing', 'racing']);
    expect(subs('social')).toEqual(['partner-and-me', 'friends']);
    expect(subs('aquariums')).toEqual([]);
  });

  it('has five cars, eleven bikes and two friends', () => {
    const entries = (cat: string, sub: string) =>
      site.categories
        .find((c) => c.segment === cat)!
        .subcategories.find((s) => s.segment === sub)!
        .entries.filter((e) => !e.general);
    expect(entries('garage', 'automobiles')).toHaveLength(5);
    expect(entries('garage', 'motorcycles')).toHaveLength(11);
    expect(entries('social', 'friends')).toHaveLength(2);
    expect(entries('activities', 'racing').map((e) => e.segment)).toEqual(['moto-gp', 'f1', 'motocross']);
  });
});

describe('segment rule', () => {
  it('lowercases, turns spaces into hyphens and drops parentheses and apostrophes', () => {
    const custom = parseSiteConfig({
      ...JSON.parse(readFileSync('config/site.json', 'utf8')),
      categories: [
        {
          label: 'Garage',
          subcategories: [
            { label: 'Automobiles', entries: [{ label: 'General' }, { label: "Dad's Mustang (1967)" }] },
          ],
        },
      ],
    });
    expect(custom.categories[0]!.subcategories[0]!.entries[1]!.segment).toBe('dads-mustang-1967');
  });
});

describe('site config validation names the wrong entry', () => {
  const base = JSON.parse(readFileSync('config/site.json', 'utf8'));
  it.each([
    [{ ...base, title: '' }, /title/],
    [{ ...base, categories: [] }, /categories: at least one category/],
    [
      { ...base, categories: [{ label: 'Garage', subcategories: [{ label: '', entries: [] }] }] },
      /categories\[0\] "Garage" → subcategories\[0\]/,
    ],
    [
      {
        ...base,
        categories: [
          { label: 'A', subcategories: [{ label: 'General' }] },
          { label: 'a', subcategories: [{ label: 'General' }] },
        ],
      },
      /duplicate segment "a"/,
    ],
    [
      { ...base, categories: [{ label: 'Garage', subcategories: [{ label: 'X', segment: 'Bad Segment' }] }] },
      /categories\[0\] "Garage" → subcategories\[0\] "X" → segment/,
    ],
  ])('rejects %#', (raw, message) => {
    expect(() => parseSiteConfig(raw)).toThrow(SiteConfigError);
    expect(() => parseSiteConfig(raw)).toThrow(message);
  });
});

describe('post URL building (docs/product.md#screens)', () => {
  it.each([
    [{ category: 'Projects', submenu1: 'General', submenu2: null }, '/projects/my-post'],
    [{ category: 'Aquariums', submenu1: 'General', submenu2: null }, '/aquariums/my-post'],
    [{ category: 'More', submenu1: null, submenu2: null }, '/more/my-post'],
    [{ category: 'Garage', submenu1: 'Automobiles', submenu2: 'General' }, '/garage/automobiles/my-post'],
    [
      { category: 'Garage', submenu1: 'Automobiles', submenu2: 'Car One' },
      '/garage/automobiles/car-one/my-post',
    ],
    [{ category: 'Garage', submenu1: 'Jet Ski', submenu2: 'General' }, '/garage/jetski/my-post'],
    [
      { category: 'Garage', submenu1: 'Motorcycles', submenu2: 'Bike Eleven' },
      '/garage/motorcycles/bike-eleven/my-post',
    ],
    [{ category: 'Garage', submenu1: 'Bicycles', submenu2: 'General' }, '/garage/bicycles/my-post'],
    [{ category: 'Gadgets', submenu1: 'General', submenu2: null }, '/gadgets/my-post'],
    [{ category: 'Gadgets', submenu1: 'Computers', submenu2: null }, '/gadgets/computers/my-post'],
    [{ category: 'Gadgets', submenu1: 'Electronics', submenu2: null }, '/gadgets/electronics/my-post'],
    [{ category: 'Food & Bev', submenu1: 'Cooking', submenu2: null }, '/food-bev/cooking/my-post'],
    [{ category: 'Food & Bev', submenu1: 'Beverages', submenu2: null }, '/food-bev/beverages/my-post'],
    [{ category: 'Food & Bev', submenu1: 'General', submenu2: null }, '/food-bev/my-post'],
    [{ category: 'Activities', submenu1: 'Fishing', submenu2: 'General' }, '/activities/fishing/my-post'],
    [{ category: 'Activities', submenu1: 'Racing', submenu2: 'General' }, '/activities/racing/my-post'],
    [
      { category: 'Activities', submenu1: 'Racing', submenu2: 'MotoGP' },
      '/activities/racing/moto-gp/my-post',
    ],
    [{ category: 'Activities', submenu1: 'Racing', submenu2: 'F1' }, '/activities/racing/f1/my-post'],
    [
      { category: 'Activities', submenu1: 'Racing', submenu2: 'Motocross' },
      '/activities/racing/motocross/my-post',
    ],
    [
      { category: 'Social', submenu1: 'Partner and Me', submenu2: 'General' },
      '/social/partner-and-me/my-post',
    ],
    [{ category: 'Social', submenu1: 'Friends', submenu2: 'General' }, '/social/friends/my-post'],
    [
      { category: 'Social', submenu1: 'Friends', submenu2: 'Friend Two' },
      '/social/friends/friend-two/my-post',
    ],
    [{ category: 'food-bev', submenu1: 'cooking', submenu2: null }, '/food-bev/cooking/my-post'],
  ])('%j → %s', (placement, path) => {
    expect(buildPostPath(site, { ...placement, slug: 'my-post' })).toBe(path);
    const resolved = resolvePath(site, path);
    expect(resolved).toMatchObject({ kind: 'post', slug: 'my-post' });
  });

  it('has no URL for a post outside the tree or without a slug', () => {
    expect(buildPostPath(site, { category: 'Nowhere', slug: 'x' })).toBeNull();
    expect(buildPostPath(site, { category: 'Projects', slug: '' })).toBeNull();
  });
});

describe('path resolving (docs/product.md#pages-and-urls)', () => {
  it.each(['/garage', '/gadgets', '/food-bev', '/activities', '/social', '/projects', '/aquariums', '/more'])(
    '%s is a section',
    (path) => expect(resolvePath(site, path)?.kind).toBe('section'),
  );

  it.each([
    ['/garage/automobiles', 'Automobiles', null],
    ['/garage/bicycles', 'Bicycles', null],
    ['/garage/jetski', 'Jet Ski', null],
    ['/garage/motorcycles', 'Motorcycles', null],
    ['/gadgets/computers', 'Computers', null],
    ['/gadgets/electronics', 'Electronics', null],
    ['/food-bev/cooking', 'Cooking', null],
    ['/food-bev/beverages', 'Beverages', null],
    ['/activities/fishing', 'Fishing', null],
    ['/activities/racing', 'Racing', null],
    ['/activities/racing/moto-gp', 'Racing', 'MotoGP'],
    ['/activities/racing/f1', 'Racing', 'F1'],
    ['/activities/racing/motocross', 'Racing', 'Motocross'],
    ['/social/partner-and-me', 'Partner and Me', null],
    ['/social/friends', 'Friends', null],
    ['/social/friends/friend-one', 'Friends', 'Friend One'],
    ['/social/friends/friend-two', 'Friends', 'Friend Two'],
    ['/garage/automobiles/car-three', 'Automobiles', 'Car Three'],
    ['/garage/motorcycles/bike-one', 'Motorcycles', 'Bike One'],
  ])('%s is the listing of %s / %s', (path, sub, entry) => {
    const resolved = resolvePath(site, path);
    expect(resolved?.kind).toBe('subsection');
    if (resolved?.kind !== 'subsection') return;
    expect(resolved.subcategory.label).toBe(sub);
    expect(resolved.entry?.label ?? null).toBe(entry);
  });

  it('resolves posts under a general sub-category and under a level-2 entry', () => {
    expect(resolvePath(site, '/projects/solar-shed')).toMatchObject({ kind: 'post', slug: 'solar-shed' });
    expect(resolvePath(site, '/activities/racing/moto-gp/le-mans')).toMatchObject({
      kind: 'post',
      slug: 'le-mans',
      entry: { label: 'MotoGP' },
    });
    expect(resolvePath(site, '/garage/automobiles/new-tyres')).toMatchObject({
      kind: 'post',
      subcategory: { label: 'Automobiles' },
      entry: null,
    });
  });

  it('returns null outside the tree', () => {
    expect(resolvePath(site, '/')).toBeNull();
    expect(resolvePath(site, '/nowhere/x')).toBeNull();
    expect(resolvePath(site, '/garage/some-slug')).toBeNull(); // garage has no General sub-category
    expect(resolvePath(site, '/projects/a/b')).toBeNull();
    expect(resolvePath(site, '/activities/racing/moto-gp/a/b')).toBeNull();
  });

  it('builds listing paths', () => {
    expect(buildListingPath(site, { category: 'Garage' })).toBe('/garage');
    expect(
      buildListingPath(site, { category: 'Garage', submenu1: 'Motorcycles', submenu2: 'Bike Two' }),
    ).toBe('/garage/motorcycles/bike-two');
  });

  it('reserves every tree segment from slugs', () => {
    const reserved = reservedSegments(site);
    for (const segment of ['garage', 'automobiles', 'moto-gp', 'car-one', 'general', 'friend-two']) {
      expect(reserved.has(segment)).toBe(true);
    }
  });
});

describe('placement', () => {
  it('canonicalises labels and defaults missing levels to the first entry', () => {
    expect(
      resolvePlacement(site, { category: 'garage', submenu1: 'automobiles', submenu2: 'car one' }),
    ).toEqual({
      category: 'Garage',
      submenu1: 'Automobiles',
      submenu2: 'Car One',
      submenu: 'Automobiles/Car One',
      placeId: site.categories[0]!.subcategories[0]!.entries[1]!.id,
    });
    expect(resolvePlacement(site, { category: 'Garage' })).toMatchObject({
      submenu1: 'Automobiles',
      submenu2: 'General',
    });
    expect(resolvePlacement(site, { category: 'Gadgets', submenu1: 'Computers', submenu2: '' })).toEqual({
      category: 'Gadgets',
      submenu1: 'Computers',
      submenu2: null,
      submenu: 'Computers',
      placeId: expect.stringMatching(/^n[0-9a-f]{11}$/),
    });
  });

  it.each([
    [{}, 'category'],
    [{ category: 'Nope' }, 'category'],
    [{ category: 'Garage', submenu1: 'Boats' }, 'submenu1'],
    [{ category: 'Garage', submenu1: 'Automobiles', submenu2: 'Bike One' }, 'submenu2'],
    [{ category: 'Gadgets', submenu1: 'Computers', submenu2: 'Laptops' }, 'submenu2'],
  ])('rejects %j naming %s', (input, field) => {
    try {
      resolvePlacement(site, input);
      throw new Error('expected failure');
    } catch (error) {
      expect(error).toBeInstanceOf(PlacementError);
      expect((error as PlacementError).field).toBe(field);
    }
  });
});

describe('redirects of renamed listing paths', () => {
  const redirects = { '/garage': '/cars', '/garage/automobiles': '/cars/autos', '/fish': '/aquariums' };
  it.each([
    ['/garage', '/cars'],
    ['/garage/', '/cars'],
    ['/garage/bicycles', '/cars/bicycles'],
    ['/garage/automobiles', '/cars/autos'],
    ['/garage/automobiles/car-one/my-post', '/cars/autos/car-one/my-post'],
    ['/fish/tank', '/aquariums/tank'],
  ])('%s → %s (the longest matching listing wins)', (path, target) => {
    expect(redirectFor(redirects, path)).toBe(target);
  });
  it.each(['/', '/garagex', '/cars', '/projects/garage', ''])('%s has none', (path) => {
    expect(redirectFor(redirects, path)).toBeNull();
  });
});
