import { escapeHtml } from '@blog/contracts';
import sanitizeHtml from 'sanitize-html';

/** What a comment may hold, whoever wrote it: text formatting and links, nothing that runs or loads. */
const COMMENT_TAGS = ['p', 'br', 'a', 'span', 'strong', 'em', 'code', 'pre', 'blockquote', 'ul', 'ol', 'li'];
const REL = 'nofollow ugc noopener';

const STRICT: sanitizeHtml.IOptions = {
  allowedTags: COMMENT_TAGS,
  allowedAttributes: { a: ['href', 'rel'] },
  allowedSchemes: ['http', 'https'],
  allowedSchemesAppliedToAttributes: ['href'],
  allowProtocolRelative: false,
  // Every link is the commenter's: search engines and the opened page get no credit or handle.
  transformTags: {
    a: (_tag, attribs) => {
      const kept: sanitizeHtml.Attributes = attribs.href === undefined ? {} : { href: attribs.href };
      return { tagName: 'a', attribs: { ...kept, rel: REL } };
    },
  },
  // script, style, textarea…: their text goes with them (sanitize-html's nonTextTags).
  disallowedTagsMode: 'discard',
};

/** A remote reply's HTML (a Note's `content`), through the strict allow-list. */
export function sanitiseRemoteHtml(html: string): string {
  return sanitizeHtml(html, STRICT).trim();
}

/**
 * A site reader's plain text as HTML: escaped (no Markdown, no tags), paragraphs at blank
 * lines and <br> at single line breaks, then through the same allow-list (a second layer).
 */
export function plainTextToHtml(text: string): string {
  const paragraphs = text
    .replace(/\r\n?/g, '\n')
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.trim())
    .filter((paragraph) => paragraph.length > 0)
    .map((paragraph) => `<p>${paragraph.split('\n').map(escapeHtml).join('<br />')}</p>`);
  return sanitizeHtml(paragraphs.join(''), STRICT);
}
