/// <reference lib="dom" />
import { parseYoutubeUrl } from '@blog/contracts';
import { createRequire } from 'node:module';
import type TurndownService from 'turndown';

// Turndown and the DOM it parses with (1.5 MB of heap, ~18 ms to load) come with the first HTML
// an import converts, not with every start of the service. `require` keeps the call synchronous.
const require = createRequire(import.meta.url);
let Turndown: typeof TurndownService | undefined;

/** A picture, video or YouTube video the text placed, in order; `ref` is its `media:` reference. */
export interface PlacedMedia {
  ref: string;
  kind: 'image' | 'video' | 'youtube';
  url: string;
  alt?: string;
  caption?: string;
}

export interface ConvertedContent {
  markdown: string;
  media: PlacedMedia[];
  /** Shortcodes that were not understood and were dropped, by name. */
  droppedShortcodes: string[];
}

export interface ConvertOptions {
  /** Relative URLs (and Ghost's __GHOST_URL__) are resolved against it. */
  baseUrl?: string;
  /** WordPress attachments by id, for [gallery ids="…"]. */
  attachments?: ReadonlyMap<string, { url: string; alt?: string }>;
}

const BLOCK_START = /^\s*<(p|div|h[1-6]|ul|ol|li|blockquote|pre|table|figure|hr|iframe|video|!--|img|\/)/i;
const KNOWN_SHORTCODES = new Set(['caption', 'gallery', 'embed', 'youtube', 'video', 'audio']);
const IMAGE_FILE = /\.(jpe?g|png|gif|webp|avif|bmp|tiff?)(\?|#|$)/i;

const escapeAttribute = (value: string) =>
  value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function attributes(text: string): Record<string, string> {
  const found: Record<string, string> = {};
  for (const match of text.matchAll(/([a-zA-Z_-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"']+))/g))
    found[match[1]!.toLowerCase()] = match[2] ?? match[3] ?? match[4] ?? '';
  return found;
}

/**
 * `pattern` replaced only up to the end of the text's last `close` marker (found without regard
 * to case); after it, `rest` (or nothing) is replaced. An opener with no closer after it would
 * otherwise scan to the end of the text, once per opener: quadratic time on a hostile post.
 */
function replacePaired(
  html: string,
  close: string,
  pattern: RegExp,
  replacer: (...groups: string[]) => string,
  rest?: RegExp,
): string {
  const last = html.toLowerCase().lastIndexOf(close);
  const cut = last < 0 ? 0 : last + close.length;
  const tail = html.slice(cut);
  return html.slice(0, cut).replace(pattern, replacer) + (rest ? tail.replace(rest, replacer) : tail);
}

/**
 * WordPress's shortcodes turned into HTML the converter knows: [caption] into a figure,
 * [gallery ids] into its pictures, [embed]/[youtube]/[video] into a link or a video; any other
 * shortcode is dropped (its text kept) and named in `dropped`.
 */
function expandShortcodes(html: string, options: ConvertOptions, dropped: Set<string>): string {
  // A shortcode's attributes hold no bracket, so each opener's scan stops at the next one (linear).
  let out = replacePaired(
    html,
    '[/caption]',
    /\[caption([^\][]*)\]([\s\S]*?)\[\/caption\]/gi,
    (_all, _attrs: string, inner: string) => {
      const image = /<a[^>]*>\s*<img[^>]*>\s*<\/a>|<img[^>]*>/i.exec(inner)?.[0] ?? '';
      const caption = inner.replace(image, '').trim();
      return `<figure>${image}<figcaption>${caption}</figcaption></figure>`;
    },
  );
  out = out.replace(/\[gallery([^\][]*)\]/gi, (_all, attrs: string) => {
    const ids = (attributes(attrs).ids ?? '').split(',').map((id) => id.trim());
    return ids
      .map((id) => options.attachments?.get(id))
      .filter((a) => a !== undefined)
      .map((a) => `<p><img src="${escapeAttribute(a.url)}" alt="${escapeAttribute(a.alt ?? '')}"></p>`)
      .join('');
  });
  out = replacePaired(
    out,
    '[/embed]',
    /\[embed[^\][]*\]([\s\S]*?)\[\/embed\]/gi,
    (_all, url: string) => `\n\n${url!.trim()}\n\n`,
  );
  out = out.replace(/\[youtube[=\s]+([^\][\s]+)[^\][]*\]/gi, (_all, url: string) => `\n\n${url.trim()}\n\n`);
  out = replacePaired(
    out,
    '[/video]',
    /\[video([^\][]*)\](?:[\s\S]*?\[\/video\])?/gi,
    (_all, attrs: string) => {
      const found = attributes(attrs!);
      const src = found.src ?? found.mp4 ?? found.webm ?? found.m4v ?? found.mov;
      return src ? `<video src="${escapeAttribute(src)}"></video>` : '';
    },
    /\[video([^\][]*)\]/gi,
  );
  // Anything else that looks like a shortcode: its markers go, its inner text stays.
  return out.replace(
    /\[(\/?)([a-zA-Z][a-zA-Z0-9_-]{0,100})((?:\s[^\][]*)?)\]/g,
    (all, closing: string, name: string) => {
      const lower = name.toLowerCase();
      if (KNOWN_SHORTCODES.has(lower)) return '';
      // "[1]" or "[note]" inside prose is not a shortcode unless WordPress would treat it so:
      // only names followed by attributes, or closing tags, or known plugin names are dropped.
      if (!closing && !/\s/.test(all) && !/^[a-z_]+(-[a-z_]+)*$/.test(lower)) return all;
      dropped.add(lower);
      return '';
    },
  );
}

/** WordPress's wpautop, simplified: blank lines make paragraphs, single newlines line breaks. */
function autop(html: string): string {
  if (!/\n/.test(html)) return html;
  return html
    .split(/\n\s*\n/)
    .map((chunk) => chunk.trim())
    .filter(Boolean)
    .map((chunk) => (BLOCK_START.test(chunk) ? chunk : `<p>${chunk.replace(/\n/g, '<br>\n')}</p>`))
    .join('\n');
}

function resolve(url: string, baseUrl?: string): string {
  const fixed = url.replace(/__GHOST_URL__/g, baseUrl?.replace(/\/+$/, '') ?? '');
  try {
    return new URL(fixed, baseUrl || undefined).toString();
  } catch {
    return fixed;
  }
}

/**
 * Imported HTML (WordPress's content:encoded, Ghost's html) into the Markdown this blog
 * stores, with turndown. Pictures, videos and YouTube embeds become `![alt](media:REF)` where
 * they stood and are listed in `media` to be fetched; the blog's own renderer sanitises the
 * result like anything the owner writes.
 */
export function htmlToMarkdown(html: string, options: ConvertOptions = {}): ConvertedContent {
  const media: PlacedMedia[] = [];
  const dropped = new Set<string>();
  const place = (kind: PlacedMedia['kind'], url: string, alt?: string, caption?: string) => {
    const ref = `${kind[0]}${media.length + 1}`;
    media.push({ ref, kind, url, alt: alt?.trim() || undefined, caption: caption?.trim() || undefined });
    return `![${(alt ?? '').replace(/[[\]\\]/g, '')}](media:${ref})`;
  };
  const youtube = (url: string) => {
    const video = parseYoutubeUrl(url.replace(/^\/\//, 'https://'));
    return video ? place('youtube', `https://www.youtube.com/watch?v=${video.videoId}`) : null;
  };

  Turndown ??= require('turndown') as typeof TurndownService;
  const turndown = new Turndown({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    bulletListMarker: '-',
  });
  turndown.remove(['script', 'style', 'noscript']);
  // The blog's Markdown keeps a single line break as a break: no two-space endings needed.
  turndown.addRule('lineBreak', { filter: 'br', replacement: () => '\n' });
  const imageOf = (node: HTMLElement): { url: string; alt?: string } | null => {
    const img = node.nodeName === 'IMG' ? node : node.querySelector('img');
    if (!img) return null;
    const link = img.parentNode as HTMLElement | null;
    // A thumbnail linked to its full-size file: the file is the picture.
    const href = link?.nodeName === 'A' ? (link.getAttribute('href') ?? '') : '';
    const src = IMAGE_FILE.test(href) ? href : (img.getAttribute('src') ?? '');
    return src ? { url: resolve(src, options.baseUrl), alt: img.getAttribute('alt') ?? undefined } : null;
  };
  // Inside a figure, the figure places the picture (with its caption).
  const inFigure = (node: Node) => {
    for (let up = node.parentNode; up; up = up.parentNode) if (up.nodeName === 'FIGURE') return true;
    return false;
  };
  turndown.addRule('figure', {
    filter: 'figure',
    replacement: (_content, node) => {
      const figure = node as HTMLElement;
      const caption = figure.querySelector('figcaption')?.textContent ?? undefined;
      const iframe = figure.querySelector('iframe');
      if (iframe) return `\n\n${youtube(iframe.getAttribute('src') ?? '') ?? ''}\n\n`;
      const video = figure.querySelector('video');
      if (video) {
        const src = video.getAttribute('src') ?? video.querySelector('source')?.getAttribute('src') ?? '';
        return src ? `\n\n${place('video', resolve(src, options.baseUrl), undefined, caption)}\n\n` : '';
      }
      const image = imageOf(figure);
      return image ? `\n\n${place('image', image.url, image.alt, caption)}\n\n` : '';
    },
  });
  turndown.addRule('linkedImage', {
    filter: (node) =>
      node.nodeName === 'A' && node.childNodes.length === 1 && node.firstChild?.nodeName === 'IMG',
    replacement: (_content, node) => {
      const image = inFigure(node) ? null : imageOf(node as HTMLElement);
      return image ? place('image', image.url, image.alt) : '';
    },
  });
  turndown.addRule('image', {
    filter: 'img',
    replacement: (_content, node) => {
      const image = inFigure(node) ? null : imageOf(node as HTMLElement);
      return image ? place('image', image.url, image.alt) : '';
    },
  });
  turndown.addRule('iframe', {
    filter: 'iframe',
    replacement: (_content, node) => {
      const placed = youtube((node as HTMLElement).getAttribute('src') ?? '');
      return placed ? `\n\n${placed}\n\n` : '';
    },
  });
  turndown.addRule('video', {
    filter: 'video',
    replacement: (_content, node) => {
      const video = node as HTMLElement;
      const src = video.getAttribute('src') ?? video.querySelector('source')?.getAttribute('src') ?? '';
      return src ? `\n\n${place('video', resolve(src, options.baseUrl))}\n\n` : '';
    },
  });
  // A paragraph that is only a YouTube address (WordPress embeds those by itself).
  turndown.addRule('youtubeParagraph', {
    filter: (node) => {
      if (node.nodeName !== 'P') return false;
      const text = node.textContent?.trim() ?? '';
      const onlyLink = node.childNodes.length === 1 && node.firstChild?.nodeName === 'A';
      return (onlyLink || node.children.length === 0) && parseYoutubeUrl(text) !== null;
    },
    replacement: (_content, node) => `\n\n${youtube(node.textContent!.trim()) ?? ''}\n\n`,
  });
  turndown.addRule('links', {
    filter: (node) => node.nodeName === 'A' && Boolean(node.getAttribute('href')),
    replacement: (content, node) => {
      const href = resolve((node as HTMLElement).getAttribute('href')!, options.baseUrl);
      // Only web and mail links are kept; the renderer would refuse the others anyway.
      if (!/^(https?:|mailto:)/i.test(href)) return content;
      return content.trim() ? `[${content}](${href.replace(/[()]/g, (c) => encodeURIComponent(c))})` : '';
    },
  });

  const prepared = autop(expandShortcodes(html.replace(/\r\n?/g, '\n'), options, dropped));
  const markdown = turndown
    .turndown(prepared)
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return { markdown, media, droppedShortcodes: [...dropped].sort() };
}
