import 'reflect-metadata';
import { startService } from '@blog/server-kit';
import { MediaModule } from './app.module.js';
import type { MediaConfig } from './config.js';

export { loadMediaConfig, type MediaConfig } from './config.js';

export function startMediaService(config: MediaConfig) {
  return startService(MediaModule.forRoot(config), {
    name: 'media',
    host: config.BIND_HOST,
    port: config.MEDIA_PORT,
    logLevel: config.LOG_LEVEL,
  });
}
