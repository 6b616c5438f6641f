import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { PassThrough, Transform, type Readable, type Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import pg from 'pg';
import { dataSourceOptions, openMigrated } from '../database.js';
import type { ObjectStorage } from '../storage/object-storage.js';
import type { BackupStore } from './backup-target.js';
import {
  assertSameShape,
  copyIn,
  createExtensions,
  qualified,
  SERVICE_SCHEMAS,
  setSequences,
  tableShapes,
  type SequenceValue,
  type TableShape,
} from './database-snapshot.js';
import {
  BackupPassphraseError,
  blobKeyOf,
  decryptBlob,
  decryptWithPassphrase,
  isEncrypted,
} from './encryption.js';
import { BackupFormatError, parseJson, pipeInto, readRecords, RECORD } from './records.js';
import { BACKUP_FORMAT, blobPath, type BackupHeader, type MediaEntry } from './take-backup.js';

/** A service's migrations, in the order its module runs them. */
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
export type MigrationList = Function[];

export interface RestoreOptions {
  /** The backup: its store (the target it was written to) and its key there. */
  source: { store: BackupStore; key: string };
  databaseUrl: string;
  /** Where media go: must hold nothing yet. */
  media: ObjectStorage;
  passphrase?: string;
  /** Each schema's migrations as this version of the blog has them. */
  migrations: Record<string, MigrationList>;
  onProgress?: (step: string) => void;
}

export interface RestoreResult {
  header: BackupHeader;
  tables: number;
  rows: number;
  media: number;
}

export class RestoreRefusedError extends Error {
  override name = 'RestoreRefusedError';
}

/** TypeORM's name for a migration: the instance's `name`, else its class's. */
const migrationName = (migration: MigrationList[number]) => {
  const Migration = migration as unknown as new () => { name?: string };
  return new Migration().name || Migration.name;
};

/**
 * The migrations to run before the rows go in: this version's that the backup's database had
 * run (TypeORM runs them in timestamp order, whatever the list's). A backup with a migration
 * this version does not know was made by a newer one: refused.
 */
export function migrationsToRun(
  header: Pick<BackupHeader, 'migrations'>,
  code: Record<string, MigrationList>,
): Record<string, MigrationList> {
  const plan: Record<string, MigrationList> = {};
  for (const schema of SERVICE_SCHEMAS) {
    const taken = new Set(header.migrations[schema] ?? []);
    const known = code[schema] ?? [];
    const knownNames = new Set(known.map(migrationName));
    for (const name of taken)
      if (!knownNames.has(name))
        throw new RestoreRefusedError(
          `the backup was made by a newer version of the blog (the ${schema} schema has migration ${name}, ` +
            `which this version does not know): restore it with that version or a later one`,
        );
    plan[schema] = known.filter((migration) => taken.has(migrationName(migration)));
  }
  return plan;
}

/** Nothing in the schemas and nothing in the media store: a restore never mixes two blogs. */
async function assertEmpty(client: pg.ClientBase, media: ObjectStorage): Promise<void> {
  for (const shape of await tableShapes(client, SERVICE_SCHEMAS)) {
    const { rows } = await client.query(`SELECT 1 FROM ${qualified(shape.schema, shape.table)} LIMIT 1`);
    if (rows.length)
      throw new RestoreRefusedError(
        `the database is not empty (${shape.schema}.${shape.table} has rows): restore into an empty one, before the blog's first start`,
      );
  }
  const objects = await media.list();
  if (objects.length)
    throw new RestoreRefusedError(
      `the media store is not empty (${objects.length} objects): restore into an empty one`,
    );
}

async function openBody(options: RestoreOptions): Promise<Readable> {
  const object = await options.source.store.get(options.source.key);
  if (!object)
    throw new RestoreRefusedError(`no backup at ${options.source.store.where}/${options.source.key}`);
  // Peek at the first bytes: an age file needs the passphrase.
  const head = await firstBytes(object.body, 32);
  const body = new PassThrough();
  body.write(head);
  object.body.on('error', (error) => body.destroy(error));
  object.body.pipe(body);
  if (!isEncrypted(head)) return pipeInto(body, createGunzip());
  if (!options.passphrase)
    throw new BackupPassphraseError(
      'the backup is encrypted: set BACKUP_PASSPHRASE to the passphrase it was made with',
    );
  return pipeInto(await decryptWithPassphrase(body, options.passphrase), createGunzip());
}

/** zlib's and age's own failures ("unexpected end of file", "invalid tag") said plainly. */
function damaged(error: Error): Error {
  return error instanceof BackupPassphraseError || error instanceof BackupFormatError
    ? error
    : new BackupFormatError(`the backup is damaged or not a backup of this blog (${error.message})`);
}

async function firstBytes(body: Readable, count: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  while (size < count) {
    const chunk = body.read() as Buffer | null;
    if (chunk) {
      chunks.push(chunk);
      size += chunk.length;
      continue;
    }
    if (body.readableEnded) break;
    await Promise.race([once(body, 'readable'), once(body, 'end')]);
  }
  return Buffer.concat(chunks);
}

async function write(stream: Writable, chunk: Buffer): Promise<void> {
  if (!stream.write(chunk)) await once(stream, 'drain');
}

/**
 * Restores a backup into an empty database and media store: this version's migrations up to
 * the backup's, then every row in one transaction (foreign keys and triggers held off, as
 * pg_restore does) and every media object. The transaction commits only once the whole file has
 * been read and its checksum holds; on any failure the schemas and the media written are
 * removed again, so nothing half-restored is left live.
 */
export async function restoreBackup(options: RestoreOptions): Promise<RestoreResult> {
  const say = options.onProgress ?? (() => {});
  const client = new pg.Client({ connectionString: options.databaseUrl });
  await client.connect();
  const written: string[] = [];
  let migrated = false;
  try {
    await assertEmpty(client, options.media);
    const records = readRecords(await openBody(options), damaged);
    const first = await records.next();
    if (first.done) throw new BackupFormatError('the backup is empty');
    const header = parseJson<BackupHeader>(first.value, RECORD.header, 'its header');
    if (typeof header.format !== 'number' || header.format > BACKUP_FORMAT)
      throw new RestoreRefusedError(
        `the backup's format (${header.format}) is newer than this version's (${BACKUP_FORMAT}): restore it with a later version`,
      );
    const plan = migrationsToRun(header, options.migrations);
    say('creating the tables');
    migrated = true;
    await createExtensions(client, header.extensions ?? []);
    for (const schema of SERVICE_SCHEMAS) {
      const source = await openMigrated(
        dataSourceOptions({
          url: options.databaseUrl,
          schema,
          entities: [],
          migrations: plan[schema]!,
          poolSize: 1,
        }),
        schema,
      );
      await source.destroy();
    }
    const shapes = new Map(
      (await tableShapes(client, SERVICE_SCHEMAS)).map((shape) => [`${shape.schema}.${shape.table}`, shape]),
    );
    const blobKey = header.blobKey ? await blobKeyOf(header.blobKey) : null;

    await client.query('BEGIN');
    try {
      await client.query('SET LOCAL session_replication_role = replica');
    } catch (error) {
      throw new RestoreRefusedError(
        `restore needs a PostgreSQL superuser (to hold off foreign keys while tables load): ${(error as Error).message}`,
      );
    }
    // Migrations may have added rows of their own (defaults, their own list): the backup's replace them.
    if (shapes.size)
      await client.query(
        `TRUNCATE ${[...shapes.values()].map((shape) => qualified(shape.schema, shape.table)).join(', ')}`,
      );
    const counts = { tables: 0, rows: 0, media: 0 };
    let table: { shape: TableShape; stream: Writable } | null = null;
    say('loading the tables');
    for await (const record of records) {
      if (record.type === RECORD.table) {
        const shape = parseJson<TableShape>(record, RECORD.table, 'a table');
        assertSameShape(shape, shapes.get(`${shape.schema}.${shape.table}`));
        table = { shape, stream: copyIn(client, shape) };
      } else if (record.type === RECORD.data) {
        if (!table) throw new BackupFormatError('not a backup of this blog (rows outside a table)');
        await write(table.stream, record.payload);
      } else if (record.type === RECORD.tableEnd) {
        if (!table) throw new BackupFormatError('not a backup of this blog (a table ends twice)');
        table.stream.end();
        await finished(table.stream);
        counts.rows += parseJson<{ rows: number }>(record, RECORD.tableEnd, 'a table end').rows;
        counts.tables++;
        table = null;
      } else if (record.type === RECORD.sequences) {
        await setSequences(client, parseJson<SequenceValue[]>(record, RECORD.sequences, 'sequences'));
      } else if (record.type === RECORD.media) {
        if (counts.media === 0) say('copying the media');
        for (const entry of parseJson<MediaEntry[]>(record, RECORD.media, 'media')) {
          await restoreObject(options, header, blobKey, entry);
          written.push(entry.key);
          counts.media++;
        }
      } else if (record.type !== RECORD.end) {
        throw new BackupFormatError(`not a backup of this blog (unknown record ${record.type})`);
      }
    }
    await client.query('COMMIT');
    return { header, ...counts };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    await options.media.deleteMany(written).catch(() => {});
    if (migrated)
      for (const schema of SERVICE_SCHEMAS)
        await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => {});
    throw error;
  } finally {
    await client.end().catch(() => {});
  }
}

async function restoreObject(
  options: RestoreOptions,
  header: BackupHeader,
  blobKey: Awaited<ReturnType<typeof blobKeyOf>> | null,
  entry: MediaEntry,
): Promise<void> {
  const path = blobPath(header.blobFolder, entry.sha256);
  const blob = await options.source.store.get(path);
  if (!blob)
    throw new RestoreRefusedError(
      `media file ${entry.key} is missing from ${options.source.store.where} (${path}): ` +
        'restore from the target the backup was written to (a backup file alone holds no media)',
    );
  const body = blobKey ? await decryptBlob(blob.body, blobKey) : blob.body;
  const hash = createHash('sha256');
  const hashed = body.pipe(
    new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        hash.update(chunk);
        callback(null, chunk);
      },
    }),
  );
  body.on('error', (error) => hashed.destroy(error));
  const { size } = await options.media.put(entry.key, hashed, { contentType: entry.contentType });
  if (size !== entry.size || hash.digest('hex') !== entry.sha256)
    throw new BackupFormatError(`media file ${entry.key} in the backup is damaged (its bytes do not match)`);
}
