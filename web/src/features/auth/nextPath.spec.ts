import { nextPath } from './nextPath';

describe('nextPath', () => {
  test('a path on this site, with its query and fragment, is where sign-in returns', () => {
    expect(nextPath('/garage/automobiles/car-one#comments')).toBe('/garage/automobiles/car-one#comments');
    expect(nextPath('/search?q=red%20car')).toBe('/search?q=red%20car');
  });

  test('nothing, another origin or the sign-in pages give null (the usual landing page)', () => {
    for (const value of [
      null,
      '',
      'garage',
      '//evil.example/x',
      '/\\evil.example',
      'https://evil.example/',
      'javascript:alert(1)',
      '/login',
      '/register?x=1',
    ])
      expect(nextPath(value)).toBeNull();
  });
});
