import type { CommentThread, CommentView, PostCommentsResult } from '@blog/contracts/comments';
import { createElement as h } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { MemoryRouter } from 'react-router-dom';
import { ApiProvider } from '../../api/ApiContext';
import { createApiClient } from '../../api/client';
import { SessionProvider } from '../../session/SessionContext';
import { createSessionStore } from '../../session/store';
import { MemoryStorage } from '../../testing/memoryStorage';
import { PostComments } from './PostComments';

const comment = (id: number, overrides: Partial<CommentView> = {}): CommentView => ({
  id,
  postId: 7,
  parentId: null,
  status: 'approved',
  content: `<p>Comment number ${id}</p>`,
  author: { name: 'Ann Reader', handle: 'ann', url: null, avatarUrl: null, local: true },
  via: null,
  createdAt: '2026-11-25T10:04:00.000Z',
  updatedAt: '2026-11-25T10:04:00.000Z',
  ...overrides,
});

const remote = comment(1, {
  author: {
    name: 'Bob',
    handle: '@bob@social.example',
    url: 'https://social.example/@bob',
    avatarUrl: '/uploads/avatars/bob.webp',
    local: false,
  },
  via: 'Mastodon',
});
const thread: CommentThread = { ...remote, replies: [comment(2, { parentId: 1 })] };
const result: PostCommentsResult = {
  postId: 7,
  count: 3,
  comments: [thread, { ...comment(3), replies: [] }],
};

/** The section as the server renders it for a guest (no request is made). */
function render(initial: PostCommentsResult | null): string {
  const session = createSessionStore(new MemoryStorage());
  const api = createApiClient({
    session,
    onUnauthorized: () => {},
    fetch: () => Promise.reject(new Error('no request expected')),
  });
  return renderToStaticMarkup(
    h(
      MemoryRouter,
      { initialEntries: ['/projects/the-shed'] },
      h(
        SessionProvider,
        { store: session },
        h(ApiProvider, { client: api }, h(PostComments, { postId: 7, initial })),
      ),
    ),
  );
}

describe('PostComments (server render, guest)', () => {
  const html = render(result);

  test('the count in the heading, and each comment with its sanitised HTML', () => {
    expect(html).toContain('<h2 id="comments-heading">3 comments</h2>');
    expect(html).toContain('<p>Comment number 1</p>');
    expect(html).toContain('<p>Comment number 3</p>');
  });

  test('a remote author: linked nofollow ugc, the handle, the local avatar, via Mastodon', () => {
    expect(html).toContain('<a href="https://social.example/@bob" rel="nofollow ugc noopener">Bob</a>');
    expect(html).toContain('@bob@social.example');
    expect(html).toMatch(/<img class="comment-avatar" src="\/uploads\/avatars\/bob\.webp" alt=""/);
    expect(html).toContain('via Mastodon');
    // The date in UTC until hydrated, the machine-readable one beside it.
    expect(html).toContain(
      '<time dateTime="2026-11-25T10:04:00.000Z">November 25, 2026 at 10:04 AM UTC</time>',
    );
  });

  test('a reply is listed under its comment, not beside it', () => {
    const replies = html.indexOf('<ol class="comment-replies" aria-label="Replies to Bob">');
    expect(replies).toBeGreaterThan(html.indexOf('Comment number 1'));
    expect(html.indexOf('Comment number 2')).toBeGreaterThan(replies);
    expect(html.indexOf('Comment number 2')).toBeLessThan(html.indexOf('Comment number 3'));
  });

  test('a guest gets the way to sign in (back to this post), no form and no Reply', () => {
    expect(html).toContain('href="/login?next=%2Fprojects%2Fthe-shed%23comments">Sign in to comment</a>');
    expect(html).not.toContain('<form');
    expect(html).not.toContain('Reply');
  });

  test('no comments: the empty state; none loaded: the error with a retry', () => {
    expect(render({ postId: 7, count: 0, comments: [] })).toContain('No comments yet');
    const failed = render(null);
    expect(failed).toMatch(/<p [^>]*role="alert">The comments could not be loaded.<\/p>/);
    expect(failed).toContain('Try again');
  });
});
