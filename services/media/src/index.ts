import 'reflect-metadata';
import type { PendingMediaItem } from '@blog/contracts';
import { createJobQueue, createStorage, startService, resolveBinaries } from '@blog/server-kit';
import { MediaModule } from './app.module.js';
import type { MediaConfig } from './config.js';
import { configureSharp } from './processing/sharp-settings.js';

export { loadMediaConfig, type MediaConfig } from './config.js';

/** The queue of media jobs: BullMQ on REDIS_URL, else in this process. */
export const MEDIA_QUEUE = 'media-items';

export async function startMediaService(config: MediaConfig, env: NodeJS.ProcessEnv = process.env) {
  configureSharp(config.MEDIA_CONCURRENCY);
  const storage = await createStorage(env);
  await storage.ensureReady();
  const queue = createJobQueue<PendingMediaItem>(
    {
      name: MEDIA_QUEUE,
      attempts: config.MEDIA_JOB_ATTEMPTS,
      concurrency: config.MEDIA_CONCURRENCY,
      backoffMs: 1000,
      lockDurationMs: config.MEDIA_LOCK_SECONDS * 1000,
    },
    config,
  );
  return startService(MediaModule.forRoot(config, { storage, queue, ffmpeg: resolveBinaries(env) }), {
    name: 'media',
    host: config.BIND_HOST,
    port: config.MEDIA_PORT,
    transport: config,
    logLevel: config.LOG_LEVEL,
  });
}
