import type { MediaItemView } from '@blog/contracts/posts';
import { carouselItems, pictureSources, youtubeSources } from './media';

const image = (path: string, order: number): MediaItemView => ({
  id: path,
  type: 'image',
  order,
  status: 'ready',
  path,
});

describe('post media (docs/product.md#limits-and-timings)', () => {
  test('duplicates go (files by path, YouTube by url), order is kept, frame assets are hidden', () => {
    const items = carouselItems([
      image('/uploads/b.jpg', 1),
      image('/uploads/a.jpg', 0),
      image('/uploads/a.jpg', 2),
      { id: 'y1', type: 'youtube', order: 3, status: 'ready', url: 'https://youtu.be/dQw4w9WgXcQ' },
      { id: 'y2', type: 'youtube', order: 4, status: 'ready', url: 'https://youtu.be/dQw4w9WgXcQ' },
      image('/assets/header/top.jpg', 5),
      image('/uploads/banner-wide.png', 6),
      image('/icons/star.svg', 7),
    ]);
    expect(items.map((i) => i.id)).toEqual(['/uploads/a.jpg', '/uploads/b.jpg', 'y1']);
  });

  test('YouTube items embed from the privacy-enhanced host', () => {
    expect(
      youtubeSources({ id: 'y', type: 'youtube', order: 0, status: 'ready', url: 'youtu.be/dQw4w9WgXcQ' }),
    ).toEqual({
      embedUrl: 'https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ',
      thumbnailUrl: 'https://i.ytimg.com/vi/dQw4w9WgXcQ/hqdefault.jpg',
    });
  });

  test('pictures get a srcset per format and a fallback src', () => {
    const sources = pictureSources({
      path: '/uploads/a.jpg',
      width: 1200,
      height: 800,
      variants: [
        { path: '/v/1200.avif', format: 'avif', width: 1200, height: 800 },
        { path: '/v/400.avif', format: 'avif', width: 400, height: 267 },
        { path: '/v/400.webp', format: 'webp', width: 400, height: 267 },
        { path: '/v/400.jpeg', format: 'jpeg', width: 400, height: 267 },
        { path: '/v/800.jpeg', format: 'jpeg', width: 800, height: 533 },
        { path: '/v/1200.jpeg', format: 'jpeg', width: 1200, height: 800 },
      ],
    });
    expect(sources.avif).toBe('/v/400.avif 400w, /v/1200.avif 1200w');
    expect(sources.webp).toBe('/v/400.webp 400w');
    expect(sources.fallback).toBe('/v/400.jpeg 400w, /v/800.jpeg 800w, /v/1200.jpeg 1200w');
    expect(sources.fallbackSrc).toBe('/v/800.jpeg');
    expect([sources.width, sources.height]).toEqual([1200, 800]);
  });
});
