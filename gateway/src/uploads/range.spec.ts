import { etagMatches, parseRange } from './range.js';

describe('parseRange', () => {
  it.each([
    [undefined, 100, { kind: 'none' }],
    ['bytes=0-9', 100, { kind: 'range', start: 0, end: 9 }],
    ['bytes=0-0', 100, { kind: 'range', start: 0, end: 0 }],
    ['bytes=90-', 100, { kind: 'range', start: 90, end: 99 }],
    ['bytes=90-1000', 100, { kind: 'range', start: 90, end: 99 }],
    ['bytes=-10', 100, { kind: 'range', start: 90, end: 99 }],
    ['bytes=-1000', 100, { kind: 'range', start: 0, end: 99 }],
    [' Bytes = 5-6 ', 100, { kind: 'range', start: 5, end: 6 }],
    ['bytes=100-', 100, { kind: 'unsatisfiable' }],
    ['bytes=5-2', 100, { kind: 'unsatisfiable' }],
    ['bytes=-0', 100, { kind: 'unsatisfiable' }],
    ['bytes=-', 100, { kind: 'unsatisfiable' }],
    ['bytes=abc', 100, { kind: 'unsatisfiable' }],
    ['bytes=1.5-2', 100, { kind: 'unsatisfiable' }],
    ['bytes=0-1', 0, { kind: 'unsatisfiable' }],
    ['bytes=-5', 0, { kind: 'unsatisfiable' }],
    ['garbage', 100, { kind: 'unsatisfiable' }],
    ['items=0-5', 100, { kind: 'none' }],
    ['bytes=0-1,5-6', 100, { kind: 'none' }],
  ])('%j of %d bytes → %j', (header, size, expected) => {
    expect(parseRange(header, size)).toEqual(expected);
  });
});

describe('etagMatches', () => {
  it('compares opaque tags weakly and accepts lists and *', () => {
    expect(etagMatches('"abc"', '"abc"')).toBe(true);
    expect(etagMatches('W/"abc"', '"abc"')).toBe(true);
    expect(etagMatches('"x", "abc"', '"abc"')).toBe(true);
    expect(etagMatches('*', '"abc"')).toBe(true);
    expect(etagMatches('"abd"', '"abc"')).toBe(false);
    expect(etagMatches(undefined, '"abc"')).toBe(false);
  });
});
