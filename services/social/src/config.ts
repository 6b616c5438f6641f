import { envSchemas, loadConfig, requireNatsUrl, serviceEnv } from '@blog/server-kit';
import { z } from 'zod';

/** Unset and empty are the same thing for an environment variable. */
const unsetIfEmpty = (value: unknown) => (value === '' ? undefined : value);

export const socialConfigSchema = z
  .object({
    ...serviceEnv,
    SOCIAL_PORT: envSchemas.port(4005),
    /** The public address of the site: the origin of the blog's actor and Article ids. */
    SITE_URL: z.preprocess(
      unsetIfEmpty,
      z
        .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
        .default('http://localhost:3000')
        .transform((url) => url.replace(/\/+$/, '')),
    ),
    /** Where the posts service listens under TRANSPORT=tcp: Articles, comments and the federation's events. */
    POSTS_HOST: envSchemas.host('127.0.0.1'),
    POSTS_PORT: envSchemas.port(4002),
    /** Where the media service listens under TRANSPORT=tcp: remote authors' avatars are stored there. */
    MEDIA_HOST: envSchemas.host('127.0.0.1'),
    MEDIA_PORT: envSchemas.port(4003),
    /** Private hosts, addresses and ranges the federation may fetch from and deliver to (none by default). */
    OUTBOUND_ALLOW: envSchemas.outboundAllow,
    /** How often posts' federation events (publish, edit, delete) are read and handed to delivery. */
    FEDERATION_POLL_MS: envSchemas.positiveInt(5000),
    /** Inbox activities handled at once; one remote server never has more than one of them. */
    FEDERATION_INBOX_WORKERS: envSchemas.positiveInt(4).pipe(z.number().max(64)),
    /** Inbox POSTs verified and queued at once (after their signer's key is fetched); more wait their turn. */
    FEDERATION_INBOX_AT_ONCE: envSchemas.positiveInt(4).pipe(z.number().max(64)),
    /** Deliveries (and fanouts) sent at once; one remote server never has more than one of them. */
    FEDERATION_OUTBOX_WORKERS: envSchemas.positiveInt(4).pipe(z.number().max(64)),
    /** Reader entries (and their cached pictures) older than this many days are deleted. */
    READER_RETENTION_DAYS: envSchemas.positiveInt(30).pipe(z.number().max(3650)),
    /** How often old Reader entries are looked for (an hour; tests make it short). */
    READER_PURGE_MS: envSchemas.positiveInt(3_600_000),
    /** Fedify's own log lines at this level and above (its info and debug are chatty). */
    FEDERATION_LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('warn'),
  })
  .superRefine(requireNatsUrl);
export type SocialConfig = z.infer<typeof socialConfigSchema>;

export const SOCIAL_CONFIG = Symbol('SOCIAL_CONFIG');

export function loadSocialConfig(env: NodeJS.ProcessEnv = process.env): SocialConfig {
  return loadConfig(socialConfigSchema, env);
}
