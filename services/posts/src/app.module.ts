import { Module, type DynamicModule } from '@nestjs/common';
import { ServiceCoreModule } from '@blog/server-kit';
import type { PostsConfig } from './config.js';

/** The posts service: its schema and health for now; its features arrive with their issues. */
@Module({})
export class PostsModule {
  static forRoot(config: PostsConfig): DynamicModule {
    return {
      module: PostsModule,
      imports: [
        ServiceCoreModule.forRoot({ name: 'posts', url: config.DATABASE_URL, entities: [], migrations: [] }),
      ],
    };
  }
}
