import { isActivePath } from './activePath';

describe('a menu link is active on its page and below it', () => {
  test('its own page, in any letter case', () => {
    expect(isActivePath('/garage', '/garage')).toBe(true);
    expect(isActivePath('/Garage', '/garage')).toBe(true);
    expect(isActivePath('/', '/', true)).toBe(true);
  });

  test('a page below it, unless the link asks for its page only (end)', () => {
    expect(isActivePath('/garage/motorcycles/bike-one', '/garage')).toBe(true);
    expect(isActivePath('/garage/motorcycles/bike-one', '/garage/motorcycles/')).toBe(true);
    expect(isActivePath('/garage/motorcycles', '/garage', true)).toBe(false);
  });

  test('a page that only starts with the same letters is not below it', () => {
    expect(isActivePath('/garage-sale', '/garage')).toBe(false);
    expect(isActivePath('/gadgets', '/garage')).toBe(false);
    // Home is not the parent of every page: the menu's Home link is active on / alone.
    expect(isActivePath('/garage', '/')).toBe(false);
  });
});
