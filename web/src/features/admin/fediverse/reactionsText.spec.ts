import { reactionsText } from './reactionsText';

describe('reactionsText', () => {
  it('counts in words, the quotes only when there are some', () => {
    expect(reactionsText({ likes: 1, announces: 0, quotes: 0 })).toBe('1 like, 0 boosts on the fediverse');
    expect(reactionsText({ likes: 2, announces: 1, quotes: 1 })).toBe(
      '2 likes, 1 boost, 1 quote on the fediverse',
    );
    expect(reactionsText({ likes: 0, announces: 3, quotes: 2 })).toBe(
      '0 likes, 3 boosts, 2 quotes on the fediverse',
    );
  });
});
