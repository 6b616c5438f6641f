import { Module, type DynamicModule } from '@nestjs/common';
import type { HealthReport, ServiceName } from '@blog/contracts';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { DatabaseModule, type ServiceDatabaseOptions } from './database.js';
import { IdempotencyLedger } from './idempotency.js';
import { healthController } from './health.controller.js';

export interface ServiceCoreOptions extends Omit<ServiceDatabaseOptions, 'schema'> {
  /** The service's name, which is also its PostgreSQL schema. */
  name: ServiceName;
  /** Which transport the service listens on (its health says so). */
  transport: HealthReport['transport'];
}

/**
 * What every service has: its database schema with migrations run at start, the health
 * message, and the ledger of keyed writes (for services whose migrations make its table).
 */
@Module({})
export class ServiceCoreModule {
  static forRoot({ name, transport, ...database }: ServiceCoreOptions): DynamicModule {
    return {
      module: ServiceCoreModule,
      imports: [DatabaseModule.forService({ ...database, schema: name })],
      controllers: [healthController(name, transport)],
      providers: [
        {
          provide: IdempotencyLedger,
          useFactory: (db: DataSource) => new IdempotencyLedger(db),
          inject: [getDataSourceToken()],
        },
      ],
      exports: [DatabaseModule, IdempotencyLedger],
    };
  }
}
