import type { PostCommentsResult } from '@blog/contracts/comments';
import type { PostView } from '@blog/contracts/posts';
import type { SiteConfig } from '@blog/contracts/site';
import { resolvePath } from '@blog/contracts/urls';
import { data, redirect, type LoaderFunctionArgs, type ShouldRevalidateFunctionArgs } from 'react-router-dom';
import { ApiError, type ApiClient, type Page } from './api/client';
import { getPostComments } from './api/comments';
import { getPost, getPostBySlug, listPosts, type PostQuery } from './api/posts';
import { aboutFormsPart } from './features/about/aboutFormsPart';
import { carouselPart } from './features/posts/carouselPart';
import { activeQuery } from './lib/searchParams';
import { previewSource } from './lib/format';
import { carouselItems } from './lib/media';
import { parsePage } from './lib/pagination';
import type { SiteStore } from './site/siteStore';

/**
 * Each public route's data, loaded by its react-router loader: on the server for the first
 * page (the gateway renders it), in the browser for every navigation after that. The same
 * functions run on both sides; only the API client they are given differs.
 */
export interface LoaderDeps {
  api: ApiClient;
  site: SiteStore;
}

/** Page sizes (docs/product.md#limits-and-timings): home 15, category pages 30, search 15. */
export const HOME_PAGE_SIZE = 15;
export const CATEGORY_PAGE_SIZE = 30;
export const SEARCH_PAGE_SIZE = 15;

/** A list, or null when it could not be loaded (the page then shows its empty text, docs/product.md#error-texts). */
export type ListData = Page<PostView> | null;

export interface RootData {
  site: SiteConfig;
  /** The open search's results (`?q=`), on whatever page it was started. */
  search: { query: string; posts: ListData } | null;
}

export type TreeData =
  | { kind: 'list'; posts: ListData }
  | {
      kind: 'post';
      post: PostView | null;
      /** The post's approved comments; null when they could not be loaded (the page still shows the post). */
      comments?: PostCommentsResult | null;
    }
  | { kind: 'notFound' };

/** What a contact or subscribe form posted without JavaScript came to (the About page shows it). */
export interface FormAnswer {
  form: 'contact' | 'subscribe';
  ok: boolean;
  /** The fields as sent, kept in the form after a failure. */
  fields: Record<string, string>;
}

/** Answers a failed read carries: 503, so the server's page caches never keep it. */
const UNAVAILABLE = { status: 503 };

async function loadList(deps: LoaderDeps, query: PostQuery, request: Request, pageSize: number) {
  const page = parsePage(new URL(request.url).searchParams.get('page'));
  try {
    const posts = await listPosts(
      deps.api,
      // The public lists show what visitors see, also to a signed-in admin (drafts live in the dashboard).
      { ...query, status: 'published', page, limit: pageSize },
      request.signal,
    );
    // Cards show the start of each excerpt: the page's data carries no more of it.
    const items = posts.items.map((post) => ({ ...post, excerpt: previewSource(post.excerpt) }));
    return { posts: { ...posts, items }, failed: false };
  } catch (error) {
    if (request.signal.aborted) throw error;
    console.error('Loading posts failed', error);
    return { posts: null, failed: true };
  }
}

/** While a search is open the page under it is not shown: its own list is not asked for. */
const searching = (request: Request) => activeQuery(new URL(request.url).searchParams) !== null;

export function rootLoader(deps: LoaderDeps) {
  return async ({ request }: LoaderFunctionArgs) => {
    const site = await deps.site.load(request.signal);
    const query = activeQuery(new URL(request.url).searchParams);
    if (!query) return { site, search: null } satisfies RootData;
    const { posts, failed } = await loadList(deps, { search: query }, request, SEARCH_PAGE_SIZE);
    const root: RootData = { site, search: { query, posts } };
    return failed ? data(root, UNAVAILABLE) : root;
  };
}

/** The root's data changes only with the search (its query or its page), never with the path. */
export function rootShouldRevalidate({ currentUrl, nextUrl }: ShouldRevalidateFunctionArgs): boolean {
  const key = (url: URL) => {
    const query = activeQuery(url.searchParams);
    return query ? `${query}\n${url.searchParams.get('page') ?? ''}` : '';
  };
  return key(currentUrl) !== key(nextUrl);
}

export function homeLoader(deps: LoaderDeps) {
  return async ({ request }: LoaderFunctionArgs) => {
    if (searching(request)) return { posts: null };
    const { posts, failed } = await loadList(deps, {}, request, HOME_PAGE_SIZE);
    return failed ? data({ posts }, UNAVAILABLE) : { posts };
  };
}

/**
 * Every path under the category tree: a section's or sub-section's list, a post, or not
 * found (404). A post asked for under another section (it moved) answers 301 to its page.
 */
export function treeLoader(deps: LoaderDeps) {
  return async ({ request }: LoaderFunctionArgs) => {
    const site = await deps.site.load(request.signal);
    const { pathname } = new URL(request.url);
    const resolved = resolvePath(site, pathname);
    if (!resolved) return data({ kind: 'notFound' } satisfies TreeData, { status: 404 });
    if (resolved.kind !== 'post') {
      if (searching(request)) return { kind: 'list', posts: null } satisfies TreeData;
      const query =
        resolved.kind === 'section'
          ? { category: resolved.category.label }
          : {
              category: resolved.category.label,
              submenu1: resolved.subcategory.label,
              submenu2: resolved.entry?.label,
            };
      if (resolved.kind === 'subsection' && resolved.entry?.underConstruction)
        return { kind: 'list', posts: null } satisfies TreeData;
      const { posts, failed } = await loadList(deps, query, request, CATEGORY_PAGE_SIZE);
      const list: TreeData = { kind: 'list', posts };
      return failed ? data(list, UNAVAILABLE) : list;
    }
    let post: PostView;
    try {
      post = await getPostBySlug(deps.api, resolved.slug, request.signal);
    } catch (error) {
      if (request.signal.aborted) throw error;
      // No such post: 'No posts yet' with a link home (docs/product.md#screens, #error-texts), answered as a 404.
      if (error instanceof ApiError && error.status >= 400 && error.status < 500)
        return data({ kind: 'post', post: null } satisfies TreeData, { status: 404 });
      console.error('Loading posts failed', error);
      return data({ kind: 'post', post: null } satisfies TreeData, UNAVAILABLE);
    }
    if (post.url && post.url !== pathname) throw redirect(post.url + new URL(request.url).search, 301);
    const [comments] = await Promise.all([
      post.status === 'published' ? loadComments(deps, post.id, request.signal) : null,
      carouselItems(post.media).length > 0 ? carouselPart.load() : null,
    ]);
    return { kind: 'post', post, comments } satisfies TreeData;
  };
}

/** Comments are part of the post's page (readers without JavaScript see them); a failure leaves the post. */
async function loadComments(deps: LoaderDeps, postId: number, signal: AbortSignal) {
  try {
    return await getPostComments(deps.api, postId, signal);
  } catch (error) {
    if (signal.aborted) throw error;
    console.error('Loading comments failed', error);
    return null;
  }
}

/** About and /contact: their forms' code (they are the only pages with forms for readers). */
export async function aboutLoader() {
  await aboutFormsPart.load();
  return null;
}

/** /post/{id}: to the post's page; to / when it has no slug or category or the lookup fails (docs/product.md#screens). */
export function postIdLoader(deps: LoaderDeps) {
  return async ({ request, params }: LoaderFunctionArgs) => {
    let target = '/';
    try {
      const post = await getPost(deps.api, params.id ?? '', request.signal);
      if (post.slug && post.category && post.url) target = post.url;
    } catch (error) {
      if (request.signal.aborted) throw error;
    }
    return redirect(target, 302);
  };
}
