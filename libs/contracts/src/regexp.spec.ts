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
    // This thread's CPU time, not the wall clock (a loaded machine's pauses are not the match's):
    // microseconds escaped; unescaped, the match would not end.
    const started = process.threadCpuUsage();
    expect(pattern.test('a'.repeat(50_000))).toBe(false);
    const { user, system } = process.threadCpuUsage(started);
    expect((user + system) / 1000).toBeLessThan(1000);
  });
});
