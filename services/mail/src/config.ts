import { durationSeconds, envSchemas, loadConfig, requireNatsUrl, serviceEnv } from '@blog/server-kit';
import { CronExpressionParser } from 'cron-parser';
import { readFileSync } from 'node:fs';
import { z } from 'zod';

/** Unset and empty are the same thing for an environment variable. */
const unsetIfEmpty = (value: unknown) => (value === '' ? undefined : value);

/** OWNER_EMAIL when unset: contact messages still go there (the outbox shows them); a test send refuses it. */
export const DEFAULT_OWNER_EMAIL = 'owner@localhost';

export const mailConfigSchema = z
  .object({
    ...serviceEnv,
    MAIL_PORT: envSchemas.port(4004),
    DATA_DIR: z.preprocess(unsetIfEmpty, z.string().default('./data')),
    /** smtp://user:pass@host:587 (STARTTLS when offered) or smtps://… (TLS); unset: .eml files in DATA_DIR/outbox. */
    SMTP_URL: z.preprocess(
      unsetIfEmpty,
      z
        .string()
        .regex(/^smtps?:\/\/[^\s]+$/, 'must be an smtp:// or smtps:// URL')
        .optional(),
    ),
    /** Connections the SMTP pool keeps open. */
    SMTP_POOL_SIZE: envSchemas.positiveInt(5),
    MAIL_FROM: z.preprocess(unsetIfEmpty, z.string().min(3).default('Personal blog <blog@localhost>')),
    /** Who receives the contact messages (and a per-post e-mail's test; replies when NEWSLETTER_REPLY_TO_OWNER). */
    OWNER_EMAIL: z.preprocess(unsetIfEmpty, z.string().min(3).default(DEFAULT_OWNER_EMAIL)),
    /** The public address of the site: every link in an e-mail starts with it. */
    SITE_URL: z.preprocess(
      unsetIfEmpty,
      z
        .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
        .default('http://localhost:3000')
        .transform((url) => url.replace(/\/+$/, '')),
    ),
    SITE_TIMEZONE: z.preprocess(unsetIfEmpty, envSchemas.timeZone),
    /** When the weekly digest goes out, in SITE_TIMEZONE (cron syntax; seconds optional). */
    DIGEST_CRON: z.preprocess(
      unsetIfEmpty,
      z
        .string()
        .default('0 8 * * 1')
        .refine((pattern) => {
          try {
            CronExpressionParser.parse(pattern, { strict: false });
            return true;
          } catch {
            return false;
          }
        }, 'must be a cron pattern such as "0 8 * * 1" (Monday 08:00)'),
    ),
    /** BullMQ on Redis schedules the digest when set; an in-process timer otherwise. */
    REDIS_URL: z.preprocess(
      unsetIfEmpty,
      z
        .string()
        .regex(/^rediss?:\/\/[^\s]+$/, 'must be a redis:// or rediss:// URL')
        .optional(),
    ),
    /** Key prefix of the digest queue in Redis (sites sharing one Redis need different ones); BullMQ's own otherwise. */
    REDIS_PREFIX: z.preprocess(
      unsetIfEmpty,
      z
        .string()
        .regex(/^[A-Za-z0-9:_-]{1,64}$/, 'must be letters, digits, ":", "_" or "-"')
        .optional(),
    ),
    /** Where the posts service listens under TRANSPORT=tcp (the digest asks it for the week's posts). */
    POSTS_HOST: envSchemas.host('127.0.0.1'),
    POSTS_PORT: envSchemas.port(4002),
    /** The owner's site file (its title names the e-mails); the shipped config/site.json otherwise. */
    SITE_CONFIG: z.preprocess(unsetIfEmpty, z.string().optional()),
    /** Contact messages accepted per client IP within FORM_LIMIT_WINDOW; more get 429. */
    CONTACT_MAX_PER_IP: envSchemas.positiveInt(5),
    /** Subscribe requests (each sends an e-mail) per client IP within FORM_LIMIT_WINDOW. */
    SUBSCRIBE_MAX_PER_IP: envSchemas.positiveInt(10),
    FORM_LIMIT_WINDOW: durationSeconds('1h'),
    /** How long a confirmation link stays valid. */
    CONFIRM_TOKEN_TTL: durationSeconds('7d'),
    /** How often unsent mail is retried and interrupted digests resumed; also the first retry delay. */
    MAIL_RETRY_INTERVAL_MS: envSchemas.positiveInt(30_000),
    /** The longest wait between two tries of one e-mail (the delay doubles up to it). */
    MAIL_RETRY_MAX_DELAY: durationSeconds('1h'),
    /** Tries per digest e-mail before it is given up (contact messages are never given up). */
    DIGEST_MAX_ATTEMPTS: envSchemas.positiveInt(5),
    /** Subscribers claimed at a time, and claim-and-send loops running at once, per process. */
    DIGEST_BATCH_SIZE: envSchemas.positiveInt(50),
    DIGEST_CONCURRENCY: envSchemas.positiveInt(4),
    /** Per-post e-mails handed to SMTP per minute by one mail process; 0 or unset: as fast as the pool goes. */
    NEWSLETTER_RATE_PER_MINUTE: z.preprocess(unsetIfEmpty, z.coerce.number().int().min(0).default(0)),
    /** Subscribers a per-post send takes at a time (the post is asked for again before each batch). */
    NEWSLETTER_BATCH_SIZE: envSchemas.positiveInt(50),
    /** Tries of one per-post e-mail after a temporary failure (4xx, timeout, dropped connection). */
    NEWSLETTER_MAX_ATTEMPTS: envSchemas.positiveInt(4),
    /** `true`: a reader's reply to a per-post e-mail goes to OWNER_EMAIL (Reply-To). */
    NEWSLETTER_REPLY_TO_OWNER: z.preprocess(
      unsetIfEmpty,
      z
        .enum(['true', 'false'], { error: 'must be true or false' })
        .default('false')
        .transform((v) => v === 'true'),
    ),
    /** SMTP timeouts (ms): opening the connection, the server's greeting, and silence on an open one. */
    SMTP_CONNECTION_TIMEOUT_MS: envSchemas.positiveInt(10_000),
    SMTP_GREETING_TIMEOUT_MS: envSchemas.positiveInt(10_000),
    SMTP_SOCKET_TIMEOUT_MS: envSchemas.positiveInt(30_000),
    /** DKIM signing of every e-mail: all three (the key inline as PEM, or DKIM_PRIVATE_KEY_FILE) or none. */
    DKIM_DOMAIN: z.preprocess(
      unsetIfEmpty,
      z
        .string()
        .regex(/^[A-Za-z0-9.-]+$/, 'must be a domain')
        .optional(),
    ),
    DKIM_SELECTOR: z.preprocess(
      unsetIfEmpty,
      z
        .string()
        .regex(/^[A-Za-z0-9._-]+$/, 'must be a DNS label')
        .optional(),
    ),
    DKIM_PRIVATE_KEY: z.preprocess(unsetIfEmpty, z.string().optional()),
    DKIM_PRIVATE_KEY_FILE: z.preprocess(unsetIfEmpty, z.string().optional()),
  })
  .superRefine((config, ctx) => {
    if (config.DKIM_PRIVATE_KEY_FILE && !config.DKIM_PRIVATE_KEY) {
      try {
        readFileSync(config.DKIM_PRIVATE_KEY_FILE, 'utf8');
      } catch (error) {
        ctx.addIssue({
          code: 'custom',
          path: ['DKIM_PRIVATE_KEY_FILE'],
          message: `cannot be read: ${(error as Error).message}`,
        });
      }
    }
    const key = config.DKIM_PRIVATE_KEY || config.DKIM_PRIVATE_KEY_FILE;
    const set = [config.DKIM_DOMAIN, config.DKIM_SELECTOR, key].filter(Boolean).length;
    if (set !== 0 && set !== 3) {
      ctx.addIssue({
        code: 'custom',
        path: ['DKIM_DOMAIN'],
        message:
          'DKIM needs DKIM_DOMAIN, DKIM_SELECTOR and DKIM_PRIVATE_KEY (or DKIM_PRIVATE_KEY_FILE) together',
      });
    }
  })
  .superRefine((config, ctx) => {
    try {
      CronExpressionParser.parse(config.DIGEST_CRON, { tz: config.SITE_TIMEZONE });
    } catch (error) {
      ctx.addIssue({ code: 'custom', path: ['DIGEST_CRON'], message: (error as Error).message });
    }
  })
  .superRefine(requireNatsUrl);
export type MailConfig = z.infer<typeof mailConfigSchema>;

export const MAIL_CONFIG = Symbol('MAIL_CONFIG');

export function loadMailConfig(env: NodeJS.ProcessEnv = process.env): MailConfig {
  const config = loadConfig(mailConfigSchema, env);
  return { ...config, DKIM_PRIVATE_KEY: dkimKey(config) };
}

/** The DKIM key as PEM: DKIM_PRIVATE_KEY (each `\n` written out read as a line break, for one-line env files) or the file's. */
function dkimKey(config: MailConfig): string | undefined {
  if (config.DKIM_PRIVATE_KEY) return config.DKIM_PRIVATE_KEY.replace(/\\n/g, '\n');
  if (config.DKIM_PRIVATE_KEY_FILE) return readFileSync(config.DKIM_PRIVATE_KEY_FILE, 'utf8');
  return undefined;
}
