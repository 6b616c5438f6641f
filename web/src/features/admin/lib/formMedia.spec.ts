import { AdminText } from '@blog/contracts/admin';
import { YOUTUBE_URL_ERROR } from '@blog/contracts/media';
import type { MediaItemView } from '@blog/contracts/posts';
import {
  addYoutube,
  describeMedia,
  mainImage,
  mediaFromPost,
  mediaMarkdown,
  mediaPayload,
  moveMedia,
  removeMedia,
  type FormMedia,
} from './formMedia';

const file = (name: string) => ({ name }) as File;
const fresh = (key: string, type: 'image' | 'video', order: number): FormMedia => ({
  key,
  source: 'new',
  type,
  order,
  file: file(key),
  name: key,
  preview: null,
});
const saved = (id: string, type: 'image' | 'video', order?: number): MediaItemView =>
  ({ id, type, order, status: 'ready', path: `/uploads/${id}`, name: id }) as MediaItemView;

describe('form media (docs/product.md#what-a-post-holds, #limits-and-timings)', () => {
  const list = [
    fresh('a', 'image', 0),
    fresh('v', 'video', 1),
    fresh('b', 'image', 2),
    fresh('c', 'image', 3),
  ];

  test('removing an item renumbers the rest from 0', () => {
    expect(removeMedia(list, 'v').map((m) => [m.key, m.order])).toEqual([
      ['a', 0],
      ['b', 1],
      ['c', 2],
    ]);
  });

  test('the first image is main; when it is removed the next image takes over', () => {
    expect(mainImage(list)?.key).toBe('a');
    expect(mainImage(removeMedia(list, 'a'))?.key).toBe('b');
    expect(mainImage([fresh('v', 'video', 0)])).toBeNull();
  });

  test('moving renumbers in the new order', () => {
    expect(moveMedia(list, 'c', 'a').map((m) => `${m.key}${m.order}`)).toEqual(['c0', 'a1', 'v2', 'b3']);
    expect(moveMedia(list, 'a', 'v').map((m) => m.key)).toEqual(['v', 'a', 'b', 'c']);
    expect(moveMedia(list, 'a', 'missing')).toBe(list);
  });

  test('a saved post’s media come in order, a missing order last', () => {
    const media = mediaFromPost([saved('x', 'image'), saved('y', 'video', 1), saved('z', 'image', 0)]);
    expect(media.map((m) => `${m.key}${m.order}`)).toEqual(['z0', 'y1', 'x2']);
  });

  test('YouTube links: blank ignored, invalid refused, default title numbered', () => {
    expect(addYoutube(list, '  ', '', 'k')).toEqual({ items: list, error: null });
    expect(addYoutube(list, 'https://vimeo.com/1', '', 'k').error).toBe(YOUTUBE_URL_ERROR);
    const one = addYoutube(list, 'https://www.youtube.com/watch?v=dQw4w9WgXcQ', '', 'y1').items;
    const two = addYoutube(one, 'youtu.be/9bZkp7q19f0', 'Mine', 'y2').items;
    expect(two.slice(-2)).toMatchObject([
      { title: AdminText.youtubeTitle(1), order: 4, thumbnailUrl: expect.stringContaining('dQw4w9WgXcQ') },
      { title: 'Mine', order: 5 },
    ]);
  });

  test('the payload lists every item in order, new files by index, duplicates gone', () => {
    const items: FormMedia[] = [
      { key: 's', source: 'saved', type: 'image', order: 0, item: saved('s', 'image', 0) },
      fresh('n', 'video', 1),
      {
        key: 'y',
        source: 'youtube',
        type: 'youtube',
        order: 2,
        url: 'https://youtu.be/dQw4w9WgXcQ',
        title: 'T',
        thumbnailUrl: '',
      },
      {
        key: 'y2',
        source: 'youtube',
        type: 'youtube',
        order: 3,
        url: 'https://youtu.be/dQw4w9WgXcQ',
        title: 'T',
        thumbnailUrl: '',
      },
      { key: 's2', source: 'saved', type: 'image', order: 4, item: saved('s', 'image', 4) },
      fresh('m', 'image', 5),
    ];
    const { unifiedMedia, files } = mediaPayload(items);
    expect(files.map((f) => f.name)).toEqual(['n', 'm']);
    expect(unifiedMedia).toEqual([
      { type: 'image', order: 0, path: '/uploads/s', name: 's', alt: '', caption: '' },
      // New items and links carry the key the text refers to them by (media:KEY).
      { type: 'video', order: 1, name: 'n', fileIndex: 0, isNew: true, ref: 'n', alt: '', caption: '' },
      { type: 'youtube', order: 2, url: 'https://youtu.be/dQw4w9WgXcQ', title: 'T', ref: 'y' },
      { type: 'image', order: 3, name: 'm', fileIndex: 1, isNew: true, ref: 'm', alt: '', caption: '' },
    ]);
  });
});

describe('media in the text and their descriptions', () => {
  const photo = {
    key: 'new-abc',
    source: 'new' as const,
    type: 'image' as const,
    order: 0,
    file: new File(['x'], 'front.jpg', { type: 'image/jpeg' }),
    name: 'front.jpg',
    preview: null,
  };

  test('a new item is placed by its key, a saved one by its id, with its alt text', () => {
    expect(mediaMarkdown({ ...photo, alt: 'Front [left] wheel' })).toBe('![Front left wheel](media:new-abc)');
    const saved = mediaFromPost([
      {
        id: '6f1c2c1e-0000-4000-8000-000000000001',
        type: 'image',
        order: 0,
        status: 'ready',
        path: '/uploads/a',
        alt: 'Roof',
      },
    ]);
    expect(mediaMarkdown(saved[0]!)).toBe('![Roof](media:6f1c2c1e-0000-4000-8000-000000000001)');
  });

  test('alt text and captions are set on images and videos only', () => {
    const items = describeMedia([photo], 'new-abc', 'alt', 'The red roadster');
    expect(items[0]).toMatchObject({ alt: 'The red roadster' });
    expect(
      mediaPayload(describeMedia(items, 'new-abc', 'caption', 'At the lake')).unifiedMedia[0],
    ).toMatchObject({
      alt: 'The red roadster',
      caption: 'At the lake',
      ref: 'new-abc',
    });
  });
});
