import { DRAFT_KEY, DRAFT_LIFETIME_MS, SUBMISSION_KEY } from '@blog/contracts/admin';
import { MemoryStorage } from '../../../testing/memoryStorage';
import { clearDraft, loadDraft, loadSubmission, makeDraft, saveDraft, saveSubmission } from './draft';
import type { FormMedia } from './formMedia';
import type { PostFormValues } from './postForm';

const values: PostFormValues = {
  title: 'Draft',
  content: '',
  tags: '',
  category: 'Projects',
  submenu1: 'General',
  submenu2: '',
  selectedDate: '2025-03-05',
  selectedTime: { hours: 9, minutes: 30 },
  status: 'published',
};
const media: FormMedia[] = [
  { key: 'f', source: 'new', type: 'image', order: 0, file: {} as File, name: 'a.jpg', preview: 'data:,' },
  {
    key: 'y',
    source: 'youtube',
    type: 'youtube',
    order: 1,
    url: 'https://youtu.be/dQw4w9WgXcQ',
    title: 'Clip',
    thumbnailUrl: 't',
  },
];

describe('the local draft (docs/product.md#what-a-post-holds, #how-the-screens-behave)', () => {
  test('keeps the fields and YouTube links, never files (it counts them), under postForm_autoSave', () => {
    const storage = new MemoryStorage();
    saveDraft(storage, makeDraft(values, media, { x: 1, y: 2, scale: 1.5 }, 1000));
    const stored = JSON.parse(storage.getItem(DRAFT_KEY)!);
    expect(stored).toMatchObject({
      ...values,
      cropSettings: { x: 1, y: 2, scale: 1.5 },
      fileCount: 1,
      timestamp: 1000,
    });
    expect(stored.youtubeVideos).toEqual([
      { url: 'https://youtu.be/dQw4w9WgXcQ', title: 'Clip', thumbnailUrl: 't', key: 'y' },
    ]);
    expect(JSON.stringify(stored)).not.toContain('a.jpg');
  });

  test('restored within 24 hours, discarded after; cleared on demand', () => {
    const storage = new MemoryStorage();
    saveDraft(storage, makeDraft(values, [], null, 1000));
    expect(loadDraft(storage, 1000 + DRAFT_LIFETIME_MS - 1)?.title).toBe('Draft');
    expect(loadDraft(storage, 1000 + DRAFT_LIFETIME_MS)).toBeNull();
    expect(storage.getItem(DRAFT_KEY)).toBeNull();
    saveDraft(storage, makeDraft(values, [], null, 1000));
    clearDraft(storage);
    expect(loadDraft(storage, 1000)).toBeNull();
    storage.setItem(DRAFT_KEY, '{not json');
    expect(loadDraft(storage, 1000)).toBeNull();
    expect(storage.getItem(DRAFT_KEY)).toBeNull();
  });
});

describe('the pending submission beside the draft', () => {
  const submission = { key: 'k1', signature: '[]', timestamp: 1_000 };

  test('is kept for a draft lifetime and cleared with the draft', () => {
    const storage = new MemoryStorage();
    saveSubmission(storage, submission);
    expect(loadSubmission(storage, 2_000)).toEqual(submission);
    expect(loadSubmission(storage, 1_000 + DRAFT_LIFETIME_MS)).toBeNull();
    expect(storage.getItem(SUBMISSION_KEY)).toBeNull();
    saveSubmission(storage, submission);
    clearDraft(storage);
    expect(loadSubmission(storage, 2_000)).toBeNull();
  });

  test('an unreadable one counts as none', () => {
    const storage = new MemoryStorage();
    storage.setItem(SUBMISSION_KEY, '{"key": 5}');
    expect(loadSubmission(storage, 2_000)).toBeNull();
    storage.setItem(SUBMISSION_KEY, 'not json');
    expect(loadSubmission(storage, 2_000)).toBeNull();
  });
});
