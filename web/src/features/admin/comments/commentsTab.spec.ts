import type { AdminCommentsResult } from '@blog/contracts/comments';
import { actionsFor, afterAction, statusFromParams, withStatus } from './commentsTab';

const item = (id: number) => ({
  id,
  postId: 7,
  parentId: null,
  status: 'pending' as const,
  content: `<p>Comment ${id}</p>`,
  author: { name: 'Ann', handle: null, url: null, avatarUrl: null, local: true },
  via: null,
  createdAt: '2026-11-25T10:00:00.000Z',
  updatedAt: '2026-11-25T10:00:00.000Z',
  post: { id: 7, title: 'A post', url: '/garage/a-post' },
});

const pendingPage: AdminCommentsResult = {
  status: 'pending',
  total: 3,
  page: 1,
  pageSize: 30,
  items: [item(1), item(2), item(3)],
  counts: { pending: 3, approved: 5, spam: 1 },
};

describe('the Comments tab', () => {
  test('the status comes from the URL: pending when absent or unknown', () => {
    expect(statusFromParams(new URLSearchParams('tab=comments'))).toBe('pending');
    expect(statusFromParams(new URLSearchParams('tab=comments&status=spam'))).toBe('spam');
    expect(statusFromParams(new URLSearchParams('status=deleted'))).toBe('pending');
  });

  test('choosing a status keeps the tab, starts at page 1, and leaves pending out', () => {
    const current = new URLSearchParams('tab=comments&status=spam&page=3');
    expect(withStatus(current, 'approved').toString()).toBe('tab=comments&status=approved');
    expect(withStatus(current, 'pending').toString()).toBe('tab=comments');
    // The current URL is not changed in place.
    expect(current.toString()).toBe('tab=comments&status=spam&page=3');
  });

  test('each status offers the moves to the others, and delete', () => {
    expect(actionsFor('pending')).toEqual(['approve', 'spam', 'delete']);
    expect(actionsFor('approved')).toEqual(['spam', 'delete']);
    expect(actionsFor('spam')).toEqual(['approve', 'delete']);
  });

  test('after an action the comment leaves the list and the counts follow it', () => {
    const approved = afterAction(pendingPage, 2, 'approve');
    expect(approved.items.map((c) => c.id)).toEqual([1, 3]);
    expect(approved.total).toBe(2);
    expect(approved.counts).toEqual({ pending: 2, approved: 6, spam: 1 });
    expect(afterAction(pendingPage, 1, 'spam').counts).toEqual({ pending: 2, approved: 5, spam: 2 });
    expect(afterAction(pendingPage, 3, 'delete').counts).toEqual({ pending: 2, approved: 5, spam: 1 });
    // The page it was given is unchanged; an id not on the page changes nothing.
    expect(pendingPage.items).toHaveLength(3);
    expect(afterAction(pendingPage, 99, 'approve')).toBe(pendingPage);
  });
});
