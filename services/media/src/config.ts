import { requireNatsUrl, envSchemas, loadConfig, serviceEnv } from '@blog/server-kit';
import { z } from 'zod';

export const mediaConfigSchema = z
  .object({
    ...serviceEnv,
    MEDIA_PORT: envSchemas.port(4003),
    /** Where the posts service listens under TRANSPORT=tcp: the worker reports results there and asks it for pending items. */
    POSTS_HOST: envSchemas.host('127.0.0.1'),
    POSTS_PORT: envSchemas.port(4002),
    /** BullMQ on this Redis; the in-process runner when unset. */
    REDIS_URL: z
      .string()
      .regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL')
      .optional(),
    /** Media jobs one worker process runs at once. */
    MEDIA_CONCURRENCY: envSchemas.positiveInt(2),
    /** Runs per job before it waits for the next re-enqueue. */
    MEDIA_JOB_ATTEMPTS: envSchemas.positiveInt(5),
    /** BullMQ: a job whose worker stops renewing its lock this long (a crash) runs again on another worker. */
    MEDIA_LOCK_SECONDS: envSchemas.positiveInt(30),
    /** How often the worker asks the posts service for items still pending. */
    MEDIA_SWEEP_SECONDS: envSchemas.positiveInt(30),
    /** An item pending for longer than this is queued again (its job was lost or its worker died). */
    MEDIA_PENDING_AFTER_SECONDS: envSchemas.positiveInt(120),
    /** Private hosts, addresses and ranges a remote author's avatar may be fetched from (none by default). */
    OUTBOUND_ALLOW: envSchemas.outboundAllow,
  })
  .superRefine(requireNatsUrl);
export type MediaConfig = z.infer<typeof mediaConfigSchema>;

export function loadMediaConfig(env: NodeJS.ProcessEnv = process.env): MediaConfig {
  return loadConfig(mediaConfigSchema, env);
}

export const MEDIA_CONFIG = Symbol('MEDIA_CONFIG');
