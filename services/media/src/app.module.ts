import { Module, type DynamicModule } from '@nestjs/common';
import { ServiceCoreModule } from '@blog/server-kit';
import type { MediaConfig } from './config.js';

/** The media service: its schema and health for now; its features arrive with their issues. */
@Module({})
export class MediaModule {
  static forRoot(config: MediaConfig): DynamicModule {
    return {
      module: MediaModule,
      imports: [
        ServiceCoreModule.forRoot({ name: 'media', url: config.DATABASE_URL, entities: [], migrations: [] }),
      ],
    };
  }
}
