import {
  escapeHtml,
  excerpt,
  mainImageUrl,
  MAIL_TOKEN_PATTERN,
  postLink,
  type PostView,
} from '@blog/contracts';
import { randomBytes } from 'node:crypto';
import { encode as qpEncode, wrap as qpWrap } from 'nodemailer/lib/qp';
import { page } from '../common/emails.js';
import type { OutgoingMail } from '../transport/mail-transport.js';

/** A post as the digest shows it; kept with the week's run so every e-mail of the week is the same. */
export interface DigestPost {
  id: number;
  title: string;
  /** Absolute: SITE_URL + the post's URL from the shared URL builder. */
  url: string;
  /** Absolute URL of the main image (or video / YouTube thumbnail), if any. */
  image: string | null;
  excerpt: string;
  created_at: string;
}

export interface DigestContent {
  posts: DigestPost[];
  /** Posts of the week, also those beyond the ones shown. */
  total: number;
}

export function toDigestPost(post: PostView, siteUrl: string): DigestPost {
  return {
    id: post.id,
    title: post.title,
    url: postLink(siteUrl, post),
    image: mainImageUrl(siteUrl, post.mainMedia),
    excerpt: excerpt(post.excerpt),
    created_at: post.created_at,
  };
}

export interface DigestEmailOptions {
  siteTitle: string;
  siteUrl: string;
  timeZone: string;
  /** The unsubscribe link without its token (`{SITE_URL}/api/unsubscribe?token=`). */
  unsubscribeBase: string;
  /** The preferences page's link without its token; without it the footer has no such link. */
  preferencesBase?: string;
}

/**
 * The weekly e-mail, rendered once per week and personalised per subscriber with its own
 * unsubscribe link (in the body and in the RFC 8058 one-click headers). Both bodies are
 * quoted-printable encoded once, in pieces around the token; a subscriber's e-mail joins the
 * pieces with soft line breaks around the token (base64url needs no encoding), which decodes
 * to exactly the rendered text and halves the CPU time of each e-mail.
 */
export class DigestEmail {
  private readonly placeholder = `__token_${randomBytes(8).toString('hex')}__`;
  private readonly preferencesPlaceholder = `__prefs_${randomBytes(8).toString('hex')}__`;
  /** Which token goes between each two pieces (`u` unsubscribe, `p` preferences). */
  private readonly textSlots: string[];
  private readonly htmlSlots: string[];
  readonly subject: string;
  private readonly unsubscribeBase: string;
  private readonly text: string;
  private readonly html: string;
  private readonly textPieces: string[];
  private readonly htmlPieces: string[];

  constructor(content: DigestContent, options: DigestEmailOptions) {
    const { siteTitle, siteUrl } = options;
    this.unsubscribeBase = options.unsubscribeBase;
    const unsubscribe = `${options.unsubscribeBase}${this.placeholder}`;
    const preferences = options.preferencesBase
      ? `${options.preferencesBase}${this.preferencesPlaceholder}`
      : null;
    const date = new Intl.DateTimeFormat('en-US', { dateStyle: 'long', timeZone: options.timeZone });
    const count = content.posts.length;
    const more = content.total - count;
    this.subject = `${siteTitle}: ${count} new post${count === 1 ? '' : 's'} this week`;

    const textPosts = content.posts.map(
      (post) =>
        `${post.title}\n${date.format(new Date(post.created_at))}\n${post.excerpt ? `${post.excerpt}\n` : ''}Read it: ${post.url}\n`,
    );
    this.text =
      `New on ${siteTitle} this week\n\n` +
      textPosts.join('\n') +
      (more > 0 ? `\n…and ${more} more on ${siteUrl}\n` : '') +
      `\n-- \nYou get this e-mail because you subscribed to the weekly posts of ${siteTitle} (${siteUrl}).\n` +
      (preferences ? `Weekly digest or every post, or unsubscribe: ${preferences}\n` : '') +
      `Unsubscribe: ${unsubscribe}\n`;

    const htmlPosts = content.posts.map((post) => {
      const url = escapeHtml(post.url);
      const image = post.image
        ? `<a href="${url}"><img src="${escapeHtml(post.image)}" alt="${escapeHtml(post.title)}" width="552" style="display:block;width:100%;max-width:552px;height:auto;border:0;border-radius:4px;margin:0 0 12px"></a>`
        : '';
      return `<div style="margin:0 0 28px">
${image}<h2 style="font-size:19px;margin:0 0 4px"><a href="${url}" style="color:#1f5fa8;text-decoration:none">${escapeHtml(post.title)}</a></h2>
<p style="margin:0 0 8px;font-size:13px;color:#666666">${escapeHtml(date.format(new Date(post.created_at)))}</p>
${post.excerpt ? `<p style="margin:0 0 8px">${escapeHtml(post.excerpt)}</p>` : ''}<p style="margin:0"><a href="${url}" style="color:#1f5fa8">Read more...</a></p>
</div>`;
    });
    this.html = page(
      this.subject,
      `<h1 style="font-size:22px;margin:0 0 20px">New on <a href="${escapeHtml(siteUrl)}" style="color:#222222">${escapeHtml(siteTitle)}</a> this week</h1>
${htmlPosts.join('\n')}
${more > 0 ? `<p><a href="${escapeHtml(siteUrl)}">…and ${more} more on the site</a></p>` : ''}
<hr style="border:0;border-top:1px solid #dddddd;margin:24px 0 12px">
<p style="font-size:12px;color:#595959">You get this e-mail because you subscribed to the weekly posts of ${escapeHtml(siteTitle)}.
${preferences ? `<a href="${escapeHtml(preferences)}" style="color:#595959">Change how often</a> · ` : ''}<a href="${escapeHtml(unsubscribe)}" style="color:#595959">Unsubscribe</a></p>`,
    );
    const split = (body: string) => {
      const parts = body.split(new RegExp(`(${this.placeholder}|${this.preferencesPlaceholder})`));
      return {
        pieces: parts
          .filter((_, i) => i % 2 === 0)
          .map((piece) => qpWrap(qpEncode(piece), 76).replace(/\r?\n/g, '\r\n')),
        slots: parts.filter((_, i) => i % 2 === 1).map((p) => (p === this.placeholder ? 'u' : 'p')),
      };
    };
    ({ pieces: this.textPieces, slots: this.textSlots } = split(this.text));
    ({ pieces: this.htmlPieces, slots: this.htmlSlots } = split(this.html));
  }

  /** The two bodies as the subscriber reads them. */
  bodies(token: string, preferencesToken = ''): { text: string; html: string } {
    const fill = (body: string) =>
      body.replaceAll(this.placeholder, token).replaceAll(this.preferencesPlaceholder, preferencesToken);
    return { text: fill(this.text), html: fill(this.html) };
  }

  /** `preferencesToken`: the token of the subscriber's preferences link (when the footer has one). */
  for(to: string, token: string, preferencesToken = ''): OutgoingMail {
    if (!MAIL_TOKEN_PATTERN.test(token)) throw new Error('an unsubscribe token is 43 base64url characters');
    if (preferencesToken && !MAIL_TOKEN_PATTERN.test(preferencesToken))
      throw new Error('a preferences token is 43 base64url characters');
    const url = `${this.unsubscribeBase}${token}`;
    const part = (type: string, pieces: string[], slots: string[]) =>
      `Content-Type: ${type}; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n` +
      pieces
        .map((piece, i) =>
          i === 0 ? piece : `=\r\n${slots[i - 1] === 'u' ? token : preferencesToken}=\r\n${piece}`,
        )
        .join('');
    return {
      to,
      subject: this.subject,
      alternatives: [
        { raw: part('text/plain', this.textPieces, this.textSlots) },
        { raw: part('text/html', this.htmlPieces, this.htmlSlots) },
      ],
      headers: {
        'List-Unsubscribe': `<${url}>`,
        'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
      },
    };
  }
}
