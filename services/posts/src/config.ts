import { requireNatsUrl, envSchemas, loadConfig, serviceEnv } from '@blog/server-kit';
import { z } from 'zod';

export const postsConfigSchema = z
  .object({
    ...serviceEnv,
    POSTS_PORT: envSchemas.port(4002),
    /** The owner's site file (texts and category tree); the shipped config/site.json otherwise. */
    SITE_CONFIG: z.string().optional(),
  })
  .superRefine(requireNatsUrl);
export type PostsConfig = z.infer<typeof postsConfigSchema>;

export function loadPostsConfig(env: NodeJS.ProcessEnv = process.env): PostsConfig {
  return loadConfig(postsConfigSchema, env);
}
