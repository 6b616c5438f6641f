import { envSchemas, loadConfig, serviceEnv } from '@blog/server-kit';
import { z } from 'zod';

export const postsConfigSchema = z.object({ ...serviceEnv, POSTS_PORT: envSchemas.port(4002) });
export type PostsConfig = z.infer<typeof postsConfigSchema>;

export function loadPostsConfig(env: NodeJS.ProcessEnv = process.env): PostsConfig {
  return loadConfig(postsConfigSchema, env);
}
