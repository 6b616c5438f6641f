import { Injectable } from '@nestjs/common';
import type { MediaItemView, PostPreview, PostPreviewRequest } from '@blog/contracts';
import type { EntityManager } from 'typeorm';
import type { MediaItem } from '../posts/media-item.entity.js';
import type { Post } from '../posts/post.entity.js';
import { PostsRepository } from '../posts/posts.repository.js';
import { toMediaView } from '../posts/post-view.js';
import { MEDIA_SCHEME, renderMarkdown, replaceMediaRefs } from './markdown.js';

/** What a save stores besides the Markdown source. */
export interface StoredContent {
  content: string;
  contentHtml: string;
  contentText: string;
  excerpt: string;
  readingMinutes: number;
}

function mediaById(items: MediaItem[]): Map<string, MediaItemView> {
  return new Map(items.map((item, index) => [item.id, toMediaView(item, index)]));
}

/**
 * Content rendering, once per save: the post's text with its own media placed in it. Reads
 * never render. The stored HTML shows only processed media, so it is rendered again when an
 * item it places finishes processing.
 */
@Injectable()
export class ContentService {
  constructor(private readonly posts: PostsRepository) {}

  /**
   * The stored fields for a post's text and media. `refs` maps new items' references in the
   * text (`media:REF`) to their ids, which replace them in the stored source.
   */
  render(markdown: string, media: MediaItem[], refs: ReadonlyMap<string, string> = new Map()): StoredContent {
    const content = replaceMediaRefs(markdown, refs);
    const rendered = renderMarkdown(content, { media: mediaById(media) });
    return {
      content,
      contentHtml: rendered.html,
      contentText: rendered.text,
      excerpt: rendered.excerpt,
      readingMinutes: rendered.readingMinutes,
    };
  }

  /** The admin's Preview: the HTML visitors would get, with placeholders for media not processed or not saved yet. */
  async preview({ content, postId }: PostPreviewRequest): Promise<PostPreview> {
    const media = postId ? await this.posts.mediaOf(postId) : [];
    const rendered = renderMarkdown(content, { media: mediaById(media), placeholders: true });
    return {
      html: rendered.html,
      excerpt: rendered.excerpt,
      words: rendered.words,
      readingMinutes: rendered.readingMinutes,
    };
  }

  /**
   * After `item` changed (processed, failed): the post's HTML again, when its text places that
   * item. The caller holds `post`'s row lock (taken before the item's, as every write does).
   */
  async refreshFor(
    manager: EntityManager,
    post: Pick<Post, 'id' | 'content'>,
    item: MediaItem,
  ): Promise<void> {
    if (!post.content.includes(`${MEDIA_SCHEME}${item.id}`)) return;
    const media = await this.posts.mediaOf(post.id, manager);
    const rendered = renderMarkdown(post.content, { media: mediaById(media) });
    await this.posts.saveContentHtml(manager, post.id, rendered.html);
  }
}
