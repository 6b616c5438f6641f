import type { AdminCommentItem } from '@blog/contracts/comment-edits';
import type { AdminCommentsResult } from '@blog/contracts/comments';
import { actionTexts, afterAction, isChange } from './commentsTab';

const item = (id: number, proposedContent: string | null): AdminCommentItem => ({
  id,
  postId: 7,
  parentId: null,
  status: 'pending',
  content: `<p>Approved ${id}</p>`,
  proposedContent,
  author: {
    name: 'Bob',
    handle: '@bob@social.example',
    url: null,
    actorUri: 'https://social.example/users/bob',
    avatarUrl: null,
    local: false,
  },
  via: 'Mastodon',
  createdAt: '2026-11-25T10:00:00.000Z',
  updatedAt: '2026-11-25T10:00:00.000Z',
  post: { id: 7, title: 'A post', url: '/garage/a-post' },
});

const page: AdminCommentsResult = {
  status: 'pending',
  total: 2,
  page: 1,
  pageSize: 30,
  items: [item(1, '<p>Changed</p>'), item(2, null)],
  counts: { pending: 2, approved: 5, spam: 0 },
};

describe('the Comments tab, on a change to an approved comment', () => {
  test('approve and delete name the change; spam stays the whole comment', () => {
    const change = page.items[0]!;
    expect(isChange(change)).toBe(true);
    expect(actionTexts('approve', change).label).toBe('Approve change');
    expect(actionTexts('delete', change)).toMatchObject({
      label: 'Refuse change',
      done: 'Change refused: readers keep the approved text.',
    });
    expect(actionTexts('spam', change).label).toBe('Mark as spam');
    // A new comment keeps the usual words.
    expect(actionTexts('approve', page.items[1]!).label).toBe('Approve');
    expect(actionTexts('delete', page.items[1]!).label).toBe('Delete');
  });

  test('a refused change leaves the list for the approved ones; a deleted comment only lowers its count', () => {
    expect(afterAction(page, 1, 'delete')).toMatchObject({
      items: [{ id: 2 }],
      counts: { pending: 1, approved: 6, spam: 0 },
    });
    expect(afterAction(page, 2, 'delete').counts).toEqual({ pending: 1, approved: 5, spam: 0 });
    expect(afterAction(page, 1, 'approve').counts).toEqual({ pending: 1, approved: 6, spam: 0 });
  });
});
