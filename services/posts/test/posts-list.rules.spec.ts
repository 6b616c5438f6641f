import { postListQuerySchema, type PostListQuery } from '@blog/contracts';
import type { IdempotencyLedger, ObjectStorage } from '@blog/server-kit';
import type { ContentService } from '../src/content/content.service.js';
import type { Post } from '../src/posts/post.entity.js';
import type { PostFilter, PostsRepository } from '../src/posts/posts.repository.js';
import { PostsService } from '../src/posts/posts.service.js';
import type { SiteSettings } from '../src/site/site-settings.js';
import type { PostVisibilityFilter } from '../src/posts/visibility.js';
import { garageSite } from './support/garage-site.js';

/**
 * PostsService's read rules against a stand-in repository that records what it is asked: the
 * URL's place resolved to the tree's labels, who sees what, and a draft that is not found.
 */
describe('posts list rules', () => {
  const site = garageSite();
  let asked: { filter: PostFilter; visibility: PostVisibilityFilter }[];
  let found: Partial<Post> | null;
  let posts: PostsService;
  const query = (raw: Record<string, unknown>): PostListQuery => postListQuerySchema.parse(raw);

  beforeEach(() => {
    asked = [];
    found = null;
    const store = {
      page: async (filter: PostFilter, visibility: PostVisibilityFilter) => {
        asked.push({ filter, visibility });
        return { posts: [], total: 0 };
      },
      findOne: async () => found,
    } as unknown as PostsRepository;
    const settings = { current: () => site } as unknown as SiteSettings;
    posts = new PostsService(
      settings,
      {} as ObjectStorage,
      {} as ContentService,
      {} as IdempotencyLedger,
      store,
    );
  });

  it('resolves the place by segment or label to the stored labels; tags lower case; an end date takes its whole day', async () => {
    await posts.list(
      query({
        category: 'garage',
        submenu1: 'AUTOMOBILES',
        submenu2: 'car-one',
        tag: 'Rust',
        to: '2024-05-01',
      }),
    );
    expect(asked).toEqual([
      {
        filter: {
          category: 'Garage',
          submenu1: 'Automobiles',
          submenu2: 'Car One',
          tag: 'rust',
          to: new Date('2024-05-02T00:00:00.000Z'),
        },
        visibility: 'visible',
      },
    ]);
  });

  it('a place the tree does not have lists nothing, without a query', async () => {
    expect(await posts.list(query({ category: 'garage', submenu1: 'boats' }))).toEqual({
      items: [],
      total: 0,
    });
    expect(await posts.list(query({ category: 'kitchen' }))).toEqual({ items: [], total: 0 });
    expect(asked).toEqual([]);
  });

  it('a visitor sees visible posts whatever status they ask for; an admin gets the status asked', async () => {
    await posts.list(query({ status: 'draft' }));
    await posts.list(query({ status: 'draft' }), { includeUnpublished: true });
    expect(asked.map((a) => a.visibility)).toEqual(['visible', 'draft']);
  });

  it('a draft or a post scheduled for later is not found for a visitor', async () => {
    const notFound = (promise: Promise<unknown>) =>
      promise.then(
        () => null,
        (error: { body: { status: number } }) => error.body.status,
      );
    found = { id: 1, status: 'draft', createdAt: new Date('2020-01-01') };
    expect(await notFound(posts.get(1))).toBe(404);
    found = { id: 1, status: 'published', createdAt: new Date(Date.now() + 86_400_000) };
    expect(await notFound(posts.getBySlug('later'))).toBe(404);
    found = null;
    expect(await notFound(posts.get(2, { includeUnpublished: true }))).toBe(404);
  });
});
