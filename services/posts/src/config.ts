import { requireNatsUrl, envSchemas, loadConfig, serviceEnv } from '@blog/server-kit';
import { z } from 'zod';

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
  })
  .superRefine(requireNatsUrl);
export type PostsConfig = z.infer<typeof postsConfigSchema>;

export function loadPostsConfig(env: NodeJS.ProcessEnv = process.env): PostsConfig {
  return loadConfig(postsConfigSchema, env);
}
