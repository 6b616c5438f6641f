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
  })
  .superRefine(requireNatsUrl);
export type PostsConfig = z.infer<typeof postsConfigSchema>;

export function loadPostsConfig(env: NodeJS.ProcessEnv = process.env): PostsConfig {
  return loadConfig(postsConfigSchema, env);
}
