import { POST_CONTENT_MAX, type ImportOptions, type SiteConfig } from '@blog/contracts';
import { placeOf } from './category-map.js';
import { htmlToMarkdown } from './html-to-markdown.js';
import { describeBytes, IMPORT_LIMITS } from './import-limits.js';
import type { MediaFetcher } from './media-fetcher.js';
import type { MediaToBring, PostToWrite } from './post-writer.js';
import type { SourcePost } from './source-post.js';

/**
 * A WordPress or Ghost post (as their readers give it) mapped for this blog: its HTML converted
 * to Markdown, its place from the category map, its featured image and the text's media to be
 * fetched. `warn` hears what the conversion dropped.
 */
export function mapSourcePost(
  post: SourcePost,
  options: ImportOptions,
  site: SiteConfig,
  fetcher: MediaFetcher,
  warn: (message: string) => void,
): PostToWrite {
  const { leaf, unmapped } = placeOf(site, post, options);
  // Refused before the conversion, which would hold the event loop on a huge text.
  if (post.html.length > IMPORT_LIMITS.postHtml)
    throw new Error(
      `its HTML is larger than ${describeBytes(IMPORT_LIMITS.postHtml)} (a post holds at most ${POST_CONTENT_MAX.toLocaleString('en-US')} characters)`,
    );
  const converted = htmlToMarkdown(post.html, { baseUrl: options.sourceUrl || undefined });
  if (converted.droppedShortcodes.length)
    warn(`shortcodes dropped: ${converted.droppedShortcodes.map((s) => `[${s}]`).join(', ')}`);
  // The featured image is the main image (first); the text's media follow in their order.
  const wanted = [
    ...(post.featuredImage
      ? [
          {
            ref: 'featured',
            kind: 'image' as const,
            url: post.featuredImage.url,
            alt: post.featuredImage.alt,
            caption: post.featuredImage.caption,
          },
        ]
      : []),
    ...converted.media,
  ];
  let content = converted.markdown;
  // The same file twice (the featured image also in the text): one item, both refs to it.
  const seen = new Map<string, string>();
  const media: MediaToBring[] = [];
  for (const item of wanted) {
    const again = item.kind === 'youtube' ? undefined : seen.get(item.url);
    if (again) {
      content = content.replaceAll(`(media:${item.ref})`, `(media:${again})`);
      continue;
    }
    seen.set(item.url, item.ref);
    media.push({
      ...item,
      identity: item.url,
      fetch: item.kind === 'youtube' ? undefined : (key) => fetcher.fetch(item.url, key),
    });
  }
  return {
    sourceId: post.sourceId,
    formerSourceIds: post.formerSourceIds,
    title: post.title,
    slug: post.slug,
    content,
    status: post.status,
    date: post.date,
    leaf,
    tags: [...new Set([...post.tags, ...unmapped])],
    oldPaths: post.oldPaths,
    media,
    comments: post.comments,
  };
}
