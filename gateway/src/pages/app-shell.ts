import {
  escapeHtml,
  type PageMeta,
  type PreloadedData,
  type SiteConfig,
  PRELOADED_ELEMENT_ID,
} from '@blog/contracts';

const TITLE = /<title>[\s\S]*?<\/title>/i;
const DESCRIPTION = /<meta\s+name=["']description["'][^>]*>/i;
const HEAD_END = /<\/head>/i;
const ROOT = '<div id="root"></div>';

/** The built index.html, checked once: the parts the tags replace must be there. */
export class AppShell {
  constructor(private readonly html: string) {
    if (!TITLE.test(html) || !HEAD_END.test(html))
      throw new Error('The app shell (index.html) needs a <title> and a </head>');
  }

  /** The shell as-is (the site config could not be read). */
  get plain(): string {
    return this.html;
  }

  /**
   * The shell with the page's title and description, and its canonical link, Open Graph and
   * Twitter card tags, for search engines and link previews (which do not run the app); the
   * loaders' data for the app's first render; and the page's rendered markup, if any.
   */
  fill(
    meta: PageMeta,
    site: SiteConfig,
    preloaded: PreloadedData,
    markup = '',
    /** A visible post's ActivityPub Article, linked for fediverse clients. */
    articleUrl?: string,
  ): string {
    const siteName = site.title;
    const attr = (name: string, value: string, key = 'property') =>
      `<meta ${key}="${name}" content="${escapeHtml(value)}" />`;
    const tags = [
      `<link rel="canonical" href="${escapeHtml(meta.url)}" />`,
      meta.noindex ? attr('robots', 'noindex', 'name') : '',
      attr('og:site_name', siteName),
      attr('og:type', meta.type),
      attr('og:title', meta.name),
      attr('og:description', meta.description),
      attr('og:url', meta.url),
      meta.image ? attr('og:image', meta.image) : '',
      meta.image && meta.imageAlt ? attr('og:image:alt', meta.imageAlt) : '',
      meta.publishedTime ? attr('article:published_time', meta.publishedTime) : '',
      meta.modifiedTime ? attr('article:modified_time', meta.modifiedTime) : '',
      articleUrl
        ? `<link rel="alternate" type="application/activity+json" href="${escapeHtml(articleUrl)}" />`
        : '',
      attr('twitter:card', meta.image ? 'summary_large_image' : 'summary', 'name'),
      attr('twitter:title', meta.name, 'name'),
      attr('twitter:description', meta.description, 'name'),
      meta.image ? attr('twitter:image', meta.image, 'name') : '',
      meta.image && meta.imageAlt ? attr('twitter:image:alt', meta.imageAlt, 'name') : '',
    ].filter(Boolean);
    const description = attr('description', meta.description, 'name');
    // Functions as replacements: a `$` in a title must not be read as a pattern.
    let html = this.html.replace(TITLE, () => `<title>${escapeHtml(meta.title)}</title>`);
    html = DESCRIPTION.test(html)
      ? html.replace(DESCRIPTION, () => description)
      : html.replace(HEAD_END, () => `${description}\n</head>`);
    // The loaders' data, so the app hydrates (or first paints) without an API round trip. JSON
    // in a non-executable script element (the CSP allows no inline script); `<` escaped so no
    // text can close the element.
    const data = JSON.stringify(preloaded).replace(/</g, '\\u003c');
    tags.push(`<script type="application/json" id="${PRELOADED_ELEMENT_ID}">${data}</script>`);
    html = html.replace(HEAD_END, () => `${tags.join('\n    ')}\n  </head>`);
    if (!markup) return html;
    if (!html.includes(ROOT))
      throw new Error('The app shell (index.html) needs an empty <div id="root"></div>');
    return html.replace(ROOT, () => `<div id="root">${markup}</div>`);
  }
}
