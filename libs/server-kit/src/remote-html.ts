// Loaded on its own (`@blog/server-kit/remote-html`): only the services that take remote HTML pay for sanitize-html.
import sanitizeHtml from 'sanitize-html';

/**
 * What HTML from anyone but the owner may hold (a comment, a fediverse reply, a post in the
 * Reader): text formatting and links, nothing that runs or loads. One allow-list for them all.
 */
const REMOTE_TAGS = ['p', 'br', 'a', 'span', 'strong', 'em', 'code', 'pre', 'blockquote', 'ul', 'ol', 'li'];
const REL = 'nofollow ugc noopener';

export const REMOTE_HTML_POLICY: sanitizeHtml.IOptions = {
  allowedTags: REMOTE_TAGS,
  allowedAttributes: { a: ['href', 'rel'] },
  allowedSchemes: ['http', 'https'],
  allowedSchemesAppliedToAttributes: ['href'],
  allowProtocolRelative: false,
  // Every link is the writer's: search engines and the opened page get no credit or handle.
  transformTags: {
    a: (_tag, attribs) => {
      const kept: sanitizeHtml.Attributes = attribs.href === undefined ? {} : { href: attribs.href };
      return { tagName: 'a', attribs: { ...kept, rel: REL } };
    },
  },
  // script, style, textarea…: their text goes with them (sanitize-html's nonTextTags).
  disallowedTagsMode: 'discard',
};

/** Remote HTML (a Note's `content`, an imported comment) through the strict allow-list. */
export function sanitiseRemoteHtml(html: string): string {
  return sanitizeHtml(html, REMOTE_HTML_POLICY).trim();
}

/** The text of remote HTML, for a notification's one-line extract. */
export function remoteHtmlText(html: string, max: number): string {
  const text = sanitizeHtml(html.replace(/<\/(p|li|blockquote)>|<br\s*\/?>/gi, ' '), {
    allowedTags: [],
    allowedAttributes: {},
    disallowedTagsMode: 'discard',
  })
    .replace(/&nbsp;/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/\s+/g, ' ')
    .trim();
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
