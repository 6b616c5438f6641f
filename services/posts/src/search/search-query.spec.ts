import { toPrefixTsquery, toTypoWords, typoAllowance, typoDistance } from './search-query.js';

describe('typo rule', () => {
  it.each([
    ['helmet', 'helmet', 0],
    ['helmte', 'helmet', 1], // swapped neighbours count one
    ['hlemet', 'helmet', 1],
    ['helmt', 'helmet', 1], // deletion
    ['helmett', 'helmet', 1], // insertion
    ['helmat', 'helmet', 1], // substitution
    ['hemlte', 'helmet', 2],
    ['zzqxhelmet', 'helmet', 4],
    ['crème', 'creme', 1],
    ['🐟fish', 'fish', 1], // a character outside the BMP is one character
  ])('%s → %s is %i typos', (a, b, distance) => {
    expect(typoDistance(a, b)).toBe(distance);
    expect(typoDistance(b, a)).toBe(distance);
  });

  it('stops counting past the allowance', () => {
    expect(typoDistance('zzqxhelmet', 'helmet', 2)).toBe(3);
    expect(typoDistance('abcdefghij', 'klmnopqrst', 1)).toBe(2);
  });

  it('allows no typo up to 4 characters, one from 5 to 8, two from 9', () => {
    expect([1, 4, 5, 8, 9, 20].map((n) => typoAllowance('x'.repeat(n)))).toEqual([0, 0, 1, 1, 2, 2]);
  });

  it('reads only letters and digits from what was typed', () => {
    expect(toPrefixTsquery(`reef' | aqua:*`)).toBe(`'reef' & 'aqua':*`);
    expect(toTypoWords('Reef REEF to aquarim')).toEqual(['reef', 'aquarim']);
  });
});
