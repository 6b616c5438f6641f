import { Module, type DynamicModule } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import pg from 'pg';
import type { DataSourceOptions, EntitySchema, MixedList } from 'typeorm';

export interface ServiceDatabaseOptions {
  url: string;
  /** The service's own PostgreSQL schema: services never share tables. */
  schema: string;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  entities: MixedList<Function | string | EntitySchema>;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  migrations: MixedList<Function | string>;
  poolSize?: number;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]*$/;

/** Creates the service's schema before TypeORM runs its migrations into it. */
export async function ensureSchema(url: string, schema: string): Promise<void> {
  if (!SCHEMA_NAME.test(schema)) throw new Error(`Invalid schema name: ${schema}`);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
  } finally {
    await client.end();
  }
}

export function dataSourceOptions(options: ServiceDatabaseOptions): DataSourceOptions {
  return {
    type: 'postgres',
    url: options.url,
    schema: options.schema,
    entities: options.entities,
    migrations: options.migrations,
    migrationsTableName: 'migrations',
    migrationsRun: true,
    synchronize: false,
    logging: false, // failures surface as exceptions, logged once at the service edge
    // Unqualified names (the migrations table, raw SQL) resolve inside the service's schema.
    extra: { max: options.poolSize ?? 10, options: `-c search_path=${options.schema}` },
  };
}

/** TypeORM for one service: its own schema, committed migrations run at start, never synchronize. */
@Module({})
export class DatabaseModule {
  static forService(options: ServiceDatabaseOptions): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRootAsync({
          useFactory: async () => {
            await ensureSchema(options.url, options.schema);
            return dataSourceOptions(options);
          },
        }),
      ],
      exports: [TypeOrmModule],
    };
  }
}
