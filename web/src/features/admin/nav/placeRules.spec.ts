import {
  badgeText,
  checkRegistry,
  groupPlaces,
  placeFromParams,
  placeHref,
  placeName,
  type PlaceEntry,
} from './placeRules';

const load = () => Promise.resolve(0);
const places: PlaceEntry[] = [
  { id: 'posts', label: 'Posts', group: 'content' },
  { id: 'stats', label: 'Stats', group: 'stats' },
  {
    id: 'notifications',
    label: 'Notifications',
    group: 'fediverse',
    badge: { load, describe: (n) => `${n} unread` },
  },
  { id: 'comments', label: 'Comments', group: 'content' },
  { id: 'fediverse', label: 'Followers', group: 'fediverse' },
];

describe("the dashboard's places (docs/product.md, the Admin Dashboard)", () => {
  test('the URL names the place; a missing or unknown tab opens Posts', () => {
    expect(placeFromParams(places, new URLSearchParams('tab=fediverse&page=2')).id).toBe('fediverse');
    expect(placeFromParams(places, new URLSearchParams('')).id).toBe('posts');
    expect(placeFromParams(places, new URLSearchParams('tab=nowhere')).id).toBe('posts');
    expect(placeFromParams(places, new URLSearchParams('search=tyres')).id).toBe('posts');
  });

  test('each place links to its ?tab= address; Posts is the bare dashboard', () => {
    expect(placeHref('posts')).toBe('/admin');
    expect(placeHref('subscribers')).toBe('/admin?tab=subscribers');
  });

  test('groups keep their fixed order and the registry order inside; empty groups are left out', () => {
    expect(groupPlaces(places).map((g) => [g.label, g.places.map((p) => p.id)])).toEqual([
      ['Content', ['posts', 'comments']],
      ['Fediverse', ['notifications', 'fediverse']],
      ['Stats', ['stats']],
    ]);
  });

  test('a badge count joins the accessible name; none, or zero, leaves the label alone', () => {
    const notifications = places[2]!;
    expect(placeName(notifications, 3)).toBe('Notifications, 3 unread');
    expect(placeName(notifications, 0)).toBe('Notifications');
    expect(placeName(notifications, undefined)).toBe('Notifications');
    expect(placeName(places[0]!, 3)).toBe('Posts');
    expect(badgeText(7)).toBe('7');
    expect(badgeText(100)).toBe('99+');
  });

  test('the registry refuses two places with one id, an id unfit for a URL, and a missing Posts', () => {
    expect(() => checkRegistry(places)).not.toThrow();
    expect(() => checkRegistry([...places, { id: 'stats', label: 'Again', group: 'stats' }])).toThrow(
      'Dashboard place "stats" is listed twice',
    );
    expect(() => checkRegistry([...places, { id: 'Read me', label: 'Reader', group: 'fediverse' }])).toThrow(
      /not a URL-safe name/,
    );
    expect(() => checkRegistry(places.slice(1))).toThrow(/home place "posts"/);
  });
});
