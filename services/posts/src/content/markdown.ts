import {
  EXCERPT_MAX,
  excerpt,
  MEDIA_REF_PATTERN,
  pictureSources,
  readingTime,
  YOUTUBE_EMBED_ORIGIN,
  type MediaItemView,
} from '@blog/contracts';
import MarkdownIt, { type Env, type Token } from 'markdown-it';
import sanitizeHtml from 'sanitize-html';

/**
 * The one Markdown renderer of the blog: CommonMark plus GitHub's tables, strikethrough,
 * task lists and autolinks, a single line break kept as a line break (so posts written as
 * plain text read as before), raw HTML shown as text, links only to http(s), mailto and
 * relative places, heading ids, and the post's own media placed with `![alt](media:ID)`.
 * Its output then goes through sanitize-html with an allow-list, so a flaw in one layer is
 * still caught by the other.
 */

export interface RenderedContent {
  /** Sanitised HTML: the only markup a page shows. */
  html: string;
  /** The content as plain text, no Markdown signs (search, digest, previews). */
  text: string;
  /** `text` by the excerpt rule (docs/product.md#limits-and-timings) at EXCERPT_MAX characters. */
  excerpt: string;
  words: number;
  readingMinutes: number;
}

export interface RenderOptions {
  /** Media the text may place, by item id (and by a new item's ref in the admin's preview). */
  media?: ReadonlyMap<string, MediaItemView>;
  /** The admin's preview: a reference to a media item not yet processed or saved shows a placeholder. */
  placeholders?: boolean;
}

export const MEDIA_SCHEME = 'media:';
/** How wide an inline picture is drawn: the post column. */
const INLINE_SIZES = '(max-width: 960px) 100vw, 928px';
/** Ids the page itself uses; a heading with one of these names gets a suffix. */
const RESERVED_IDS = new Set(['root', 'main-content', 'main', 'preloaded-data', 'contact-form']);

/** Control characters and white space a browser ignores inside a URL scheme ("java\tscript:"). */
// eslint-disable-next-line no-control-regex -- exactly the characters a browser drops from a URL
const URL_NOISE = /[\u0000-\u0020\u007f-\u009f]/g;
const SCHEME = /^([a-z][a-z0-9+.-]*):/i;

/** http, https, mailto and relative URLs; `media:` only for the post's own items. */
export function isAllowedUrl(url: string): boolean {
  const scheme = SCHEME.exec(url.replace(URL_NOISE, ''))?.[1]?.toLowerCase();
  return scheme === undefined || ['http', 'https', 'mailto', 'media'].includes(scheme);
}

const md = new MarkdownIt('default', { html: false, linkify: true, breaks: true, typographer: false });
// markdown-it has already decoded entities ("&#106;avascript:") when it asks.
md.validateLink = isAllowedUrl;
// GitHub's autolinks: URLs with a scheme, `www.` names and e-mail addresses. linkify-it would also
// link bare names ("readme.md" is a Moldovan domain); those are turned back into text below.
md.linkify.set({ fuzzyLink: true, fuzzyEmail: true });
const GFM_AUTOLINK = /^(https?:\/\/|www\.|mailto:)|@/i;
md.core.ruler.after('linkify', 'gfm_autolinks', (state) => {
  for (const block of state.tokens) {
    if (block.type !== 'inline' || !block.children) continue;
    const children: Token[] = [];
    for (let i = 0; i < block.children.length; i++) {
      const token = block.children[i]!;
      const text = block.children[i + 1];
      if (
        token.type === 'link_open' &&
        token.markup === 'linkify' &&
        text &&
        !GFM_AUTOLINK.test(text.content)
      ) {
        children.push(text);
        i += 2; // the text and link_close
        continue;
      }
      children.push(token);
    }
    block.children = children;
  }
});

const escape = (text: string) => md.utils.escapeHtml(text);
const attribute = (name: string, value: string | number | null | undefined) =>
  value === null || value === undefined || value === '' ? '' : ` ${name}="${escape(String(value))}"`;

/** Text of an inline token's children, as a reader sees it. */
function inlineText(children: Token[] | null): string {
  let text = '';
  for (const child of children ?? []) {
    if (child.type === 'text' || child.type === 'code_inline') text += child.content;
    else if (child.type === 'softbreak' || child.type === 'hardbreak') text += ' ';
  }
  return text;
}

function headingId(text: string, used: Map<string, number>): string {
  const base =
    text
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s-]/gu, '')
      .trim()
      .replace(/\s+/g, '-')
      .slice(0, 80) || 'section';
  const safe = RESERVED_IDS.has(base) ? `${base}-section` : base;
  const count = used.get(safe) ?? 0;
  used.set(safe, count + 1);
  return count === 0 ? safe : `${safe}-${count + 1}`;
}

const TASK = /^\[([ xX])\][ \u00a0]/;

/** Headings get ids; `[ ]` / `[x]` list items become checkboxes; table alignment becomes a class (the CSP allows no inline style). */
md.core.ruler.push('blog_blocks', (state) => {
  const used = new Map<string, number>();
  const tokens = state.tokens;
  tokens.forEach((token, i) => {
    if (token.type === 'heading_open') {
      token.attrSet('id', headingId(inlineText(tokens[i + 1]?.children ?? null), used));
    } else if (token.type === 'th_open' || token.type === 'td_open') {
      const align = /text-align:(left|center|right)/.exec(String(token.attrGet('style') ?? ''))?.[1];
      token.attrs = null;
      if (align) token.attrSet('class', `align-${align}`);
    } else if (token.type === 'inline' && tokens[i - 1]?.type === 'paragraph_open') {
      const item = tokens[i - 2];
      const first = token.children?.[0];
      if (item?.type === 'list_item_open' && first?.type === 'text' && TASK.test(first.content)) {
        const checked = first.content[1] !== ' ';
        first.content = first.content.replace(TASK, '');
        const box = new state.Token('html_inline', '', 0);
        // Read-only, and named for screen readers (a form control needs a label).
        box.content = `<input type="checkbox" disabled${checked ? ' checked aria-label="Done"' : ' aria-label="Not done"'}> `;
        token.children!.unshift(box);
        item.attrJoin('class', 'task-list-item');
        // The list that holds it, for styling without bullets.
        for (let j = i - 3; j >= 0; j--) {
          const open = tokens[j]!;
          if (
            (open.type === 'bullet_list_open' || open.type === 'ordered_list_open') &&
            open.level === item.level - 1
          ) {
            if (!open.attrGet('class')) open.attrSet('class', 'contains-task-list');
            break;
          }
        }
      }
      // A paragraph holding only one media reference becomes a figure, not a picture inside <p>.
      const media = (token.children ?? []).filter(
        (c) => !(c.type === 'softbreak' || (c.type === 'text' && !c.content.trim())),
      );
      const only = media.length === 1 ? media[0]! : null;
      if (only?.type === 'image' && String(only.attrGet('src') ?? '').startsWith(MEDIA_SCHEME)) {
        only.meta = { ...(only.meta ?? {}), block: true };
        tokens[i - 1]!.hidden = true;
        const close = tokens[i + 1];
        if (close?.type === 'paragraph_close') close.hidden = true;
      }
    }
  });
});

/** Absolute links leave the site: no opener for the other page. */
md.renderer.rules.link_open = (tokens, idx, options, _env, self) => {
  const token = tokens[idx]!;
  const href = String(token.attrGet('href') ?? '');
  if (href.toLowerCase().startsWith(MEDIA_SCHEME)) token.attrs = null;
  else if (/^(https?:)?\/\//i.test(href)) token.attrSet('rel', 'noopener');
  return self.renderToken(tokens, idx, options);
};

interface RenderEnv extends Env {
  media: ReadonlyMap<string, MediaItemView>;
  placeholders: boolean;
}

md.renderer.rules.image = (tokens, idx, _options, env?: Env) => {
  const { media, placeholders } = env as RenderEnv;
  const token = tokens[idx]!;
  const src = String(token.attrGet('src') ?? '');
  const written = inlineText(token.children).trim();
  const block = !!token.meta?.block;
  if (src.toLowerCase().startsWith(MEDIA_SCHEME)) {
    const id = src.slice(MEDIA_SCHEME.length);
    return mediaHtml(media.get(id), written, block, placeholders);
  }
  // Pictures from elsewhere are not loaded (no tracking pixels; the CSP would block them):
  // the reader gets a link. A picture on this site (a relative path) shows.
  if (/^[a-z][a-z0-9+.-]*:|^\/\//i.test(src)) {
    return `<a href="${escape(src)}" rel="noopener">${escape(written || src)}</a>`;
  }
  return `<img src="${escape(src)}" alt="${escape(written)}"${attribute('title', String(token.attrGet('title') ?? ''))} loading="lazy" decoding="async">`;
};

function wrap(inner: string, caption: string | null | undefined, block: boolean, kind: string): string {
  if (!block) return inner;
  const figcaption = caption ? `<figcaption>${escape(caption)}</figcaption>` : '';
  return `<figure class="post-media post-media-${kind}">${inner}${figcaption}</figure>`;
}

/** A media item as the carousel shows it: the picture with its variants, the video with its poster, the privacy-enhanced player. */
function mediaHtml(
  item: MediaItemView | undefined,
  written: string,
  block: boolean,
  placeholders: boolean,
): string {
  const ready = item && item.status === 'ready';
  if (!ready) {
    if (!placeholders) return '';
    const label = item ? `${item.name ?? 'Media'} (processing)` : 'Media added when the post is saved';
    return wrap(
      `<span class="media-placeholder">${escape(written || label)}</span>`,
      null,
      block,
      'placeholder',
    );
  }
  const alt = written || item.alt || '';
  if (item.type === 'youtube') {
    const title = item.title || 'YouTube video';
    return wrap(
      `<iframe src="${escape(item.embedUrl ?? '')}" title="${escape(title)}" loading="lazy" allow="accelerometer; encrypted-media; gyroscope; picture-in-picture" allowfullscreen referrerpolicy="strict-origin-when-cross-origin"></iframe>`,
      item.caption,
      block,
      'youtube',
    );
  }
  if (item.type === 'video') {
    return wrap(
      `<video controls preload="none" playsinline src="${escape(item.path ?? '')}"${attribute('poster', item.thumbnailPath)}${attribute('aria-label', alt)}${attribute('width', item.width)}${attribute('height', item.height)}></video>`,
      item.caption,
      block,
      'video',
    );
  }
  const sources = pictureSources(item);
  const source = (type: string, srcset: string) =>
    srcset ? `<source type="${type}" srcset="${escape(srcset)}" sizes="${INLINE_SIZES}">` : '';
  const img =
    `<img src="${escape(sources.fallbackSrc)}"` +
    attribute('srcset', sources.fallback) +
    (sources.fallback ? ` sizes="${INLINE_SIZES}"` : '') +
    attribute('width', sources.width) +
    attribute('height', sources.height) +
    ` alt="${escape(alt)}" loading="lazy" decoding="async">`;
  return wrap(
    `<picture>${source('image/avif', sources.avif)}${source('image/webp', sources.webp)}${img}</picture>`,
    item.caption,
    block,
    'image',
  );
}

/** Every element the renderer may produce; anything else is shown as text. */
export const ALLOWED_TAGS = [
  'p',
  'br',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'blockquote',
  'ul',
  'ol',
  'li',
  'strong',
  'em',
  's',
  'del',
  'code',
  'pre',
  'hr',
  'a',
  'table',
  'thead',
  'tbody',
  'tr',
  'th',
  'td',
  'input',
  'figure',
  'figcaption',
  'picture',
  'source',
  'img',
  'video',
  'iframe',
  'span',
];

const SANITIZE: sanitizeHtml.IOptions = {
  allowedTags: ALLOWED_TAGS,
  allowedAttributes: {
    a: ['href', 'rel', 'title'],
    h1: ['id'],
    h2: ['id'],
    h3: ['id'],
    h4: ['id'],
    h5: ['id'],
    h6: ['id'],
    ol: ['start'],
    img: ['src', 'srcset', 'sizes', 'alt', 'title', 'width', 'height', 'loading', 'decoding'],
    source: ['type', 'srcset', 'sizes'],
    video: ['src', 'poster', 'controls', 'preload', 'playsinline', 'width', 'height', 'aria-label'],
    iframe: ['src', 'title', 'loading', 'allow', 'allowfullscreen', 'referrerpolicy'],
    input: ['type', 'checked', 'disabled', 'aria-label'],
    '*': ['class'],
  },
  allowedClasses: {
    code: ['language-*'],
    li: ['task-list-item'],
    ul: ['contains-task-list'],
    ol: ['contains-task-list'],
    th: ['align-left', 'align-center', 'align-right'],
    td: ['align-left', 'align-center', 'align-right'],
    figure: ['post-media', 'post-media-*'],
    span: ['media-placeholder'],
  },
  allowedSchemes: ['http', 'https', 'mailto'],
  // Media and pictures come from this site only (relative paths); the player from YouTube's privacy host.
  allowedSchemesByTag: { img: [], source: [], video: [], iframe: ['https'] },
  allowedIframeHostnames: [new URL(YOUTUBE_EMBED_ORIGIN).hostname],
  allowIframeRelativeUrls: false,
  allowProtocolRelative: false,
  disallowedTagsMode: 'escape',
  selfClosing: ['img', 'br', 'hr', 'input', 'source'],
  exclusiveFilter: (frame) => frame.tag === 'input' && frame.attribs.type !== 'checkbox',
};

function plainText(tokens: Token[]): string {
  const blocks: string[] = [];
  let current = '';
  for (const token of tokens) {
    if (token.type === 'inline') current += (current ? ' ' : '') + inlineText(token.children);
    else if (token.type === 'fence' || token.type === 'code_block')
      current += (current ? ' ' : '') + token.content;
    else if (token.nesting === -1 && token.block && current) {
      blocks.push(current.trim());
      current = '';
    }
  }
  if (current.trim()) blocks.push(current.trim());
  return blocks.filter(Boolean).join('\n');
}

export function renderMarkdown(markdown: string, options: RenderOptions = {}): RenderedContent {
  const env: RenderEnv = { media: options.media ?? new Map(), placeholders: !!options.placeholders };
  const tokens = md.parse(markdown, env);
  const html = sanitizeHtml(md.renderer.render(tokens, md.options, env), SANITIZE);
  const text = plainText(tokens);
  const { words, minutes } = readingTime(text);
  return { html, text, excerpt: excerpt(text, EXCERPT_MAX), words, readingMinutes: minutes };
}

/** An image reference's target, `](media:REF`, with the ref captured (the contracts' ref rule). */
const MEDIA_REFERENCE = new RegExp(
  String.raw`\]\(\s*<?media:(${MEDIA_REF_PATTERN.source.slice(1, -1)})`,
  'g',
);

/** `media:REF` of new items → `media:ID` once they have ids (only in image references). */
export function replaceMediaRefs(markdown: string, ids: ReadonlyMap<string, string>): string {
  if (ids.size === 0) return markdown;
  return markdown.replace(MEDIA_REFERENCE, (whole, ref: string) => {
    const id = ids.get(ref);
    return id ? whole.replace(`media:${ref}`, `media:${id}`) : whole;
  });
}
