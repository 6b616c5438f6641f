import { changeFilter, clearFilters, filtersFromParams, postQuery, shownRange } from './filters';

describe('admin list filters (docs/product.md#the-dashboards-post-list)', () => {
  const full = new URLSearchParams(
    'tab=posts&search=tyres&category=Garage&submenu1=Automobiles&submenu2=Car+One&from=2025-01-01&to=2025-02-01&page=3',
  );

  test('any filter change returns to page 1', () => {
    const next = changeFilter(full, 'search', 'brakes');
    expect(next.get('page')).toBeNull();
    expect(next.get('search')).toBe('brakes');
    expect(next.get('submenu2')).toBe('Car One');
  });

  test('a new category resets the submenus and dates; a new submenu1 resets submenu2', () => {
    const next = changeFilter(full, 'category', 'Projects');
    expect([...next.keys()].sort()).toEqual(['category', 'search', 'tab']);
    expect(changeFilter(full, 'submenu1', 'Bicycles').get('submenu2')).toBeNull();
    expect(changeFilter(full, 'submenu1', 'Bicycles').get('from')).toBe('2025-01-01');
  });

  test('clearing keeps the tab only; bad dates are ignored; the query carries page and 10 a page', () => {
    expect(clearFilters(full).toString()).toBe('tab=posts');
    expect(filtersFromParams(new URLSearchParams('from=yesterday')).from).toBe('');
    expect(postQuery(filtersFromParams(full), 2)).toEqual({
      search: 'tyres',
      category: 'Garage',
      submenu1: 'Automobiles',
      submenu2: 'Car One',
      from: '2025-01-01',
      to: '2025-02-01',
      status: 'all',
      page: 2,
      limit: 10,
    });
    expect(postQuery(filtersFromParams(new URLSearchParams('status=draft')), 1).status).toBe('draft');
    expect(filtersFromParams(new URLSearchParams('status=hidden')).status).toBe('');
  });

  test('the count line bounds', () => {
    expect(shownRange(1, 25)).toEqual([1, 10]);
    expect(shownRange(3, 25)).toEqual([21, 25]);
    expect(shownRange(1, 0)).toEqual([0, 0]);
  });
});
