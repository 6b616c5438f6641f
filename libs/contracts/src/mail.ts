import { z } from 'zod';
import { pageParam } from './posts.js';

/** Contact, subscriptions and the weekly digest (docs/product.md#about-contact-and-subscribe, #mail). */

export const CONTACT_NAME_MAX = 100;
export const CONTACT_SUBJECT_MAX = 200;
export const CONTACT_MESSAGE_MAX = 5000;
/** RFC 5321: a forward path is at most 254 characters. */
export const EMAIL_MAX = 254;
/** The hidden field of the contact and subscribe forms: people leave it empty, form-filling robots do not. */
export const HONEYPOT_FIELD = 'website';
/** docs/product.md#limits-and-timings: "Excerpt default: 150 characters, cut at a word boundary with '...'". */
/** Confirmation and unsubscribe tokens: 32 random bytes, base64url (43 characters). */
export const MAIL_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;
export const MAIL_PAGE_DEFAULT = 20;
export const MAIL_PAGE_MAX = 100;

export const MailText = {
  contactSent: 'Message sent successfully!',
  subscribeRequested:
    'Thank you! Please check your inbox and open the link we sent to confirm your subscription.',
  tooManyMessages: 'Too many messages from your address. Please try again later.',
  tooManySubscriptions: 'Too many subscription requests from your address. Please try again later.',
  invalidLink: 'This link is invalid or has expired.',
} as const;

const text = (field: string, max: number, singleLine: boolean) =>
  z
    .string({
      error: (issue) => (issue.input === undefined ? `${field} is required` : `${field} must be a string`),
    })
    .transform((value) => (singleLine ? value.replace(/\s+/g, ' ') : value.replace(/\r\n?/g, '\n')).trim())
    .pipe(z.string().min(1, `${field} is required`).max(max, `${field} must be at most ${max} characters`));

/** A required, trimmed e-mail address (docs/product.md#limits-and-timings: "email required and of e-mail type"). */
export const emailSchema = z
  .string({
    error: (issue) => (issue.input === undefined ? 'email is required' : 'email must be a string'),
  })
  .trim()
  .pipe(
    z
      .string()
      .min(1, 'email is required')
      .max(EMAIL_MAX, `email must be at most ${EMAIL_MAX} characters`)
      .pipe(z.email('email must be a valid e-mail address')),
  );

const honeypot = z.string(`${HONEYPOT_FIELD} must be a string`).max(2000).optional();

/** POST /api/contact. Name and subject become single lines (they end up in mail headers). */
export const contactSchema = z.object({
  name: text('name', CONTACT_NAME_MAX, true),
  email: emailSchema,
  subject: text('subject', CONTACT_SUBJECT_MAX, true),
  message: text('message', CONTACT_MESSAGE_MAX, false),
  [HONEYPOT_FIELD]: honeypot,
});
export type ContactRequest = z.infer<typeof contactSchema>;

/** How often a subscriber gets mail: each post as it is published, or the weekly digest. */
export const SUBSCRIBER_FREQUENCIES = ['each-post', 'weekly'] as const;
export type SubscriberFrequency = (typeof SUBSCRIBER_FREQUENCIES)[number];
export const DEFAULT_FREQUENCY: SubscriberFrequency = 'weekly';

export const frequencySchema = z.enum(SUBSCRIBER_FREQUENCIES, {
  error: `frequency must be one of ${SUBSCRIBER_FREQUENCIES.join(', ')}`,
});

/** POST /api/subscribe: an address and, when given, how often (default weekly, as before). */
export const subscribeFrequencySchema = frequencySchema.default(DEFAULT_FREQUENCY);

/** POST /api/subscribe: the address and how often (without it, weekly, as before). */
export const subscribeSchema = z.object({
  email: emailSchema,
  frequency: subscribeFrequencySchema,
  [HONEYPOT_FIELD]: honeypot,
});
export type SubscribeRequest = z.infer<typeof subscribeSchema>;

/** True when a robot filled the hidden field: the request is answered as if it worked and dropped. */
export function isHoneypotFilled(body: { [HONEYPOT_FIELD]?: string }): boolean {
  return (body[HONEYPOT_FIELD] ?? '').trim() !== '';
}

/** What the gateway tells the mail service: the form plus the client address (per-IP limits). */
export interface ContactCommand extends ContactRequest {
  ip: string;
}
export interface SubscribeCommand extends SubscribeRequest {
  ip: string;
}

export const mailTokenSchema = z
  .string({ error: MailText.invalidLink })
  .regex(MAIL_TOKEN_PATTERN, MailText.invalidLink);

export const tokenCommandSchema = z.object({ token: mailTokenSchema });
export type TokenCommand = z.infer<typeof tokenCommandSchema>;

/** The answer to the contact and subscribe forms (any 2xx is success for the web, docs/api.md). */
export interface MailAck {
  success: true;
  message: string;
}

export type SubscriptionStatus = 'pending' | 'confirmed' | 'unsubscribed';
export type ContactMessageStatus = 'pending' | 'sent';

/** What a confirmation or unsubscribe link is about (the address is shown masked). */
export interface SubscriptionLinkResult {
  email: string;
  status: SubscriptionStatus;
}

export interface DigestRunResult {
  /** The digest week: the DIGEST_CRON occurrence that starts it (ISO date-time). */
  week: string;
  /** E-mails this run sent (other replicas' and earlier runs' are not counted). */
  sent: number;
  /** Posts in the digest. */
  posts: number;
  /** True when the week had no posts: nothing is sent. */
  skipped: boolean;
}

/** GET /api/admin/messages and /api/admin/subscribers: newest first, paged, optionally one status. */
const mailListQuery = <const S extends readonly [string, ...string[]]>(statuses: S) =>
  z.object({
    page: pageParam(1, 1_000_000, 'page'),
    limit: pageParam(MAIL_PAGE_DEFAULT, MAIL_PAGE_MAX, 'limit'),
    status: z.preprocess(
      (value) => (value === '' ? undefined : value),
      z.enum(statuses, { error: `status must be one of ${statuses.join(', ')}` }).optional(),
    ),
  });
export const messageListQuerySchema = mailListQuery(['pending', 'sent'] as const);
/** `bounced`: addresses that bounced (whatever their status); `search`: part of the address. */
export const subscriberListQuerySchema = mailListQuery([
  'pending',
  'confirmed',
  'unsubscribed',
  'bounced',
] as const).extend({
  search: z.preprocess(
    (value) => (typeof value === 'string' && value.trim() === '' ? undefined : value),
    z.string().trim().max(EMAIL_MAX, `search must be at most ${EMAIL_MAX} characters`).optional(),
  ),
  frequency: z.preprocess((value) => (value === '' ? undefined : value), frequencySchema.optional()),
});
export type MessageListQuery = z.infer<typeof messageListQuerySchema>;
export type SubscriberListQuery = z.infer<typeof subscriberListQuerySchema>;

export interface MailListResult<T> {
  items: T[];
  total: number;
}

export interface ContactMessageView {
  id: number;
  name: string;
  email: string;
  subject: string;
  message: string;
  status: ContactMessageStatus;
  attempts: number;
  last_error: string | null;
  created_at: string;
  sent_at: string | null;
}

export interface SubscriberView {
  id: number;
  email: string;
  status: SubscriptionStatus;
  frequency: SubscriberFrequency;
  /** Two permanent rejections of the address: no more mail until the owner resets it. */
  bounced: boolean;
  created_at: string;
  confirmed_at: string | null;
  unsubscribed_at: string | null;
}

/** "jane@example.com" → "j***@example.com": enough to recognise one's address on a page. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at <= 0) return '***';
  return `${email[0]}***${email.slice(at)}`;
}
