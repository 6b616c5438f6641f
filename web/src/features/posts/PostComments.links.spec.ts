import type { CommentView, PostCommentsResult } from '@blog/contracts/comments';
import { createElement as h } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { MemoryRouter } from 'react-router-dom';
import { ApiProvider } from '../../api/ApiContext';
import { createApiClient } from '../../api/client';
import { SessionProvider } from '../../session/SessionContext';
import { createSessionStore } from '../../session/store';
import { MemoryStorage } from '../../testing/memoryStorage';
import { PostComments } from './PostComments';

const remote = (id: number, url: string | null): CommentView => ({
  id,
  postId: 7,
  parentId: null,
  status: 'approved',
  content: `<p>Reply ${id}</p>`,
  author: {
    name: `Author ${id}`,
    handle: `@a${id}@social.example`,
    url,
    actorUri: `https://social.example/users/a${id}`,
    avatarUrl: null,
    local: false,
  },
  via: 'Mastodon',
  createdAt: '2026-11-25T10:04:00.000Z',
  updatedAt: '2026-11-25T10:04:00.000Z',
});

/** The section as the server renders it for a guest. */
function render(initial: PostCommentsResult): string {
  const session = createSessionStore(new MemoryStorage());
  const api = createApiClient({
    session,
    onUnauthorized: () => {},
    fetch: () => Promise.reject(new Error('no request expected')),
  });
  const comments = h(PostComments, { postId: 7, initial });
  const withApi = h(ApiProvider, { client: api, children: comments });
  return renderToStaticMarkup(
    h(
      MemoryRouter,
      { initialEntries: ['/projects/the-shed'] },
      h(SessionProvider, { store: session, children: withApi }),
    ),
  );
}

describe('PostComments: a remote author without a link', () => {
  test('an author whose link the server did not keep is named, not linked', () => {
    const html = render({
      postId: 7,
      count: 2,
      comments: [
        { ...remote(1, null), replies: [] },
        { ...remote(2, 'https://social.example/@a2'), replies: [] },
      ],
    });
    expect(html).toContain('<p class="comment-author"><span>Author 1</span>');
    expect(html).toContain('<a href="https://social.example/@a2" rel="nofollow ugc noopener">Author 2</a>');
    expect(html).not.toMatch(/<a [^>]*>Author 1<\/a>/);
  });
});
