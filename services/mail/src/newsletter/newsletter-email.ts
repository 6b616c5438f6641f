import { escapeHtml, MAIL_TOKEN_PATTERN, type NewsletterPost } from '@blog/contracts';
import sanitizeHtml from 'sanitize-html';
import { page } from '../common/emails.js';
import type { OutgoingMail } from '../transport/mail-transport.js';

export interface NewsletterEmailOptions {
  siteTitle: string;
  siteUrl: string;
  /** The unsubscribe link without its token (`{SITE_URL}/api/unsubscribe?token=`). */
  unsubscribeBase: string;
  /** The preferences page's link without its token; without it the footer has no such link. */
  preferencesBase?: string;
  /** Reply-To of every copy (OWNER_EMAIL when NEWSLETTER_REPLY_TO_OWNER is on). */
  replyTo?: string;
}

export interface NewsletterRecipient {
  id: number;
  email: string;
  /** The unsubscribe link's token. */
  token: string;
  /** The preferences link's token ('' without one). */
  preferencesToken: string;
}

/** The widest a picture is drawn (the 600 px column less its padding). */
const CONTENT_WIDTH = 552;

/** Styles written on each element, as mail clients drop <style> blocks and classes. */
const STYLES: Record<string, string> = {
  p: 'margin:0 0 16px',
  h2: 'font-size:22px;line-height:1.3;margin:24px 0 12px',
  h3: 'font-size:19px;line-height:1.3;margin:20px 0 10px',
  h4: 'font-size:17px;line-height:1.3;margin:18px 0 8px',
  h5: 'font-size:15px;margin:16px 0 8px',
  h6: 'font-size:14px;margin:16px 0 8px',
  a: 'color:#1f5fa8;text-decoration:underline',
  img: 'display:block;max-width:100%;height:auto;border:0;margin:0 auto',
  figure: 'margin:0 0 16px',
  figcaption: 'font-size:13px;color:#666666;text-align:center;margin-top:6px',
  blockquote: 'margin:0 0 16px;padding:0 0 0 14px;border-left:3px solid #dddddd;color:#555555',
  pre: 'white-space:pre-wrap;word-wrap:break-word;background:#f6f6f6;padding:12px;font-size:13px;font-family:Menlo,Consolas,monospace',
  code: 'font-family:Menlo,Consolas,monospace;font-size:13px;background:#f6f6f6',
  ul: 'margin:0 0 16px;padding-left:24px',
  ol: 'margin:0 0 16px;padding-left:24px',
  li: 'margin:0 0 6px',
  hr: 'border:0;border-top:1px solid #dddddd;margin:24px 0',
  table: 'border-collapse:collapse;max-width:100%;margin:0 0 16px',
  th: 'border:1px solid #dddddd;padding:6px;text-align:left',
  td: 'border:1px solid #dddddd;padding:6px',
};

const ALLOWED_TAGS = [
  ...Object.keys(STYLES),
  'br',
  'strong',
  'b',
  'em',
  'i',
  'u',
  's',
  'sub',
  'sup',
  'span',
  'thead',
  'tbody',
  'tr',
];

/** Resolves a link of the post against the site; anything but http(s) and mailto is dropped. */
function absolute(link: string | undefined, siteUrl: string, mailto: boolean): string | undefined {
  if (!link) return undefined;
  try {
    const url = new URL(link, `${siteUrl}/`);
    if (url.protocol === 'http:' || url.protocol === 'https:' || (mailto && url.protocol === 'mailto:')) {
      return url.href;
    }
  } catch {
    // not a link
  }
  return undefined;
}

/**
 * The post's HTML as an e-mail carries it: an allow-list of tags and attributes (no script,
 * style, form, frame or event handler, whatever came in), links and pictures absolute (http(s)
 * only; no data: or javascript:), each element styled inline, pictures no wider than the column.
 */
export function emailHtml(html: string, siteUrl: string): string {
  return sanitizeHtml(html, {
    allowedTags: [...ALLOWED_TAGS, 'h1'],
    allowedAttributes: {
      '*': ['style'],
      a: ['href', 'title'],
      img: ['src', 'alt', 'width', 'title'],
      td: ['colspan', 'rowspan'],
      th: ['colspan', 'rowspan'],
      ol: ['start'],
    },
    allowedSchemes: ['http', 'https', 'mailto'],
    allowedSchemesByTag: { img: ['http', 'https'] },
    allowProtocolRelative: false,
    disallowedTagsMode: 'discard',
    nonTextTags: [
      'script',
      'style',
      'textarea',
      'option',
      'noscript',
      'iframe',
      'object',
      'template',
      'title',
    ],
    transformTags: {
      // The post's title is the e-mail's only h1.
      h1: (_tag, attribs) => ({ tagName: 'h2', attribs }),
      '*': (tagName, attribs) => {
        const out: Record<string, string> = {};
        if (tagName === 'a') {
          const href = absolute(attribs.href, siteUrl, true);
          if (href) out.href = href;
          if (attribs.title) out.title = attribs.title;
        } else if (tagName === 'img') {
          const src = absolute(attribs.src, siteUrl, false);
          if (src) out.src = src;
          out.alt = attribs.alt ?? '';
          const width = Number(attribs.width);
          out.width = String(
            Number.isFinite(width) && width > 0 ? Math.min(width, CONTENT_WIDTH) : CONTENT_WIDTH,
          );
        } else {
          for (const name of ['colspan', 'rowspan', 'start']) {
            if (attribs[name] && /^\d{1,3}$/.test(attribs[name])) out[name] = attribs[name];
          }
        }
        const style = STYLES[tagName];
        if (style) out.style = style;
        return { tagName, attribs: out };
      },
    },
    exclusiveFilter: (frame) => frame.tag === 'img' && !frame.attribs.src,
  });
}

/** A header value on one line (a title or site name can hold anything). */
export function oneLine(value: string): string {
  return value.replace(/[\r\n\t\u2028\u2029]+/g, ' ').trim();
}

/** An address as a single `local@domain` with nothing that could end a header or add a recipient. */
export function isPlainAddress(address: string): boolean {
  return address.length <= 254 && /^[^\s@<>()",;:\\[\]]+@[^\s@<>()",;:\\[\]]+$/.test(address);
}

/**
 * One post's e-mail: the whole post in HTML (inline styles, a 600 px fluid column, no script)
 * and plain text, the post's title as the subject, the site's name, a "view in the browser"
 * link, and each copy's own unsubscribe (also RFC 8058 one-click) and preferences links. Built
 * once per post; `for` only fills in a recipient's links and Message-ID.
 */
export class NewsletterEmail {
  readonly subject: string;
  private readonly html: string;
  private readonly text: string;
  private readonly host: string;
  private readonly list: { id: { url: string; comment: string } };
  private static readonly UNSUB = '\u0000u\u0000';
  private static readonly PREFS = '\u0000p\u0000';

  constructor(
    private readonly post: NewsletterPost,
    private readonly options: NewsletterEmailOptions,
  ) {
    const { siteTitle, siteUrl } = options;
    this.host = new URL(siteUrl).hostname;
    const site = oneLine(siteTitle);
    this.subject = oneLine(post.title);
    this.list = { id: { url: `newsletter.${this.host}`, comment: site } };
    const postUrl = absolute(post.url, siteUrl, false) ?? siteUrl;
    const { UNSUB, PREFS } = NewsletterEmail;
    const hasPrefs = Boolean(options.preferencesBase);
    const published = new Date(post.published);
    const date = Number.isNaN(published.getTime())
      ? ''
      : new Intl.DateTimeFormat('en-US', { dateStyle: 'long', timeZone: 'UTC' }).format(published);
    this.html = page(
      this.subject,
      `<p style="margin:0 0 4px;font-size:13px;color:#595959"><a href="${escapeHtml(siteUrl)}" style="color:#595959;text-decoration:none">${escapeHtml(site)}</a>${date ? ` · ${escapeHtml(date)}` : ''}</p>
<p style="margin:0 0 16px;font-size:12px"><a href="${escapeHtml(postUrl)}" style="color:#595959">View in the browser</a></p>
<h1 style="font-size:26px;line-height:1.25;margin:0 0 20px"><a href="${escapeHtml(postUrl)}" style="color:#222222;text-decoration:none">${escapeHtml(this.subject)}</a></h1>
${emailHtml(post.html, siteUrl)}
<hr style="border:0;border-top:1px solid #dddddd;margin:24px 0 12px">
<p style="font-size:12px;color:#595959;margin:0">You get this e-mail because you subscribed to every post of <a href="${escapeHtml(siteUrl)}" style="color:#595959">${escapeHtml(site)}</a>.
${hasPrefs ? `<a href="${PREFS}" style="color:#595959">Change how often</a> · ` : ''}<a href="${UNSUB}" style="color:#595959">Unsubscribe</a></p>`,
    );
    this.text =
      `${site} — ${this.subject}\n` +
      `View in the browser: ${postUrl}\n\n` +
      `${post.text.trim()}\n\n` +
      `-- \nYou get this e-mail because you subscribed to every post of ${site} (${siteUrl}).\n` +
      (hasPrefs ? `Weekly digest or every post, or unsubscribe: ${PREFS}\n` : '') +
      `Unsubscribe: ${UNSUB}\n`;
  }

  /** The two bodies as one subscriber reads them. */
  bodies(recipient: Pick<NewsletterRecipient, 'token' | 'preferencesToken'>): { html: string; text: string } {
    const unsubscribe = `${this.options.unsubscribeBase}${recipient.token}`;
    const preferences = `${this.options.preferencesBase ?? ''}${recipient.preferencesToken}`;
    const fill = (body: string, escape: (s: string) => string) =>
      body
        .replaceAll(NewsletterEmail.UNSUB, escape(unsubscribe))
        .replaceAll(NewsletterEmail.PREFS, escape(preferences));
    return { html: fill(this.html, escapeHtml), text: fill(this.text, (s) => s) };
  }

  /** One subscriber's copy; throws for an address that is not a plain `local@domain`. */
  for(recipient: NewsletterRecipient): OutgoingMail {
    if (!isPlainAddress(recipient.email)) throw new Error('not a plain e-mail address');
    if (!MAIL_TOKEN_PATTERN.test(recipient.token))
      throw new Error('an unsubscribe token is 43 base64url characters');
    if (recipient.preferencesToken && !MAIL_TOKEN_PATTERN.test(recipient.preferencesToken)) {
      throw new Error('a preferences token is 43 base64url characters');
    }
    const { html, text } = this.bodies(recipient);
    return {
      to: recipient.email,
      subject: this.subject,
      html,
      text,
      messageId: `<newsletter-${this.post.id}-${recipient.id}@${this.host}>`,
      ...(this.options.replyTo ? { replyTo: this.options.replyTo } : {}),
      headers: {
        'List-Unsubscribe': `<${this.options.unsubscribeBase}${recipient.token}>`,
        'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
      },
      list: this.list,
    };
  }

  /** The owner's test copy: marked in the subject, links that unsubscribe nobody, counted nowhere. */
  test(to: string): OutgoingMail {
    const html = this.html
      .replaceAll(NewsletterEmail.UNSUB, escapeHtml(this.options.siteUrl))
      .replaceAll(NewsletterEmail.PREFS, escapeHtml(this.options.siteUrl));
    const text = this.text
      .replaceAll(NewsletterEmail.UNSUB, '(each subscriber gets a link of their own)')
      .replaceAll(NewsletterEmail.PREFS, '(each subscriber gets a link of their own)');
    return {
      to,
      subject: `[Test] ${this.subject}`,
      html,
      text,
      list: this.list,
    };
  }
}
