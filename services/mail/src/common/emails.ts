import type { MailConfig } from '../config.js';
import type { OutgoingMail } from '../transport/mail-transport.js';
import { escapeHtml } from '@blog/contracts';

export interface StoredContactMessage {
  id: number;
  name: string;
  email: string;
  subject: string;
  message: string;
  ip: string;
  created_at: Date | string;
}

/** The visitor's message to the owner: replying answers the visitor. */
export function contactEmail(
  message: StoredContactMessage,
  config: MailConfig,
  siteTitle: string,
): OutgoingMail {
  const when = new Date(message.created_at).toISOString();
  const text =
    `${message.message}\n\n` +
    `-- \n` +
    `From: ${message.name} <${message.email}>\n` +
    `Sent with the contact form of ${siteTitle} (${config.SITE_URL}) at ${when}, message #${message.id}.\n` +
    `Reply to this e-mail to answer ${message.name}.\n`;
  return {
    to: config.OWNER_EMAIL,
    replyTo: { name: message.name, address: message.email },
    subject: `[${siteTitle}] ${message.subject}`,
    text,
    headers: { 'X-Blog-Contact-Id': String(message.id) },
  };
}

/** Double opt-in: the address only gets digests once its owner opens this link. */
export function confirmationEmail(
  to: string,
  link: string,
  siteTitle: string,
  config: MailConfig,
): OutgoingMail {
  const text =
    `Hello,\n\n` +
    `Someone (hopefully you) asked to receive the weekly e-mail with the new posts of ${siteTitle}.\n` +
    `Open this link to confirm:\n\n${link}\n\n` +
    `If it was not you, ignore this e-mail: nothing will be sent to you.\n\n` +
    `${siteTitle} — ${config.SITE_URL}\n`;
  const html = page(
    siteTitle,
    `<p>Hello,</p>
<p>Someone (hopefully you) asked to receive the weekly e-mail with the new posts of
<a href="${escapeHtml(config.SITE_URL)}">${escapeHtml(siteTitle)}</a>.</p>
<p style="margin:24px 0"><a href="${escapeHtml(link)}" style="background:#1f5fa8;color:#ffffff;padding:10px 18px;border-radius:4px;text-decoration:none">Confirm my subscription</a></p>
<p style="font-size:13px;color:#555555">Or paste this link into your browser: ${escapeHtml(link)}</p>
<p style="font-size:13px;color:#555555">If it was not you, ignore this e-mail: nothing will be sent to you.</p>`,
  );
  return { to, subject: `Confirm your subscription to ${siteTitle}`, text, html };
}

/** A small self-contained HTML e-mail: inline styles only, no external assets but the post images. */
export function page(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
</head>
<body style="margin:0;padding:0;background:#f4f4f4">
<div style="max-width:600px;margin:0 auto;padding:24px;background:#ffffff;font-family:Arial,Helvetica,sans-serif;font-size:15px;line-height:1.5;color:#222222">
${body}
</div>
</body>
</html>
`;
}
