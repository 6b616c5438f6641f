import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { createGzip } from 'node:zlib';
import pg from 'pg';
import type { ObjectStorage } from '../storage/object-storage.js';
import type { BackupStore } from './backup-target.js';
import {
  copyOut,
  extensionPlaces,
  migrationNames,
  sequenceValues,
  SERVICE_SCHEMAS,
  tableShapes,
  type ExtensionPlace,
  type SequenceValue,
} from './database-snapshot.js';
import {
  encryptBlob,
  encryptWithPassphrase,
  newBlobKey,
  openBlobKey,
  sealBlobKey,
  type BlobKey,
} from './encryption.js';
import { encodeRecord, pipeInto, RECORD, RecordHasher } from './records.js';

/** The backup format's version: a restore refuses a file of a later one. */
export const BACKUP_FORMAT = 1;
/** A backup file's name: `backups/blog-20261128T033000Z-1a2b.blogbak` (`.age` added when encrypted). */
export const BACKUP_FILE = /^backups\/blog-(\d{8}T\d{6}Z)-[0-9a-f]{4}\.blogbak(\.age)?$/;

export interface BackupHeader {
  format: number;
  createdAt: string;
  /** The blog's address (SITE_URL), to say which blog a file is from. */
  site: string | null;
  /** Each schema's migrations, oldest first: the shape of the tables that follow. */
  migrations: Record<string, string[]>;
  /** Extensions in the services' schemas, made again before the migrations run. */
  extensions: ExtensionPlace[];
  /** The media blobs' key (an age identity), when the backup is encrypted. */
  blobKey?: string;
  /** Where blobs are, under the target: `blobs/<plain|key id>/`. */
  blobFolder: string;
  /**
   * Secrets `npm start` keeps in DATA_DIR that the data needs (JWT_SECRET seals two-factor
   * secrets); in containers they come from the operator's environment instead.
   */
  secrets: Record<string, string>;
}

/** One media object of the backup: where it was, and the blob holding its bytes. */
export interface MediaEntry {
  key: string;
  sha256: string;
  size: number;
  contentType: string;
}

export interface BackupSources {
  databaseUrl: string;
  media: ObjectStorage;
  site?: string | null;
  secrets?: Record<string, string>;
}

export interface BackupOptions {
  passphrase?: string;
  now?: Date;
  /** Told the step and, for media, how many of how many are done. */
  onProgress?: (progress: BackupProgress) => void;
}

export interface BackupProgress {
  step: 'database' | 'media' | 'finishing';
  done: number;
  total: number;
}

export interface BackupResult {
  file: string;
  /** Bytes written: the backup file plus the new blobs. */
  bytes: number;
  fileBytes: number;
  tables: number;
  rows: number;
  media: number;
  /** Media copied by this backup (the others were in the target already). */
  mediaCopied: number;
  mediaBytesCopied: number;
  encrypted: boolean;
}

/** What the target already holds, by media key: spares hashing every object on every backup. */
const MEDIA_INDEX = (folder: string) => `index/${folder.replace(/\//g, '-')}media.json`;

function backupName(now: Date, encrypted: boolean): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `backups/blog-${stamp}-${randomBytes(2).toString('hex')}.blogbak${encrypted ? '.age' : ''}`;
}

/** The target's blob key for this passphrase: found among its sealed keys, else made and kept. */
async function blobKeyFor(target: BackupStore, passphrase: string): Promise<BlobKey> {
  for (const name of await target.list('keys/')) {
    const sealed = await target.get(name);
    if (!sealed) continue;
    const key = await openBlobKey(await streamToBuffer(sealed.body), passphrase);
    if (key) return key;
  }
  const key = await newBlobKey();
  await target.put(`keys/${key.id}.age`, await sealBlobKey(key, passphrase), {
    contentType: 'application/octet-stream',
  });
  return key;
}

export async function streamToBuffer(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function sha256Of(store: ObjectStorage, key: string): Promise<{ sha256: string; size: number } | null> {
  const object = await store.get(key);
  if (!object) return null;
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of object.body) {
    hash.update(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return { sha256: hash.digest('hex'), size };
}

/**
 * Takes one backup: every table of every service's schema from one REPEATABLE READ snapshot
 * (COPY, so no pg_dump of the server's version is needed), then every media object, each
 * stored once in the target by the SHA-256 of its bytes. The file streams through gzip (and age)
 * into the target, which shows it only once whole. Run one at a time (the caller's lock).
 */
export async function takeBackup(
  sources: BackupSources,
  target: BackupStore,
  options: BackupOptions = {},
): Promise<BackupResult> {
  const now = options.now ?? new Date();
  const passphrase = options.passphrase || undefined;
  await target.ensureReady();
  const blobKey = passphrase ? await blobKeyFor(target, passphrase) : undefined;
  const blobFolder = `blobs/${blobKey ? blobKey.id : 'plain'}/`;
  const file = backupName(now, Boolean(passphrase));
  const counts = { tables: 0, rows: 0, media: 0, mediaCopied: 0, mediaBytesCopied: 0 };
  const index = await readMediaIndex(target, blobFolder);
  const refs = new Set<string>();
  const progress = options.onProgress ?? (() => {});

  async function* records(): AsyncGenerator<Buffer> {
    const hasher = new RecordHasher();
    const client = new pg.Client({ connectionString: sources.databaseUrl });
    await client.connect();
    let sequences: SequenceValue[];
    try {
      // One snapshot for every schema: rows that refer to each other across tables agree.
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const migrations: Record<string, string[]> = {};
      for (const schema of SERVICE_SCHEMAS) migrations[schema] = await migrationNames(client, schema);
      const header: BackupHeader = {
        format: BACKUP_FORMAT,
        createdAt: now.toISOString(),
        site: sources.site ?? null,
        migrations,
        extensions: await extensionPlaces(client, SERVICE_SCHEMAS),
        blobFolder,
        secrets: sources.secrets ?? {},
        ...(blobKey ? { blobKey: blobKey.identity } : {}),
      };
      yield hasher.add(encodeRecord(RECORD.header, header));
      const shapes = await tableShapes(client, SERVICE_SCHEMAS);
      progress({ step: 'database', done: 0, total: shapes.length });
      for (const [done, shape] of shapes.entries()) {
        yield hasher.add(encodeRecord(RECORD.table, shape));
        let rows = 0;
        for await (const chunk of copyOut(client, shape)) {
          const piece = chunk as Buffer;
          for (const byte of piece) if (byte === 0x0a) rows++;
          yield hasher.add(encodeRecord(RECORD.data, piece));
        }
        yield hasher.add(encodeRecord(RECORD.tableEnd, { rows }));
        counts.tables++;
        counts.rows += rows;
        progress({ step: 'database', done: done + 1, total: shapes.length });
      }
      sequences = await sequenceValues(client, SERVICE_SCHEMAS);
      await client.query('COMMIT');
    } finally {
      await client.end().catch(() => {});
    }
    yield hasher.add(encodeRecord(RECORD.sequences, sequences));

    // Media after the snapshot: every file a row refers to was written before it (objects are
    // never changed once written), so it is in the listing.
    const keys = await sources.media.list();
    progress({ step: 'media', done: 0, total: keys.length });
    let batch: MediaEntry[] = [];
    for (const [done, key] of keys.entries()) {
      const entry = await backUpObject(sources.media, key, target, blobFolder, blobKey, index, counts);
      if (entry) {
        batch.push(entry);
        refs.add(entry.sha256);
      }
      if (batch.length === 200) {
        yield hasher.add(encodeRecord(RECORD.media, batch));
        batch = [];
      }
      progress({ step: 'media', done: done + 1, total: keys.length });
    }
    if (batch.length) yield hasher.add(encodeRecord(RECORD.media, batch));
    progress({ step: 'finishing', done: 0, total: 1 });
    yield hasher.end({ tables: counts.tables, rows: counts.rows, media: counts.media });
  }

  let body: Readable = pipeInto(Readable.from(records()), createGzip({ level: 6 }));
  if (passphrase) body = await encryptWithPassphrase(body, passphrase);
  const written = await target.put(file, body, { contentType: 'application/octet-stream' });
  await writeMediaIndex(target, blobFolder, index);
  // The blobs this backup needs, in the clear beside it: retention keeps them without decrypting.
  await target.put(refsPath(file), Buffer.from(JSON.stringify({ blobFolder, blobs: [...refs] })), {
    contentType: 'application/json',
  });
  return {
    file,
    bytes: written.size + counts.mediaBytesCopied,
    fileBytes: written.size,
    tables: counts.tables,
    rows: counts.rows,
    media: counts.media,
    mediaCopied: counts.mediaCopied,
    mediaBytesCopied: counts.mediaBytesCopied,
    encrypted: Boolean(passphrase),
  };
}

type MediaIndex = Map<string, { sha256: string; size: number }>;

async function readMediaIndex(target: BackupStore, blobFolder: string): Promise<MediaIndex> {
  const stored = await target.get(MEDIA_INDEX(blobFolder));
  if (!stored) return new Map();
  try {
    return new Map(Object.entries(JSON.parse((await streamToBuffer(stored.body)).toString())));
  } catch {
    return new Map(); // only a cache: made again by hashing
  }
}

async function writeMediaIndex(target: BackupStore, blobFolder: string, index: MediaIndex): Promise<void> {
  await target.put(MEDIA_INDEX(blobFolder), Buffer.from(JSON.stringify(Object.fromEntries(index))), {
    contentType: 'application/json',
  });
}

/** `index/refs/<backup name>.json`: the blobs a backup refers to. */
export function refsPath(file: string): string {
  return `index/refs/${file.slice('backups/'.length)}.json`;
}

export function blobPath(blobFolder: string, sha256: string): string {
  return `${blobFolder}${sha256.slice(0, 2)}/${sha256}`;
}

/** One media object into the target, unless a blob of the same bytes is there already. */
async function backUpObject(
  media: ObjectStorage,
  key: string,
  target: BackupStore,
  blobFolder: string,
  blobKey: BlobKey | undefined,
  index: MediaIndex,
  counts: { media: number; mediaCopied: number; mediaBytesCopied: number },
): Promise<MediaEntry | null> {
  const stat = await media.stat(key);
  if (!stat) return null; // deleted since the listing
  // Objects never change once written: a key's hash, once known, stays true.
  let known = index.get(key);
  if (!known || known.size !== stat.size) {
    const hashed = await sha256Of(media, key);
    if (!hashed) return null;
    known = hashed;
    index.set(key, known);
  }
  const path = blobPath(blobFolder, known.sha256);
  if (!(await target.stat(path))) {
    const object = await media.get(key);
    if (!object) return null;
    const body = blobKey ? await encryptBlob(object.body, blobKey) : object.body;
    const { size } = await target.put(path, body, { contentType: 'application/octet-stream' });
    counts.mediaCopied++;
    counts.mediaBytesCopied += size;
  }
  counts.media++;
  return { key, sha256: known.sha256, size: known.size, contentType: stat.contentType };
}
