/**
 * A typed post (an import's) meets the same rules as the form's fields: the same parsed post
 * for the same values, and the same 400s naming the field for what the form refuses.
 */
import { siteNodes, type UnifiedMediaInput } from '@blog/contracts';
import { loadSiteConfig, RpcError } from '@blog/server-kit';
import { parsePostForm, parsePostInput, type PostInput } from './post-form.js';

const site = loadSiteConfig();
const leaf = siteNodes(site).find((node) => node.leaf && node.labels.length === 2)!;
const media: UnifiedMediaInput[] = [
  { type: 'image', fileIndex: 0, isNew: true, order: 0, ref: 'pic', alt: 'A car', caption: 'Red' },
  { type: 'youtube', url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ', order: 1, ref: 'clip' },
];
const typed: PostInput = {
  title: '  Imported  ',
  content: 'Line one\r\nline two ![A car](media:pic)',
  category: leaf.labels[0]!,
  submenu1: leaf.labels[1]!,
  tags: ['cars', 'Cars', 'red'],
  status: 'draft',
  date: new Date('2019-05-04T03:02:01.000Z'),
  crop: { x: 10, y: 20, scale: 1.5 },
  media,
};

/** What a 400 says: its field and words. */
function refusal(work: () => unknown): { field?: string; error: string } {
  try {
    work();
  } catch (error) {
    expect(error).toBeInstanceOf(RpcError);
    const { field, error: words, status } = (error as RpcError).body;
    expect(status).toBe(400);
    return { field, error: words };
  }
  throw new Error('not refused');
}

describe('parsePostInput', () => {
  it('gives the post the form gives for the same values', () => {
    const fromForm = parsePostForm(
      {
        title: typed.title,
        content: typed.content,
        category: typed.category,
        submenu1: typed.submenu1,
        tags: typed.tags.join(', '),
        status: typed.status,
        date: typed.date!.toISOString(),
        cropSettings: JSON.stringify(typed.crop),
        unifiedMedia: JSON.stringify(media),
      },
      site,
    );
    const fromInput = parsePostInput(typed, site);
    expect(fromInput).toEqual({ ...fromForm, form: { ...fromForm.form, tags: undefined } });
    expect(fromInput).toMatchObject({
      form: { title: 'Imported', content: 'Line one\nline two ![A car](media:pic)', status: 'draft' },
      createdAt: typed.date,
    });
    expect(fromInput.tags.length).toBeGreaterThan(0);
  });

  it.each<[string, Partial<PostInput>, string]>([
    ['an empty title', { title: '  ' }, 'title'],
    ['an unknown category', { category: 'Nowhere' }, 'category'],
    ['a crop past the largest scale', { crop: { x: 0, y: 0, scale: 11 } }, 'cropSettings'],
    [
      'more media than a post holds',
      { media: Array.from({ length: 201 }, (_, order) => ({ type: 'image' as const, order })) },
      'unifiedMedia',
    ],
    [
      'a media reference the text cannot hold',
      { media: [{ type: 'image', order: 0, ref: 'a b' }] },
      'unifiedMedia',
    ],
  ])('refuses %s, naming the field', (_label, change, field) => {
    const input = { ...typed, ...change };
    expect(refusal(() => parsePostInput(input, site)).field).toMatch(new RegExp(`^${field}`));
  });
});
