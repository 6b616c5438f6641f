import { z } from 'zod';
import {
  emailSchema,
  frequencySchema,
  mailTokenSchema,
  subscribeFrequencySchema,
  type SubscriberFrequency,
} from './mail.js';

/**
 * Every post by e-mail: what readers choose, what posts owes the subscribers when a post is
 * published, the e-mail's content, how the owner sees a send, and the subscriber list's import
 * and export. The posts service records what is owed in the publish's transaction; the mail
 * service claims one (post, subscriber) row before each send, as the weekly digest does.
 */

/** The preferences page's link: a token of its own purpose, sent in every newsletter and digest. */
export const preferencesQuerySchema = z.object({ token: mailTokenSchema });
export const preferencesUpdateSchema = z
  .object({
    token: mailTokenSchema,
    frequency: frequencySchema.optional(),
    unsubscribe: z.boolean({ error: 'unsubscribe must be true or false' }).optional(),
  })
  .refine((v) => v.frequency !== undefined || v.unsubscribe !== undefined, {
    message: 'frequency or unsubscribe is required',
  });
export type PreferencesUpdate = z.infer<typeof preferencesUpdateSchema>;

/** What the preferences page shows (the address masked). */
export interface PreferencesView {
  email: string;
  status: 'pending' | 'confirmed' | 'unsubscribed';
  frequency: SubscriberFrequency;
}

// ---- a post's e-mail ----

/**
 * The post form's field: `true` sends the post by e-mail once, when it is published (a
 * scheduled post at its time; a draft never). Unset: the Site setting's default.
 */
export const sendByEmailField = z
  .enum(['true', 'false'], { error: 'sendByEmail must be true or false' })
  .optional()
  .transform((v) => (v === undefined ? undefined : v === 'true'));

export const NEWSLETTER_SEND_STATES = ['none', 'scheduled', 'sending', 'sent', 'stopped'] as const;
export type NewsletterSendState = (typeof NEWSLETTER_SEND_STATES)[number];

/**
 * GET /api/admin/posts/{id}/email. `none`: not to be sent (or not yet published as one);
 * `scheduled`: owed at the post's publish time; `sending`; `sent`; `stopped`: the post was
 * unpublished or deleted mid-send, the rest not sent.
 */
export interface NewsletterStatus {
  status: NewsletterSendState;
  /** Subscribers claimed for this post (each-post, confirmed, not bounced, when the send began). */
  total: number;
  sent: number;
  failed: number;
  bounced: number;
  startedAt: string | null;
  finishedAt: string | null;
}

/** One post owed to the each-post subscribers, due at its publish time (posts' outbox). */
export interface NewsletterEvent {
  id: string;
  postId: number;
  dueAt: string;
}
export const newsletterPendingQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
});
export const newsletterEventDoneSchema = z.object({ id: z.uuid() });
export const newsletterPostQuerySchema = z.object({ postId: z.coerce.number().int().positive() });
/**
 * posts.newsletter.post: `preview` answers the post whatever its state (a draft, scheduled), for
 * the owner's test e-mail only; without it a post visitors cannot see now is `{ gone: true }`.
 */
export const newsletterPostRequestSchema = newsletterPostQuerySchema.extend({
  preview: z.boolean({ error: 'preview must be true or false' }).optional(),
});

/** A picture in the e-mail: an absolute link to a JPEG or PNG variant (no WebP or AVIF). */
export interface NewsletterPicture {
  url: string;
  alt: string;
  width: number | null;
  height: number | null;
}

/**
 * A post as its e-mail carries it: the whole text, not a teaser. `html` is the post's sanitised
 * HTML with absolute links, its pictures as JPEG/PNG variants, and each video or YouTube link
 * as a picture that links to the post; the mail service inlines the styles. `text` is the
 * plain-text part.
 */
export interface NewsletterPost {
  id: number;
  title: string;
  /** The post's page, absolute. */
  url: string;
  html: string;
  text: string;
  excerpt: string;
  published: string;
  pictures: NewsletterPicture[];
}

/** `gone`: no longer visible (unpublished or deleted): nothing more is sent. */
export type NewsletterPostAnswer = NewsletterPost | { gone: true };

/** POST /api/admin/posts/{id}/email/test: the post's e-mail to the owner only, marked as a test. */
export interface NewsletterTestResult {
  sentTo: string;
}

// ---- the owner's list ----

export const SUBSCRIBER_LIST_STATUSES = ['pending', 'confirmed', 'unsubscribed', 'bounced'] as const;
export type SubscriberListStatus = (typeof SUBSCRIBER_LIST_STATUSES)[number];

export interface SubscriberCounts {
  byStatus: Record<SubscriberListStatus, number>;
  /** Confirmed, not bounced. */
  byFrequency: Record<SubscriberFrequency, number>;
}

/** Export columns, in order. */
export const SUBSCRIBER_CSV_COLUMNS = [
  'email',
  'status',
  'frequency',
  'bounced',
  'created_at',
  'confirmed_at',
  'unsubscribed_at',
] as const;

/**
 * A CSV cell that a spreadsheet would read as a formula (`=`, `+`, `-`, `@`, or a tab or CR
 * first) gets a `'` in front; every cell is quoted, inner quotes doubled.
 */
export function csvCell(value: string | number | boolean | null | undefined): string {
  let text = value === null || value === undefined ? '' : String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return `"${text.replace(/"/g, '""')}"`;
}

/** POST /api/admin/subscribers/import's fields (multipart, beside `file`). */
export const subscriberImportOptionsSchema = z.object({
  consented: z
    .enum(['true', 'false'], { error: 'consented must be true or false' })
    .default('false')
    .transform((v) => v === 'true'),
  frequency: subscribeFrequencySchema,
});
export type SubscriberImportOptions = z.infer<typeof subscriberImportOptionsSchema>;

/**
 * The column that holds the address in the exports of Ghost (`email`), Substack (`email`),
 * Mailchimp (`Email Address`) and Buttondown (`email`), matched without case or spaces.
 */
export const SUBSCRIBER_EMAIL_COLUMNS = ['email', 'emailaddress', 'e-mail', 'mail'] as const;

export type SubscriberImportState = 'running' | 'done' | 'failed';

/** An import's report; while running, the counts so far. */
export interface SubscriberImportReport {
  id: string;
  state: SubscriberImportState;
  /** Data lines read (the header not counted). */
  lines: number;
  added: number;
  /** Added and confirmed at once (the owner stated consent). */
  confirmed: number;
  /** Added and sent a confirmation e-mail. */
  pending: number;
  duplicates: number;
  invalid: number;
  /** At most 100 of the lines refused, with why. */
  errors: { line: number; reason: string }[];
  error?: string;
  startedAt: string;
  finishedAt: string | null;
}

/** An address as an import reads it: the same rule as the subscribe form. */
export const importedEmailSchema = emailSchema;

/** A subscriber CSV's limits: its size, one line (a longer one stops the import), its data lines. */
export const SUBSCRIBER_IMPORT_MAX_BYTES = 100 * 1024 * 1024;
export const SUBSCRIBER_IMPORT_LINE_MAX = 10 * 1024;
export const SUBSCRIBER_IMPORT_MAX_LINES = 200_000;
/** Rows sent to the mail service at a time. */
export const SUBSCRIBER_IMPORT_BATCH = 500;
