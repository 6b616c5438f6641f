import { Module, type DynamicModule } from '@nestjs/common';
import { createRpcClient, ServiceCoreModule, type JobQueue, type ObjectStorage } from '@blog/server-kit';
import type { PendingMediaItem } from '@blog/contracts';
import { AvatarCache } from './avatars/avatar-cache.js';
import { AvatarsController, PICTURE_CACHE } from './avatars/avatars.controller.js';
import { MEDIA_CONFIG, type MediaConfig } from './config.js';
import { BannerRenderer } from './processing/banner-renderer.js';
import { MediaController } from './processing/media.controller.js';
import { MediaWorker } from './processing/media-worker.js';
import { SettingsController } from './settings/settings.controller.js';
import { SettingsRow } from './settings/settings.entity.js';
import { PostgresSettingsRepository, SettingsRepository } from './settings/settings.repository.js';
import { SettingsService } from './settings/settings.service.js';
import { FFMPEG, JOB_QUEUE, POSTS_CLIENT, STORAGE } from './tokens.js';
import { MIGRATIONS } from './migrations/index.js';

export interface MediaDeps {
  storage: ObjectStorage;
  queue: JobQueue<PendingMediaItem>;
  ffmpeg: { ffmpeg: string; ffprobe: string };
}

/** The media service: the admin's image settings and the worker that processes uploads. */
@Module({})
export class MediaModule {
  static forRoot(config: MediaConfig, deps: MediaDeps): DynamicModule {
    return {
      module: MediaModule,
      imports: [
        ServiceCoreModule.forRoot({
          name: 'media',
          transport: config.TRANSPORT,
          url: config.DATABASE_URL,
          migrationsBy: config.MIGRATIONS_BY,
          entities: [SettingsRow],
          migrations: MIGRATIONS,
        }),
      ],
      controllers: [SettingsController, MediaController, AvatarsController],
      providers: [
        BannerRenderer,
        { provide: MEDIA_CONFIG, useValue: config },
        { provide: STORAGE, useValue: deps.storage },
        { provide: AvatarCache, useValue: new AvatarCache(deps.storage, { allow: config.OUTBOUND_ALLOW }) },
        {
          provide: PICTURE_CACHE,
          useValue: new AvatarCache(deps.storage, { allow: config.OUTBOUND_ALLOW, kind: 'picture' }),
        },
        { provide: JOB_QUEUE, useValue: deps.queue },
        { provide: FFMPEG, useValue: deps.ffmpeg },
        {
          provide: POSTS_CLIENT,
          useFactory: () =>
            createRpcClient(config, 'media', { host: config.POSTS_HOST, port: config.POSTS_PORT }),
        },
        { provide: SettingsRepository, useClass: PostgresSettingsRepository },
        SettingsService,
        MediaWorker,
      ],
    };
  }
}
