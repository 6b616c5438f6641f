import { requireNatsUrl, envSchemas, loadConfig, serviceEnv } from '@blog/server-kit';
import { parseKeep } from '@blog/server-kit/backup';
import { CronExpressionParser } from 'cron-parser';
import { z } from 'zod';

/** Unset and empty are the same thing for an environment variable. */
const unsetIfEmpty = (value: unknown) => (value === '' ? undefined : value);
const optionalText = z.preprocess(unsetIfEmpty, z.string().min(1).optional());

/** BACKUP_SCHEDULE: a cron pattern (seconds optional), or `off`/unset for no scheduled backups. */
const backupSchedule = z.preprocess(
  unsetIfEmpty,
  z
    .string()
    .optional()
    .transform((value) => (value === undefined || value.trim().toLowerCase() === 'off' ? null : value.trim()))
    .refine((pattern) => {
      if (pattern === null) return true;
      try {
        CronExpressionParser.parse(pattern, { strict: false });
        return true;
      } catch {
        return false;
      }
    }, 'must be a cron pattern such as "30 3 * * *" (daily at 03:30), or off'),
);

export const postsConfigSchema = z
  .object({
    ...serviceEnv,
    POSTS_PORT: envSchemas.port(4002),
    /** The owner's site file (texts and category tree), read on the first start only; the shipped config/site.json otherwise. */
    SITE_CONFIG: z.string().optional(),
    /** How often each replica checks the site settings' version (a change shows within it). */
    SITE_REFRESH_MS: envSchemas.positiveInt(500),
    /** Where the media service listens under TRANSPORT=tcp: imported media are queued there at once. */
    MEDIA_HOST: envSchemas.host('127.0.0.1'),
    MEDIA_PORT: envSchemas.port(4003),
    /** Where the auth service listens under TRANSPORT=tcp: an export lists the accounts. */
    AUTH_HOST: envSchemas.host('127.0.0.1'),
    AUTH_PORT: envSchemas.port(4001),
    /** Where the mail service listens under TRANSPORT=tcp: an export lists the subscribers, an import restores them. */
    MAIL_HOST: envSchemas.host('127.0.0.1'),
    MAIL_PORT: envSchemas.port(4004),
    /** Where the social service listens under TRANSPORT=tcp: an export lists the fediverse followers. */
    SOCIAL_HOST: envSchemas.host('127.0.0.1'),
    SOCIAL_PORT: envSchemas.port(4005),
    /** The blog's public address: its archives name it, and an archive made at it is this blog's. */
    SITE_URL: z.preprocess(
      (value) => (value === '' ? undefined : value),
      z
        .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
        .transform((url) => url.replace(/\/+$/, ''))
        .optional(),
    ),
    /** The import job queue on this Redis (BullMQ); the in-process runner when unset. */
    REDIS_URL: z
      .string()
      .regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL')
      .optional(),
    /** One try of downloading one imported picture or video (three tries at most). */
    IMPORT_MEDIA_TIMEOUT_MS: envSchemas.positiveInt(60_000),
    /** Private hosts, addresses and ranges an import may fetch media from (none by default). */
    OUTBOUND_ALLOW: envSchemas.outboundAllow,
    /** One try of a whole import; a try past it counts as crashed (three tries at most). */
    IMPORT_BUDGET_MS: envSchemas.positiveInt(2 * 3_600_000),
    /** DATA_DIR: the default backup folder, and where `npm start` keeps the secrets a backup carries (jwt-secret). */
    DATA_DIR: z.preprocess(unsetIfEmpty, z.string().min(1).default('./data')),
    /** The site's time zone: BACKUP_SCHEDULE's times and the retention's days and weeks are in it. */
    SITE_TIMEZONE: z.preprocess(unsetIfEmpty, envSchemas.timeZone),
    /** When the blog backs itself up (cron, in SITE_TIMEZONE); off when unset (`npm start` sets 30 3 * * *). */
    BACKUP_SCHEDULE: backupSchedule,
    /** Where backups go: a folder or s3://bucket/prefix; `${DATA_DIR}/backups` when unset. */
    BACKUP_TARGET: z.preprocess(
      unsetIfEmpty,
      z
        .string()
        .refine(
          (target) =>
            /^s3:\/\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*\/?$/.test(target) ||
            !target.includes('://'),
          'must be a folder or s3://bucket/prefix',
        )
        .optional(),
    ),
    /** An s3:// target's server and keys; each falls back to the media's S3_* value. */
    BACKUP_S3_ENDPOINT: optionalText,
    BACKUP_S3_REGION: optionalText,
    BACKUP_S3_ACCESS_KEY_ID: optionalText,
    BACKUP_S3_SECRET_ACCESS_KEY: optionalText,
    S3_ENDPOINT: optionalText,
    S3_REGION: optionalText,
    S3_ACCESS_KEY_ID: optionalText,
    S3_SECRET_ACCESS_KEY: optionalText,
    /** Which backups retention keeps: the newest of each of the last days and weeks (`7d,4w`). */
    BACKUP_KEEP: z.preprocess(
      unsetIfEmpty,
      z
        .string()
        .default('7d,4w')
        .transform((text, ctx) => {
          try {
            return parseKeep(text);
          } catch (error) {
            ctx.addIssue({ code: 'custom', message: (error as Error).message });
            return z.NEVER;
          }
        }),
    ),
    /** Encrypts every backup (age, scrypt) when set; needed again to restore. */
    BACKUP_PASSPHRASE: optionalText,
  })
  .superRefine(requireNatsUrl);
export type PostsConfig = z.infer<typeof postsConfigSchema>;

export function loadPostsConfig(env: NodeJS.ProcessEnv = process.env): PostsConfig {
  return loadConfig(postsConfigSchema, env);
}
