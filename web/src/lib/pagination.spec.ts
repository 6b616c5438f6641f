import { pageCount, pageLinks, parsePage } from './pagination';

describe('pagination (docs/product.md#screens: window of 5 pages with ellipses)', () => {
  test('a few pages are all shown', () => {
    expect(pageLinks(1, 1)).toEqual([1]);
    expect(pageLinks(2, 4)).toEqual([1, 2, 3, 4]);
    expect(pageLinks(3, 5)).toEqual([1, 2, 3, 4, 5]);
  });

  test('the window follows the current page with the first and last pages reachable', () => {
    expect(pageLinks(1, 20)).toEqual([1, 2, 3, 4, 5, 'ellipsis-end', 20]);
    expect(pageLinks(10, 20)).toEqual([1, 'ellipsis-start', 8, 9, 10, 11, 12, 'ellipsis-end', 20]);
    expect(pageLinks(20, 20)).toEqual([1, 'ellipsis-start', 16, 17, 18, 19, 20]);
    expect(pageLinks(4, 7)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  test('page counts and URL page numbers', () => {
    expect(pageCount(0, 15)).toBe(1);
    expect(pageCount(30, 15)).toBe(2);
    expect(pageCount(31, 15)).toBe(3);
    expect(parsePage('3')).toBe(3);
    for (const bad of [null, '', '0', '-2', '1.5', 'abc']) expect(parsePage(bad)).toBe(1);
  });
});
