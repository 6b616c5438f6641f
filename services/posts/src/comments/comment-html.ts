import { escapeHtml } from '@blog/contracts';
import { REMOTE_HTML_POLICY, sanitiseRemoteHtml } from '@blog/server-kit/remote-html';
import sanitizeHtml from 'sanitize-html';

export { sanitiseRemoteHtml };

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
  return sanitizeHtml(paragraphs.join(''), REMOTE_HTML_POLICY);
}
