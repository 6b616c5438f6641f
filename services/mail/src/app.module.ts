import { Module, type DynamicModule } from '@nestjs/common';
import { ServiceCoreModule } from '@blog/server-kit';
import type { MailConfig } from './config.js';

/** The mail service: its schema and health for now; its features arrive with their issues. */
@Module({})
export class MailModule {
  static forRoot(config: MailConfig): DynamicModule {
    return {
      module: MailModule,
      imports: [
        ServiceCoreModule.forRoot({ name: 'mail', url: config.DATABASE_URL, entities: [], migrations: [] }),
      ],
    };
  }
}
