import { Module, type DynamicModule } from '@nestjs/common';
import { DatabaseModule, type ServiceDatabaseOptions } from './database.js';
import { HealthController, SERVICE_NAME } from './health.controller.js';

export interface ServiceCoreOptions extends Omit<ServiceDatabaseOptions, 'schema'> {
  /** The service's name, which is also its PostgreSQL schema. */
  name: string;
}

/** What every service has: its database schema with migrations run at start, and the health message. */
@Module({})
export class ServiceCoreModule {
  static forRoot({ name, ...database }: ServiceCoreOptions): DynamicModule {
    return {
      module: ServiceCoreModule,
      imports: [DatabaseModule.forService({ ...database, schema: name })],
      controllers: [HealthController],
      providers: [{ provide: SERVICE_NAME, useValue: name }],
      exports: [DatabaseModule],
    };
  }
}
