import {
  assertValidKey,
  InvalidKeyError,
  isPrivateKey,
  isValidKey,
  MAX_KEY_LENGTH,
  newObjectKey,
  publicUploadUrl,
} from './keys.js';

describe('object keys', () => {
  it.each([
    'a',
    'media/2026/01/x.jpg',
    'private/originals/a-b_c.d.png',
    'a.b/c..d/e',
    `a/${'b'.repeat(200)}`,
  ])('accepts %j', (key) => {
    expect(() => assertValidKey(key)).not.toThrow();
    expect(isValidKey(key)).toBe(true);
  });

  it.each([
    '',
    '/abs',
    '../x',
    'a/../b',
    'a/..',
    '..',
    '.',
    'a/./b',
    'a//b',
    'a/',
    '.hidden',
    'a/.b',
    'a\\b',
    'a b',
    'a%2fb',
    'a?b',
    'a\nb',
    'ü',
    'x'.repeat(MAX_KEY_LENGTH + 1),
    `a/${'b'.repeat(201)}`,
  ])('rejects %j', (key) => {
    expect(() => assertValidKey(key)).toThrow(InvalidKeyError);
    expect(isValidKey(key)).toBe(false);
  });

  it('rejects values that are not strings', () => {
    for (const value of [undefined, null, 1, {}, ['a']]) expect(isValidKey(value)).toBe(false);
  });

  it('makes fresh keys under a prefix, by UTC year and month, with a lower-case extension', () => {
    const now = new Date('2026-03-31T23:30:00-05:00'); // already April in UTC
    const key = newObjectKey('media/originals', '.JPG', now);
    expect(key).toMatch(
      /^media\/originals\/2026\/04\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.jpg$/,
    );
    expect(newObjectKey('media/', 'png')).not.toBe(newObjectKey('media/', 'png'));
    expect(() => newObjectKey('../up', 'jpg')).toThrow(InvalidKeyError);
    expect(() => newObjectKey('media', 'j/pg')).toThrow(InvalidKeyError);
    expect(() => newObjectKey('media', '')).toThrow(InvalidKeyError);
  });

  it('marks private/ keys, whatever their case', () => {
    expect(isPrivateKey('private/a.jpg')).toBe(true);
    expect(isPrivateKey('Private/a.jpg')).toBe(true);
    expect(isPrivateKey('private')).toBe(false);
    expect(isPrivateKey('privateer/a.jpg')).toBe(false);
    expect(isPrivateKey('media/private/a.jpg')).toBe(false);
  });

  it('builds public URLs under /uploads', () => {
    expect(publicUploadUrl('media/2026/01/a.jpg')).toBe('/uploads/media/2026/01/a.jpg');
    expect(() => publicUploadUrl('../a')).toThrow(InvalidKeyError);
  });
});
