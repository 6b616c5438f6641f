import { z } from 'zod';
import type { MediaStatus, MediaType } from './media.js';
import type { VariantView } from './media-jobs.js';
import type { IdempotencyRequest } from './idempotency.js';

export const POST_TITLE_MAX = 200;
export const POST_CONTENT_MAX = 200_000;
export const TAGS_MAX = 30;
export const TAG_MAX = 50;
export const SLUG_MAX = 80;
export const POSTS_PAGE_MAX = 100;
export const POSTS_PAGE_DEFAULT = 30;
export const SEARCH_QUERY_MAX = 200;

export const PostErrors = {
  titleRequired: 'Title is required',
  notFound: 'Post not found',
  mediaNotFound: 'Media item not found',
  mediaNotFailed: 'Only a failed media item can be retried',
} as const;

/**
 * What a post's author chose: visible (`published`) or the admin's alone (`draft`). A
 * published post dated ahead is `scheduled` until that minute: the queries decide, so nothing
 * has to wake up at publish time.
 */
export const POST_STATUSES = ['published', 'draft'] as const;
export type PostStatus = (typeof POST_STATUSES)[number];
/** What the post view reports: the stored status, with `scheduled` for a published post dated ahead. */
export type PostVisibility = PostStatus | 'scheduled';
export const POST_STATUS_FILTERS = ['all', 'published', 'scheduled', 'draft'] as const;
export type PostStatusFilter = (typeof POST_STATUS_FILTERS)[number];

export const MEDIA_ALT_MAX = 300;
export const MEDIA_CAPTION_MAX = 500;
/** A new item's client reference (`media:REF` in the text before the item has an id). */
export const MEDIA_REF_PATTERN = /^[A-Za-z0-9_-]{1,40}$/;

/** Lowercase ASCII words joined by hyphens; accents dropped ("Crème brûlée!" → "creme-brulee"). */
export function slugify(text: string): string {
  const slug = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[()'’]/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, SLUG_MAX)
    .replace(/-+$/g, '');
  return slug || 'post';
}

/** Tags arrive as an array, a comma-separated string or a JSON string (docs/product.md#what-a-post-holds); stored as an array. */
export function parseTags(input: unknown): string[] {
  let items: unknown[] = [];
  if (Array.isArray(input)) items = input;
  else if (typeof input === 'string') {
    const text = input.trim();
    if (text.startsWith('[')) {
      try {
        const parsed: unknown = JSON.parse(text);
        items = Array.isArray(parsed) ? parsed : [text];
      } catch {
        items = text.split(',');
      }
    } else items = text.split(',');
  }
  const seen = new Set<string>();
  const tags: string[] = [];
  for (const item of items) {
    if (typeof item !== 'string' && typeof item !== 'number') continue;
    const tag = String(item).trim().replace(/^#/, '').slice(0, TAG_MAX);
    if (!tag || seen.has(tag.toLowerCase())) continue;
    seen.add(tag.toLowerCase());
    tags.push(tag);
  }
  return tags.slice(0, TAGS_MAX);
}

export interface ImageItem {
  id: string;
  path: string;
  order: number;
  name: string | null;
  cropX: number | null;
  cropY: number | null;
  cropScale: number | null;
  croppedPreviewPath: string | null;
  width: number | null;
  height: number | null;
  status: MediaStatus;
  /** srcset entries (WebP, AVIF and the original's format at a few widths), once processed. */
  variants: VariantView[];
  alt: string | null;
  caption: string | null;
}

export interface VideoItem {
  id: string;
  path: string;
  name: string | null;
  order: number;
  thumbnailPath: string | null;
  status: MediaStatus;
}

export interface YoutubeItem {
  id: string;
  url: string;
  title: string;
  embedUrl: string;
  thumbnailUrl: string;
  isShorts: boolean;
  order: number;
}

export interface MainMedia {
  type: MediaType;
  path?: string;
  thumbnailPath?: string | null;
  url?: string;
  thumbnailUrl?: string;
  embedUrl?: string;
  /** Images and videos: the author's alt text (share tags' og:image:alt). */
  alt?: string | null;
}

/** One item of the post's ordered media list (the unified form the admin edits). */
export interface MediaItemView {
  id: string;
  type: MediaType;
  order: number;
  status: MediaStatus;
  path?: string;
  name?: string | null;
  url?: string;
  title?: string;
  embedUrl?: string;
  thumbnailUrl?: string;
  isShorts?: boolean;
  thumbnailPath?: string | null;
  cropX?: number | null;
  cropY?: number | null;
  cropScale?: number | null;
  croppedPreviewPath?: string | null;
  width?: number | null;
  height?: number | null;
  /** Videos: seconds, once processed. */
  duration?: number | null;
  variants?: VariantView[];
  error?: string | null;
  /** Images and videos: the text a screen reader says, and the line shown under the picture. */
  alt?: string | null;
  caption?: string | null;
}

export interface PostView {
  id: number;
  title: string;
  /**
   * The Markdown source, as the author wrote it: on single posts and in the admin's lists (the
   * edit form); visitors' lists leave it out, their cards show the excerpt.
   */
  content?: string;
  /**
   * The content rendered on save and sanitised: the only HTML a page shows. On a single post,
   * and in lists that ask for it (the feed); other lists leave it out: cards show the excerpt.
   */
  contentHtml?: string;
  /** The content as plain text, at most EXCERPT_MAX characters (previews, share descriptions). */
  excerpt: string;
  readingMinutes: number;
  status: PostVisibility;
  slug: string;
  category: string;
  submenu: string;
  submenu1: string;
  submenu2: string | null;
  tags: string[];
  created_at: string;
  updated_at: string;
  /** The post's page path, built by the shared URL builder. */
  url: string | null;
  images: ImageItem[];
  videos: VideoItem[];
  youtubeVideos: YoutubeItem[];
  mainMedia: MainMedia | null;
  media: MediaItemView[];
  /** True when every uploaded item finished processing. */
  mediaReady: boolean;
  /** The admin's reads only: the post is to be sent to the each-post subscribers when published. */
  sendByEmail?: boolean;
}

const optionalText = z
  .string()
  .trim()
  .max(100)
  .optional()
  .transform((v) => (v ? v : undefined));
const isoDate = z
  .string()
  .trim()
  .optional()
  .refine((v) => !v || !Number.isNaN(Date.parse(v)), 'must be a date')
  .transform((v) => (v ? new Date(v).toISOString() : undefined));
/** A whole number from a query string, 1..max, with the field named in every error. */
export const pageParam = (fallback: number, max: number, field: string) =>
  z.coerce
    .number({ error: `${field} must be a number` })
    .int(`${field} must be a whole number`)
    .min(1, `${field} must be at least 1`)
    .max(max, `${field} must be at most ${max}`)
    .default(fallback);

/** GET /api/posts query: every filter runs in the database. */
export const postListQuerySchema = z.object({
  category: optionalText,
  submenu1: optionalText,
  submenu2: optionalText,
  tag: optionalText,
  from: isoDate,
  to: isoDate,
  search: z
    .string()
    .max(SEARCH_QUERY_MAX, `search must be at most ${SEARCH_QUERY_MAX} characters`)
    .optional(),
  /** Admins only: a visitor's answer never holds a draft or a scheduled post, whatever this says. */
  status: z
    .enum(POST_STATUS_FILTERS, { error: `status must be one of ${POST_STATUS_FILTERS.join(', ')}` })
    .default('all'),
  page: pageParam(1, 100_000, 'page'),
  limit: pageParam(POSTS_PAGE_DEFAULT, POSTS_PAGE_MAX, 'limit'),
});
export type PostListQuery = z.infer<typeof postListQuerySchema>;

export interface PostListResult {
  items: PostView[];
  total: number;
}

/** The most post URLs one posts.urls call returns (the sitemap walks the posts in such chunks). */
export const POST_URLS_CHUNK_MAX = 5000;

/** posts.urls: after skipping `offset` posts with an id above `afterId`, the next `limit` in id order. */
export const postUrlsQuerySchema = z.object({
  afterId: z.number().int().min(0).default(0),
  offset: z.number().int().min(0).default(0),
  limit: z.number().int().min(0).max(POST_URLS_CHUNK_MAX),
  /** Also count every post (the sitemap decides on one file or an index). */
  count: z.boolean().default(false),
});
export type PostUrlsQuery = z.input<typeof postUrlsQuerySchema>;

export interface PostUrlsResult {
  /** Page paths; null for a post outside the tree (it has no page of its own). */
  items: { url: string | null; updatedAt: string }[];
  /** The last id this chunk covered: the next chunk's `afterId`; null when there were no more posts. */
  lastId: number | null;
  total?: number;
}

/** A file the gateway already streamed to storage, handed to the posts service with the form. */
export interface UploadedFile {
  key: string;
  type: 'image' | 'video';
  mimeType: string;
  name: string;
  size: number;
}

/** The multipart form of docs/api.md: text fields as sent, plus the stored files in upload order. */
export interface PostWriteCommand {
  fields: Record<string, string>;
  files: UploadedFile[];
  /** Sent with the client's Idempotency-Key: the service then answers an IdempotentAnswer. */
  idempotency?: IdempotencyRequest;
}

export interface PostUpdateCommand extends PostWriteCommand {
  id: number;
}

export interface PostReadOptions {
  /** Admins see every media item with its status; visitors only ready ones. */
  includeAllMedia?: boolean;
  /** Admins see drafts and scheduled posts; visitors only what is published by now. */
  includeUnpublished?: boolean;
  /** Lists: each post's contentHtml too (single posts always have it). */
  includeHtml?: boolean;
  /** Lists: each post's Markdown `content` too (the admin's edit form; single posts always have it). */
  includeSource?: boolean;
}

/** What an admin's read may see: everything. A visitor's: published posts dated by now, ready media. */
export function readOptionsFor(isAdmin: boolean): PostReadOptions {
  return { includeAllMedia: isAdmin, includeUnpublished: isAdmin, includeSource: isAdmin };
}

/** POST /api/posts/preview (admin): the server's renderer on unsaved text. */
export const postPreviewSchema = z.object({
  content: z
    .string({ error: 'content is required' })
    .max(POST_CONTENT_MAX, `content must be at most ${POST_CONTENT_MAX} characters`),
  /** The post being edited: its media render in place; other references show as placeholders. */
  postId: z.number().int().positive().optional(),
});
export type PostPreviewRequest = z.infer<typeof postPreviewSchema>;

export interface PostPreview {
  html: string;
  excerpt: string;
  words: number;
  readingMinutes: number;
}

/** Longest plain-text excerpt a post view carries (cards cut it to 200, the admin list to 100). */
export const EXCERPT_MAX = 300;

/** Words per minute for reading time (the middle of the usual 200-260 for reading on a screen). */
export const WORDS_PER_MINUTE = 230;

/**
 * Words as a reader counts them (runs holding a letter or digit, so Markdown signs do not
 * count) and the minutes they take: the server's stored reading time and the editor's count.
 */
export function readingTime(text: string): { words: number; minutes: number } {
  const words = text.split(/\s+/).filter((word) => /[\p{L}\p{N}]/u.test(word)).length;
  return { words, minutes: words === 0 ? 0 : Math.max(1, Math.ceil(words / WORDS_PER_MINUTE)) };
}
