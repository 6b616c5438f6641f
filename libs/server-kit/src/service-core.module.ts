import { Module, type DynamicModule } from '@nestjs/common';
import type { HealthReport, ServiceName } from '@blog/contracts';
import { DatabaseModule, type ServiceDatabaseOptions } from './database.js';
import { healthController } from './health.controller.js';

export interface ServiceCoreOptions extends Omit<ServiceDatabaseOptions, 'schema'> {
  /** The service's name, which is also its PostgreSQL schema. */
  name: ServiceName;
  /** Which transport the service listens on (its health says so). */
  transport: HealthReport['transport'];
}

/** What every service has: its database schema with migrations run at start, and the health message. */
@Module({})
export class ServiceCoreModule {
  static forRoot({ name, transport, ...database }: ServiceCoreOptions): DynamicModule {
    return {
      module: ServiceCoreModule,
      imports: [DatabaseModule.forService({ ...database, schema: name })],
      controllers: [healthController(name, transport)],
      exports: [DatabaseModule],
    };
  }
}
