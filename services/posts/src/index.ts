import 'reflect-metadata';
import { createStorage, loadSiteConfig, startService } from '@blog/server-kit';
import { PostsModule } from './app.module.js';
import type { PostsConfig } from './config.js';

export { loadPostsConfig, type PostsConfig } from './config.js';

export async function startPostsService(config: PostsConfig, env: NodeJS.ProcessEnv = process.env) {
  const site = loadSiteConfig(config.SITE_CONFIG);
  const storage = await createStorage(env);
  await storage.ensureReady();
  return startService(PostsModule.forRoot(config, { site, storage }), {
    name: 'posts',
    host: config.BIND_HOST,
    port: config.POSTS_PORT,
    transport: config,
    logLevel: config.LOG_LEVEL,
  });
}
export { MIGRATIONS as POSTS_MIGRATIONS } from './migrations/index.js';
export { ARCHIVE_ENTRY_READ, type ArchiveEntryRead } from './archive/archive-reader.js';
