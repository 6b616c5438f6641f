import type { SiteConfig } from '@blog/contracts/site';
import {
  from12Hour,
  localDateTime,
  newPostValues,
  to12Hour,
  withCategory,
  withSubmenu1,
  worthSaving,
} from './postForm';

const entry = (label: string) => ({
  label,
  segment: label.toLowerCase().replace(/\s+/g, '-'),
  general: label === 'General',
});
const site = {
  categories: [
    {
      label: 'Garage',
      segment: 'garage',
      subcategories: [
        { ...entry('Automobiles'), entries: [entry('General'), entry('Car One')] },
        { ...entry('Bicycles'), entries: [entry('General')] },
      ],
    },
    {
      label: 'Gadgets',
      segment: 'gadgets',
      subcategories: [
        { ...entry('General'), entries: [] },
        { ...entry('Computers'), entries: [] },
      ],
    },
    {
      label: 'Activities',
      segment: 'activities',
      subcategories: [
        { ...entry('Fishing'), entries: [entry('General')] },
        { ...entry('Racing'), entries: [entry('General'), entry('MotoGP'), entry('F1')] },
      ],
    },
  ],
} as unknown as SiteConfig;

describe('post form reset rules (docs/product.md#how-the-screens-behave)', () => {
  const start = newPostValues(site, new Date(2025, 2, 5, 14, 7));

  test('a new post starts in the first category with its first entries, at now', () => {
    expect(start).toMatchObject({ category: 'Garage', submenu1: 'Automobiles', submenu2: 'General' });
    expect(localDateTime(start)).toBe('2025-03-05T14:07');
  });

  test('changing category resets submenu1 to its first key and submenu2 to that list’s first entry', () => {
    const racing = withSubmenu1(withCategory(start, site, 'Activities'), site, 'Racing');
    expect(withSubmenu1(racing, site, 'Racing').submenu2).toBe('General');
    expect(withCategory({ ...racing, submenu2: 'F1' }, site, 'Activities')).toMatchObject({
      submenu1: 'Fishing',
      submenu2: 'General',
    });
    // A category without a level 2 leaves submenu2 empty.
    expect(withCategory(start, site, 'Gadgets')).toMatchObject({ submenu1: 'General', submenu2: '' });
  });

  test('changing submenu1 resets submenu2 and keeps every other field', () => {
    const edited = { ...withCategory(start, site, 'Activities'), title: 'Race day', tags: 'f1' };
    const next = withSubmenu1({ ...edited, submenu2: 'General' }, site, 'Racing');
    expect(next).toEqual({ ...edited, submenu1: 'Racing', submenu2: 'General' });
    expect(withSubmenu1(withCategory(start, site, 'Gadgets'), site, 'Computers').submenu2).toBe('');
  });

  test('the 12-hour display maps both ways: midnight is 12 AM, noon 12 PM', () => {
    expect(to12Hour(0)).toEqual({ hour: 12, period: 'AM' });
    expect(to12Hour(12)).toEqual({ hour: 12, period: 'PM' });
    expect(to12Hour(23)).toEqual({ hour: 11, period: 'PM' });
    for (let h = 0; h < 24; h++) {
      const { hour, period } = to12Hour(h);
      expect(from12Hour(hour, period)).toBe(h);
    }
  });

  test('autosave needs a title, content or tags', () => {
    expect(worthSaving({ title: ' ', content: '', tags: '' })).toBe(false);
    expect(worthSaving({ title: '', content: '', tags: 'a' })).toBe(true);
  });
});
