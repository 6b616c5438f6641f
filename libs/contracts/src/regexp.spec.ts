import { escapeRegExp } from './regexp.js';

describe('escapeRegExp', () => {
  it('makes every special character literal', () => {
    const hostile = '(a|a)*b.+?^${1}[x]\\';
    const pattern = new RegExp(`^${escapeRegExp(hostile)}$`);
    expect(pattern.test(hostile)).toBe(true);
    expect(pattern.test('aab')).toBe(false);
  });

  it('leaves a regex bomb without its power: matching a long input stays instant', () => {
    const pattern = new RegExp(escapeRegExp('(a|a)*b'));
    const started = performance.now();
    expect(pattern.test('a'.repeat(50_000))).toBe(false);
    expect(performance.now() - started).toBeLessThan(1000); // unescaped, it would not end
  });
});
