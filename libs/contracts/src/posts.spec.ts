import { readingTime } from './posts.js';

describe('reading time (the server stores it, the editor shows it)', () => {
  test('counts words and reading minutes as the server does', () => {
    expect(readingTime('')).toEqual({ words: 0, minutes: 0 });
    expect(readingTime('## Two words - ok')).toEqual({ words: 3, minutes: 1 });
    expect(readingTime('word '.repeat(231))).toEqual({ words: 231, minutes: 2 });
  });
});
