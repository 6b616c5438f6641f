/// <reference lib="dom" />
import { createRequire } from 'node:module';
import { uploadsPath, type MediaVariant, type NewsletterPicture } from '@blog/contracts';
import sanitizeHtml from 'sanitize-html';
import type TurndownService from 'turndown';
import { ALLOWED_TAGS } from '../content/markdown.js';

// Turndown and its DOM load with the first e-mail made, not with every start of the service.
const require = createRequire(import.meta.url);
let Turndown: typeof TurndownService | undefined;

/** How wide a picture is drawn in the e-mail (the usual 600 px column). */
export const EMAIL_WIDTH = 600;
/** The variant looked for: twice the column, for sharp screens, where the pipeline made one. */
const WANTED_WIDTH = EMAIL_WIDTH * 2;

/** A ready media item of the post, as the e-mail needs it. */
export interface NewsletterMediaRow {
  type: 'image' | 'video' | 'youtube';
  storageKey: string | null;
  thumbnailKey: string | null;
  variants: MediaVariant[];
  width: number | null;
  height: number | null;
  alt: string | null;
  title: string | null;
  youtubeId: string | null;
}

const EMAIL_FORMATS = new Set(['jpeg', 'jpg', 'png']);
const EMAIL_FILE = /\.(jpe?g|png)$/i;

/**
 * An image item's picture for mail clients: the JPEG or PNG variant the pipeline made closest
 * above twice the column (else the widest), or the stored file when it is a JPEG or PNG; null
 * when there is none (a WebP or GIF original): the e-mail then links to the post instead.
 */
export function emailPicture(item: NewsletterMediaRow, origin: string): NewsletterPicture | null {
  const candidates = (item.variants ?? [])
    .filter((v) => EMAIL_FORMATS.has(v.format))
    .sort((a, b) => a.width - b.width);
  const chosen = candidates.find((v) => v.width >= WANTED_WIDTH) ?? candidates.at(-1);
  if (chosen)
    return {
      url: absolute(uploadsPath(chosen.key), origin),
      alt: item.alt ?? '',
      width: chosen.width,
      height: chosen.height,
    };
  if (item.storageKey && EMAIL_FILE.test(item.storageKey))
    return {
      url: absolute(uploadsPath(item.storageKey), origin),
      alt: item.alt ?? '',
      width: item.width,
      height: item.height,
    };
  return null;
}

const ENTITIES: Record<string, string> = { amp: '&', quot: '"', lt: '<', gt: '>', '#39': "'", '#x27': "'" };
const decode = (value: string) =>
  value.replace(/&(amp|quot|lt|gt|#39|#x27);/g, (_, name: string) => ENTITIES[name]!);
const escape = (value: string) =>
  value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The attributes of one tag as the sanitiser wrote them (`name="value"`, or a bare name). */
function attributesOf(text: string): Record<string, string> {
  const found: Record<string, string> = {};
  for (const match of text.matchAll(/([a-zA-Z-]+)(?:="([^"]*)")?/g))
    found[match[1]!.toLowerCase()] = decode(match[2] ?? '');
  return found;
}

function absolute(value: string, base: string): string {
  try {
    return new URL(value, base).href;
  } catch {
    return value;
  }
}

/** Drawn at most the column's width, the height kept in proportion. */
function sized(width: number | null, height: number | null): string {
  if (!width || !height) return '';
  const w = Math.min(width, EMAIL_WIDTH);
  return ` width="${w}" height="${Math.round((height * w) / width)}"`;
}

/** A picture that links to the post (a video's poster, a YouTube thumbnail). */
function linkedPicture(
  postUrl: string,
  src: string,
  alt: string,
  width: number | null,
  height: number | null,
) {
  return `<a href="${escape(postUrl)}"><img src="${escape(src)}" alt="${escape(alt)}"${sized(width, height)}></a>`;
}

const textLink = (postUrl: string, text: string) => `<a href="${escape(postUrl)}">${escape(text)}</a>`;

/** Every element an e-mail keeps: the renderer's, without players, picture sources and form inputs. */
const EMAIL_TAGS = ALLOWED_TAGS.filter(
  (tag) => !['picture', 'source', 'video', 'iframe', 'input'].includes(tag),
);

/**
 * A post's stored HTML (sanitised when it was saved) as its e-mail carries it: each picture of
 * the post as a JPEG or PNG variant (no WebP, AVIF or `srcset`), each video as its poster and
 * each YouTube video as its thumbnail, both linking to the post's page; no script, iframe,
 * video or form input; every link and picture absolute, resolved on the post's page. The post's
 * pictures and videos that its text does not place follow the text, in order, as on its page.
 */
export function newsletterHtml(
  html: string,
  media: NewsletterMediaRow[],
  postUrl: string,
  origin: string,
): string {
  const byPath = new Map<string, NewsletterMediaRow>();
  for (const item of media) {
    for (const key of [item.storageKey, item.thumbnailKey, ...(item.variants ?? []).map((v) => v.key)])
      if (key) byPath.set(uploadsPath(key), item);
  }
  // Items the text shows in place; the rest follow the text, in the post's order, as its page
  // shows them below it.
  const shown = new Set<NewsletterMediaRow>();
  const imageHtml = (item: NewsletterMediaRow, alt: string) => {
    const picture = emailPicture(item, origin);
    if (!picture) return textLink(postUrl, alt || 'Picture');
    return `<img src="${escape(picture.url)}" alt="${escape(alt)}"${sized(picture.width, picture.height)}>`;
  };
  const videoHtml = (item: NewsletterMediaRow | undefined, label: string) => {
    const poster = item?.thumbnailKey ?? null;
    if (!poster || !EMAIL_FILE.test(poster)) return textLink(postUrl, `▶ ${label}`);
    const frame = item!.variants.find((v) => v.format === 'poster');
    return linkedPicture(
      postUrl,
      absolute(uploadsPath(poster), origin),
      `▶ ${label}`,
      frame?.width ?? item!.width,
      frame?.height ?? item!.height,
    );
  };
  const youtubeHtml = (id: string | undefined, title: string) => {
    const label = `▶ ${title || 'YouTube video'}`;
    if (!id) return textLink(postUrl, label);
    return linkedPicture(postUrl, `https://i.ytimg.com/vi/${id}/hqdefault.jpg`, label, 480, 360);
  };
  let out = html.replace(/<\/?picture>|<source\b[^>]*>/g, '');
  out = out.replace(/<img\b([^>]*?)\/?>/g, (whole, attributes: string) => {
    const attribs = attributesOf(attributes);
    const item = byPath.get(attribs.src ?? '');
    if (!item) return whole;
    shown.add(item);
    return imageHtml(item, attribs.alt || item.alt || '');
  });
  out = out.replace(/<video\b([^>]*)>[\s\S]*?<\/video>/g, (_whole, attributes: string) => {
    const attribs = attributesOf(attributes);
    const item = byPath.get(attribs.src ?? '') ?? byPath.get(attribs.poster ?? '');
    if (item) shown.add(item);
    return videoHtml(item, attribs['aria-label'] || item?.alt || 'Video');
  });
  out = out.replace(/<iframe\b([^>]*)>[\s\S]*?<\/iframe>/g, (_whole, attributes: string) => {
    const attribs = attributesOf(attributes);
    const id = /\/embed\/([A-Za-z0-9_-]{1,32})/.exec(attribs.src ?? '')?.[1];
    for (const item of media) if (id && item.youtubeId === id) shown.add(item);
    return youtubeHtml(id, attribs.title ?? '');
  });
  for (const item of media) {
    if (shown.has(item)) continue;
    const label = item.title || item.alt || '';
    if (item.type === 'image') out += `<p>${imageHtml(item, item.alt ?? '')}</p>`;
    else if (item.type === 'video') out += `<p>${videoHtml(item, label || 'Video')}</p>`;
    else out += `<p>${youtubeHtml(item.youtubeId ?? undefined, label)}</p>`;
  }
  out = out.replace(/<input\b([^>]*?)\/?>/g, (_whole, attributes: string) =>
    'checked' in attributesOf(attributes) ? '☑' : '☐',
  );
  const rewrite: sanitizeHtml.Transformer = (tagName, attribs) => {
    const result: sanitizeHtml.Attributes = { ...attribs };
    for (const name of ['href', 'src'] as const)
      if (result[name]) result[name] = absolute(result[name], postUrl);
    return { tagName, attribs: result };
  };
  return sanitizeHtml(out, {
    allowedTags: EMAIL_TAGS,
    allowedAttributes: {
      a: ['href', 'rel', 'title'],
      img: ['src', 'alt', 'title', 'width', 'height'],
      h1: ['id'],
      h2: ['id'],
      h3: ['id'],
      h4: ['id'],
      h5: ['id'],
      h6: ['id'],
      ol: ['start'],
      '*': ['class'],
    },
    allowedSchemes: ['http', 'https', 'mailto'],
    allowedSchemesByTag: { img: ['http', 'https'] },
    allowProtocolRelative: false,
    disallowedTagsMode: 'discard',
    selfClosing: ['img', 'br', 'hr'],
    transformTags: { a: rewrite, img: rewrite },
  });
}

/**
 * The e-mail's plain-text part, from its HTML: paragraphs and headings on their own lines, list
 * items with a dash, a link as its text and its address in brackets, a picture as its alt text.
 */
export function newsletterText(html: string): string {
  Turndown ??= require('turndown') as typeof TurndownService;
  const turndown = new Turndown({ headingStyle: 'atx', bulletListMarker: '-', codeBlockStyle: 'fenced' });
  turndown.escape = (text: string) => text;
  turndown.addRule('plain-emphasis', {
    filter: ['strong', 'b', 'em', 'i', 'del', 's', 'code'],
    replacement: (content) => content,
  });
  turndown.addRule('picture', {
    filter: 'img',
    replacement: (_content, node) => {
      const alt = (node as HTMLElement).getAttribute('alt')?.trim();
      return alt ? `[${alt}]` : '';
    },
  });
  turndown.addRule('link', {
    filter: (node) => node.nodeName === 'A' && !!node.getAttribute('href'),
    replacement: (content, node) => {
      const href = (node as HTMLElement).getAttribute('href')!;
      const text = content.trim();
      if (!text || text === href || `mailto:${text}` === href) return href;
      return `${text} (${href})`;
    },
  });
  return turndown
    .turndown(html)
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
