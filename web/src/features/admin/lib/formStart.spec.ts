import { DRAFT_LIFETIME_MS } from '@blog/contracts/admin';
import type { PostView } from '@blog/contracts/posts';
import type { SiteConfig } from '@blog/contracts/site';
import { MemoryStorage } from '../../../testing/memoryStorage';
import { makeDraft, saveDraft } from './draft';
import { formStart } from './formStart';
import { postFormData } from './postPayload';

const site = {
  categories: [
    {
      label: 'Projects',
      segment: 'projects',
      subcategories: [{ label: 'General', segment: 'general', general: true, entries: [] }],
    },
  ],
} as unknown as SiteConfig;
const now = new Date(2025, 4, 1, 9, 5);

describe('what the post form opens with (docs/product.md#how-the-screens-behave)', () => {
  test('a blank new post when no draft is younger than 24 hours', () => {
    const storage = new MemoryStorage();
    const start = formStart(undefined, site, storage, now);
    expect(start).toMatchObject({ media: [], crop: null, restored: null });
    expect(start.values).toMatchObject({
      title: '',
      category: 'Projects',
      submenu1: 'General',
      submenu2: '',
    });

    saveDraft(
      storage,
      makeDraft({ ...start.values, title: 'Old' }, [], null, now.getTime() - DRAFT_LIFETIME_MS),
    );
    expect(formStart(undefined, site, storage, now).values.title).toBe('');
  });

  test('a restored draft brings its fields, crop and YouTube links, and says how many files it lost', () => {
    const storage = new MemoryStorage();
    const values = { ...formStart(undefined, site, storage, now).values, title: 'Kept' };
    const youtube = {
      key: 'y',
      source: 'youtube' as const,
      type: 'youtube' as const,
      order: 0,
      url: 'https://youtu.be/dQw4w9WgXcQ',
      title: 'Clip',
      thumbnailUrl: 't',
    };
    const photo = {
      key: 'f',
      source: 'new' as const,
      type: 'image' as const,
      order: 1,
      file: {} as File,
      name: 'p.jpg',
      preview: null,
    };
    saveDraft(storage, makeDraft(values, [youtube, photo], { x: 3, y: 4, scale: 2 }, now.getTime() - 1000));
    const start = formStart(undefined, site, storage, now);
    expect(start.values).toEqual(values);
    expect(start.crop).toEqual({ x: 3, y: 4, scale: 2 });
    expect(start.media).toMatchObject([{ source: 'youtube', url: youtube.url, title: 'Clip', order: 0 }]);
    expect(start.restored).toEqual({ timestamp: now.getTime() - 1000, fileCount: 1 });
  });

  test('an edited post brings its media in order and the main image’s crop; the form data carries them', () => {
    const post = {
      id: 7,
      title: 'Shed',
      content: 'Roof done',
      category: 'Projects',
      submenu1: 'General',
      submenu2: null,
      tags: ['roof', 'diy'],
      created_at: new Date(2025, 0, 2, 15, 30).toISOString(),
      media: [
        { id: 'b', type: 'image', order: 1, status: 'ready', path: '/uploads/b.jpg', name: 'b.jpg' },
        {
          id: 'a',
          type: 'image',
          order: 0,
          status: 'ready',
          path: '/uploads/a.jpg',
          name: 'a.jpg',
          cropX: 5,
          cropY: -2,
          cropScale: 1.5,
        },
      ],
    } as unknown as PostView;
    const start = formStart(post, site, new MemoryStorage(), now);
    expect(start.values).toMatchObject({
      title: 'Shed',
      tags: 'roof, diy',
      selectedDate: '2025-01-02',
      selectedTime: { hours: 15, minutes: 30 },
    });
    expect(start.media.map((m) => m.key)).toEqual(['a', 'b']);
    expect(start.crop).toEqual({ x: 5, y: -2, scale: 1.5 });

    const form = postFormData(start.values, start.media, start.crop);
    expect(form.get('date')).toBe('2025-01-02T15:30');
    expect(JSON.parse(String(form.get('cropSettings')))).toEqual({ x: 5, y: -2, scale: 1.5 });
    expect(JSON.parse(String(form.get('unifiedMedia'))).map((m: { path: string }) => m.path)).toEqual([
      '/uploads/a.jpg',
      '/uploads/b.jpg',
    ]);
    // Without an image there is nothing to crop: no cropSettings.
    expect(postFormData(start.values, [], start.crop).get('cropSettings')).toBeNull();
  });
});
