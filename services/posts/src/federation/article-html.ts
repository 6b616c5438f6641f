import sanitizeHtml from 'sanitize-html';
import { ALLOWED_TAGS } from '../content/markdown.js';

/** The attributes of the renderer's output that hold a URL (srcset: a list of them). */
const URL_ATTRIBUTES = ['href', 'src', 'poster'] as const;

/** `value` resolved on `base` (the post's page); a value that is no URL stays as it was. */
function absolute(value: string, base: string): string {
  try {
    return new URL(value, base).href;
  } catch {
    return value;
  }
}

/** "a.jpg 400w, b.jpg 800w" with each URL resolved on `base`. */
function absoluteSrcset(srcset: string, base: string): string {
  return srcset
    .split(',')
    .map((candidate) => {
      const [url, ...descriptor] = candidate.trim().split(/\s+/);
      return url ? [absolute(url, base), ...descriptor].join(' ') : '';
    })
    .filter(Boolean)
    .join(', ');
}

/**
 * A post's stored HTML (sanitised when it was saved, ContentService) as another server shows it:
 * every link, picture, video and poster absolute, resolved on the post's page `pageUrl` (so
 * `/uploads/…` lands on SITE_URL and `#heading` on the page). The allow-list of tags is the
 * renderer's own, a second layer; attributes are the stored ones (the save's sanitiser chose them).
 */
export function absoluteHtml(html: string, pageUrl: string): string {
  const rewrite: sanitizeHtml.Transformer = (tagName, attribs) => {
    const out: sanitizeHtml.Attributes = { ...attribs };
    for (const name of URL_ATTRIBUTES) if (out[name]) out[name] = absolute(out[name], pageUrl);
    if (out.srcset) out.srcset = absoluteSrcset(out.srcset, pageUrl);
    return { tagName, attribs: out };
  };
  return sanitizeHtml(html, {
    allowedTags: ALLOWED_TAGS,
    allowedAttributes: false,
    allowedSchemes: ['http', 'https', 'mailto'],
    allowedSchemesByTag: { iframe: ['https'] },
    allowProtocolRelative: false,
    disallowedTagsMode: 'escape',
    selfClosing: ['img', 'br', 'hr', 'input', 'source'],
    transformTags: { a: rewrite, img: rewrite, source: rewrite, video: rewrite },
  });
}
