import { Logger, Module, type DynamicModule } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import pg from 'pg';
import { DataSource, type DataSourceOptions, type EntitySchema, type MixedList } from 'typeorm';

export interface ServiceDatabaseOptions {
  url: string;
  /** The service's own PostgreSQL schema: services never share tables. */
  schema: string;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  entities: MixedList<Function | string | EntitySchema>;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  migrations: MixedList<Function | string>;
  poolSize?: number;
  /** Who runs the migrations: the service at its start, or `npm run upgrade` before it (it waits). */
  migrationsBy?: 'service' | 'upgrade';
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]*$/;

/**
 * Creates the service's schema and opens the data source, which runs the migrations, under a
 * PostgreSQL advisory lock: replicas starting together migrate one after the other, and the
 * later ones find nothing left to do.
 */
export async function openMigrated(options: DataSourceOptions, schema: string): Promise<DataSource> {
  if (!SCHEMA_NAME.test(schema)) throw new Error(`Invalid schema name: ${schema}`);
  const lock = new pg.Client({ connectionString: (options as { url: string }).url });
  await lock.connect();
  try {
    await lock.query('SELECT pg_advisory_lock(hashtext($1))', [`blog-migrations:${schema}`]);
    await lock.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    return await new DataSource(options).initialize();
  } finally {
    await lock.end(); // ending the session releases the lock
  }
}

/** How often a service that waits for `npm run upgrade` looks at its schema again. */
const UPGRADE_POLL_MS = 2000;

/**
 * Opens the data source once `npm run upgrade` has run every migration of this code (checked
 * every 2 s), running none itself: the upgrade backs the blog up before any schema changes.
 */
export async function openWhenUpgraded(options: DataSourceOptions, schema: string): Promise<DataSource> {
  if (!SCHEMA_NAME.test(schema)) throw new Error(`Invalid schema name: ${schema}`);
  const source = await new DataSource({ ...options, migrationsRun: false }).initialize();
  try {
    // Its migrations table is looked at (and made, empty, when missing): the schema must exist.
    await source.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    for (let said = false; await source.showMigrations(); said = true) {
      if (!said) new Logger('Database').log(`waiting for npm run upgrade to migrate the ${schema} schema`);
      await new Promise((resolve) => setTimeout(resolve, UPGRADE_POLL_MS));
    }
    return source;
  } catch (error) {
    await source.destroy().catch(() => undefined);
    throw error;
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
          useFactory: () => dataSourceOptions(options),
          dataSourceFactory: (resolved) =>
            options.migrationsBy === 'upgrade'
              ? openWhenUpgraded(resolved!, options.schema)
              : openMigrated(resolved!, options.schema),
        }),
      ],
      exports: [TypeOrmModule],
    };
  }
}
