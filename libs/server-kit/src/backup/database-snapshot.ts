import type pg from 'pg';
import copyStreams from 'pg-copy-streams';
import type { Readable } from 'node:stream';
import { BackupFormatError } from './records.js';

/** Every service's schema (docs/architecture.md): a backup holds them all, from one snapshot. */
export const SERVICE_SCHEMAS = ['auth', 'posts', 'media', 'mail', 'social'] as const;
export type ServiceSchema = (typeof SERVICE_SCHEMAS)[number];

export interface TableShape {
  schema: string;
  table: string;
  /** Stored columns in order (generated ones are made again by PostgreSQL). */
  columns: string[];
}

export interface SequenceValue {
  schema: string;
  sequence: string;
  value: string;
  called: boolean;
}

const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;
export const qualified = (schema: string, name: string) => `${ident(schema)}.${ident(name)}`;

/** The ordinary tables of `schemas` and their stored columns, in a stable order. */
export async function tableShapes(client: pg.ClientBase, schemas: readonly string[]): Promise<TableShape[]> {
  const { rows } = await client.query<{ schema: string; table: string; columns: string[] }>(
    `SELECT n.nspname AS schema, c.relname AS table,
            array_agg(a.attname::text ORDER BY a.attnum) AS columns
       FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace
       JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
      WHERE c.relkind IN ('r', 'p') AND n.nspname = ANY($1)
      GROUP BY n.nspname, c.relname
      ORDER BY n.nspname, c.relname`,
    [schemas],
  );
  return rows;
}

export async function sequenceValues(
  client: pg.ClientBase,
  schemas: readonly string[],
): Promise<SequenceValue[]> {
  const { rows } = await client.query<{ schema: string; sequence: string }>(
    `SELECT schemaname AS schema, sequencename AS sequence FROM pg_sequences
      WHERE schemaname = ANY($1) ORDER BY 1, 2`,
    [schemas],
  );
  const values: SequenceValue[] = [];
  for (const { schema, sequence } of rows) {
    const { rows: state } = await client.query<{ last_value: string; is_called: boolean }>(
      `SELECT last_value::text, is_called FROM ${qualified(schema, sequence)}`,
    );
    values.push({ schema, sequence, value: state[0]!.last_value, called: state[0]!.is_called });
  }
  return values;
}

/** The migrations a schema has run, oldest first ([] when it has none). */
export async function migrationNames(client: pg.ClientBase, schema: string): Promise<string[]> {
  const { rows: exists } = await client.query(
    `SELECT 1 FROM pg_tables WHERE schemaname = $1 AND tablename = 'migrations'`,
    [schema],
  );
  if (exists.length === 0) return [];
  const { rows } = await client.query<{ name: string }>(
    `SELECT name FROM ${qualified(schema, 'migrations')} ORDER BY id`,
  );
  return rows.map((row) => row.name);
}

/** A table's rows as COPY text (one line a row). Call inside the snapshot's transaction. */
export function copyOut(client: pg.ClientBase, shape: TableShape): Readable {
  const columns = shape.columns.map(ident).join(', ');
  return client.query(copyStreams.to(`COPY ${qualified(shape.schema, shape.table)} (${columns}) TO STDOUT`));
}

/** A writable COPY into a table, in the restore's transaction. */
export function copyIn(client: pg.ClientBase, shape: TableShape) {
  const columns = shape.columns.map(ident).join(', ');
  return client.query(
    copyStreams.from(`COPY ${qualified(shape.schema, shape.table)} (${columns}) FROM STDIN`),
  );
}

/** The restored table must have the backup's columns: the same migrations made both. */
export function assertSameShape(expected: TableShape, found: TableShape | undefined): void {
  if (!found)
    throw new BackupFormatError(
      `the backup holds table ${expected.schema}.${expected.table}, which its migrations did not create`,
    );
  if (found.columns.join(',') !== expected.columns.join(','))
    throw new BackupFormatError(
      `table ${expected.schema}.${expected.table} differs from the backup's (columns ${expected.columns.join(', ')})`,
    );
}

export async function setSequences(client: pg.ClientBase, values: SequenceValue[]): Promise<void> {
  for (const { schema, sequence, value, called } of values)
    await client.query(`SELECT setval($1::regclass, $2::bigint, $3)`, [
      qualified(schema, sequence),
      value,
      called,
    ]);
}

export interface ExtensionPlace {
  name: string;
  schema: string;
}

/** The extensions installed in the services' schemas (some come from TypeORM, not a migration). */
export async function extensionPlaces(
  client: pg.ClientBase,
  schemas: readonly string[],
): Promise<ExtensionPlace[]> {
  const { rows } = await client.query<ExtensionPlace>(
    `SELECT e.extname AS name, n.nspname AS schema FROM pg_extension e
       JOIN pg_namespace n ON n.oid = e.extnamespace WHERE n.nspname = ANY($1) ORDER BY 1`,
    [schemas],
  );
  return rows;
}

export async function createExtensions(client: pg.ClientBase, places: ExtensionPlace[]): Promise<void> {
  for (const { name, schema } of places) {
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${ident(schema)}`);
    await client.query(`CREATE EXTENSION IF NOT EXISTS ${ident(name)} SCHEMA ${ident(schema)}`);
  }
}
