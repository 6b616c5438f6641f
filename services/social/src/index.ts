// services/social: the blog's followers, remote actors, actor keys, blocks and reactions,
// and the blog's one federation (Fedify, its queue worker and the delivery of posts' events).
import 'reflect-metadata';
import { startService } from '@blog/server-kit';
import { SocialModule } from './app.module.js';
import type { SocialConfig } from './config.js';

export { loadSocialConfig, type SocialConfig } from './config.js';

export function startSocialService(config: SocialConfig) {
  return startService(SocialModule.forRoot(config), {
    name: 'social',
    host: config.BIND_HOST,
    port: config.SOCIAL_PORT,
    transport: config,
    logLevel: config.LOG_LEVEL,
  });
}
