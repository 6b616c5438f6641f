import 'reflect-metadata';
import { startService } from '@blog/server-kit';
import { PostsModule } from './app.module.js';
import type { PostsConfig } from './config.js';

export { loadPostsConfig, type PostsConfig } from './config.js';

export function startPostsService(config: PostsConfig) {
  return startService(PostsModule.forRoot(config), {
    name: 'posts',
    host: config.BIND_HOST,
    port: config.POSTS_PORT,
    logLevel: config.LOG_LEVEL,
  });
}
