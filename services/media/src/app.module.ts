import { Module, type DynamicModule } from '@nestjs/common';
import { ServiceCoreModule } from '@blog/server-kit';
import type { MediaConfig } from './config.js';
import { CreateSettings1763830000000 } from './migrations/1763830000000-CreateSettings.js';
import { SettingsController } from './settings/settings.controller.js';
import { SettingsRow } from './settings/settings.entity.js';
import { SettingsService } from './settings/settings.service.js';

/** The media service: the admin's image settings (the processing worker arrives with its issue). */
@Module({})
export class MediaModule {
  static forRoot(config: MediaConfig): DynamicModule {
    return {
      module: MediaModule,
      imports: [
        ServiceCoreModule.forRoot({
          name: 'media',
          url: config.DATABASE_URL,
          entities: [SettingsRow],
          migrations: [CreateSettings1763830000000],
        }),
      ],
      controllers: [SettingsController],
      providers: [SettingsService],
    };
  }
}
