import {
  byOrder,
  isHeic,
  isImageOrVideo,
  keyFromUploadsPath,
  parseYoutubeUrl,
  uploadsPath,
} from './media.js';
import { parseTags, slugify } from './posts.js';

describe('YouTube links (docs/product.md#limits-and-timings)', () => {
  it.each([
    ['https://www.youtube.com/watch?v=dQw4w9WgXcQ', 'dQw4w9WgXcQ', false],
    ['http://youtube.com/watch?v=dQw4w9WgXcQ&t=42s', 'dQw4w9WgXcQ', false],
    ['youtube.com/watch?v=dQw4w9WgXcQ', 'dQw4w9WgXcQ', false],
    ['www.youtube.com/watch?feature=share&v=dQw4w9WgXcQ', 'dQw4w9WgXcQ', false],
    ['https://youtu.be/dQw4w9WgXcQ', 'dQw4w9WgXcQ', false],
    ['youtu.be/dQw4w9WgXcQ?si=abc', 'dQw4w9WgXcQ', false],
    ['https://www.youtube.com/shorts/abcdefghijk', 'abcdefghijk', true],
    ['https://m.youtube.com/watch?v=dQw4w9WgXcQ', 'dQw4w9WgXcQ', false],
    ['https://www.youtube.com/embed/dQw4w9WgXcQ', 'dQw4w9WgXcQ', false],
  ])('reads %s', (url, videoId, isShorts) => {
    expect(parseYoutubeUrl(url)).toEqual({
      videoId,
      url,
      embedUrl: `https://www.youtube-nocookie.com/embed/${videoId}`,
      thumbnailUrl: `https://i.ytimg.com/vi/${videoId}/hqdefault.jpg`,
      isShorts,
    });
  });

  it.each([
    'https://vimeo.com/12345',
    'https://www.youtube.com/',
    'https://www.youtube.com/watch',
    'https://www.youtube.com/watch?v=',
    'https://youtube.com.evil.example/watch?v=dQw4w9WgXcQ',
    'ftp://youtube.com/watch?v=dQw4w9WgXcQ',
    'javascript:alert(1)//youtube.com/x',
    'not a url',
    '',
  ])('refuses %j', (url) => {
    expect(parseYoutubeUrl(url)).toBeNull();
  });
});

describe('file rules', () => {
  it('rejects HEIC and HEIF by name or by type', () => {
    expect(isHeic('IMG_1.HEIC')).toBe(true);
    expect(isHeic('photo.heif')).toBe(true);
    expect(isHeic('photo.jpg', 'image/heic')).toBe(true);
    expect(isHeic('photo.jpg', 'image/heif-sequence')).toBe(true);
    expect(isHeic('photo.jpg', 'image/jpeg')).toBe(false);
    expect(isHeic('heic.jpg')).toBe(false);
  });

  it('accepts only image/* and video/* types', () => {
    expect(isImageOrVideo('image/webp')).toBe(true);
    expect(isImageOrVideo('video/mp4')).toBe(true);
    expect(isImageOrVideo('application/pdf')).toBe(false);
    expect(isImageOrVideo('text/plain')).toBe(false);
    expect(isImageOrVideo('image/')).toBe(false);
  });

  it('sorts a missing order last (999)', () => {
    const items = [{ order: 3 }, {}, { order: 0 }, { order: null }];
    expect([...items].sort(byOrder)).toEqual([{ order: 0 }, { order: 3 }, {}, { order: null }]);
  });

  it('maps upload paths to storage keys and back', () => {
    expect(uploadsPath('media/2025/01/a.jpg')).toBe('/uploads/media/2025/01/a.jpg');
    for (const path of [
      '/uploads/media/a.jpg',
      'uploads/media/a.jpg',
      'http://blog.example/uploads/media/a.jpg?x=1',
      'media/a.jpg',
    ]) {
      expect(keyFromUploadsPath(path)).toBe('media/a.jpg');
    }
  });
});

describe('slugs and tags', () => {
  it.each([
    ['New tyres for the roadster', 'new-tyres-for-the-roadster'],
    ['Crème brûlée at home!', 'creme-brulee-at-home'],
    ["Dad's Mustang (1967)", 'dads-mustang-1967'],
    ['  --Hello,   World--  ', 'hello-world'],
    ['!!!', 'post'],
    ['日本語', 'post'],
    ['a'.repeat(100), 'a'.repeat(80)],
  ])('slugify(%j) = %s', (title, slug) => {
    expect(slugify(title)).toBe(slug);
  });

  it('reads tags from an array, a comma-separated string or a JSON string', () => {
    expect(parseTags(['reef', ' coral ', 'reef'])).toEqual(['reef', 'coral']);
    expect(parseTags('reef, coral,,  #fish ')).toEqual(['reef', 'coral', 'fish']);
    expect(parseTags('["reef","Coral","coral"]')).toEqual(['reef', 'Coral']);
    expect(parseTags('[broken json, x')).toEqual(['[broken json', 'x']);
    expect(parseTags(undefined)).toEqual([]);
    expect(parseTags(42)).toEqual([]);
    expect(parseTags(Array.from({ length: 40 }, (_, i) => `t${i}`))).toHaveLength(30);
  });
});
