import { durationSeconds, envSchemas, loadConfig, requireNatsUrl, serviceEnv } from '@blog/server-kit';
import { CronExpressionParser } from 'cron-parser';
import { z } from 'zod';

/** Unset and empty are the same thing for an environment variable. */
const unsetIfEmpty = (value: unknown) => (value === '' ? undefined : value);

const timeZone = z
  .string()
  .default(() => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC')
  .refine((zone) => {
    try {
      new Intl.DateTimeFormat('en', { timeZone: zone });
      return true;
    } catch {
      return false;
    }
  }, 'must be an IANA time zone such as Europe/Berlin or UTC');

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
    /** Who receives the contact messages. */
    OWNER_EMAIL: z.preprocess(unsetIfEmpty, z.string().min(3).default('owner@localhost')),
    /** The public address of the site: every link in an e-mail starts with it. */
    SITE_URL: z.preprocess(
      unsetIfEmpty,
      z
        .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
        .default('http://localhost:3000')
        .transform((url) => url.replace(/\/+$/, '')),
    ),
    SITE_TIMEZONE: z.preprocess(unsetIfEmpty, timeZone),
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
  return loadConfig(mailConfigSchema, env);
}
