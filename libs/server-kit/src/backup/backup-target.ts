import { resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { LocalFolderStorage } from '../storage/local-folder-storage.js';
import type {
  GetResult,
  ObjectStat,
  ObjectStorage,
  PutOptions,
  PutResult,
} from '../storage/object-storage.js';

/** What a backup needs of the place it writes to: a folder or a bucket (under a prefix). */
export interface BackupStore {
  /** For messages and the dashboard: the folder, or `s3://bucket/prefix`. */
  readonly where: string;
  ensureReady(): Promise<void>;
  put(key: string, body: Readable | Buffer, options: PutOptions): Promise<PutResult>;
  get(key: string): Promise<GetResult | null>;
  stat(key: string): Promise<ObjectStat | null>;
  list(prefix: string): Promise<string[]>;
  delete(key: string): Promise<void>;
}

/** A store's keys under `prefix/` (the bucket's other keys are not the backup's). */
class PrefixedStore implements BackupStore {
  constructor(
    private readonly store: ObjectStorage,
    private readonly prefix: string,
    readonly where: string,
  ) {}

  private key(key: string) {
    return this.prefix ? `${this.prefix}/${key}` : key;
  }

  ensureReady() {
    return this.store.ensureReady();
  }
  put(key: string, body: Readable | Buffer, options: PutOptions) {
    return this.store.put(this.key(key), body, options);
  }
  get(key: string) {
    return this.store.get(this.key(key));
  }
  stat(key: string) {
    return this.store.stat(this.key(key));
  }
  async list(prefix: string) {
    const keys = await this.store.list(this.key(prefix));
    return this.prefix ? keys.map((key) => key.slice(this.prefix.length + 1)) : keys;
  }
  delete(key: string) {
    return this.store.delete(this.key(key));
  }
}

export interface S3Settings {
  endpoint?: string;
  region?: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  forcePathStyle?: boolean;
}

const S3_URL = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])((?:\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*)\/?$/;

export class BackupTargetError extends Error {
  override name = 'BackupTargetError';
}

/**
 * The store `target` names: `s3://bucket/prefix` (with `s3`'s endpoint and keys) or a folder.
 * A folder is made absolute against the working directory.
 */
export async function openBackupStore(target: string, s3: S3Settings = {}): Promise<BackupStore> {
  if (target.startsWith('s3://')) {
    const match = S3_URL.exec(target);
    if (!match)
      throw new BackupTargetError(
        `BACKUP_TARGET ${target} is not s3://bucket/prefix (a bucket name, then a path)`,
      );
    const [, bucket, path = ''] = match;
    const { S3Storage } = await import('../storage/s3-storage.js');
    const store = new S3Storage({
      bucket: bucket!,
      endpoint: s3.endpoint,
      region: s3.region,
      accessKeyId: s3.accessKeyId,
      secretAccessKey: s3.secretAccessKey,
      forcePathStyle: s3.forcePathStyle ?? true,
    });
    return new PrefixedStore(store, path.replace(/^\//, ''), target.replace(/\/$/, ''));
  }
  if (!target || target.includes('://'))
    throw new BackupTargetError(
      `BACKUP_TARGET ${target || '(empty)'} is neither a folder nor s3://bucket/prefix`,
    );
  const folder = resolve(target);
  return new PrefixedStore(new LocalFolderStorage(folder), '', folder);
}

/**
 * Where a backup named by the operator lives: its store (the folder or prefix above
 * `backups/`, where its media blobs are) and its key there.
 */
export async function locateBackup(
  location: string,
  s3: S3Settings = {},
): Promise<{ store: BackupStore; key: string }> {
  const full = location.startsWith('s3://') ? location : resolve(location);
  const marker = full.lastIndexOf('/backups/');
  if (marker < 0)
    throw new BackupTargetError(
      `${location} is not a backup's place: give the file in a backup target's backups/ folder (its media are beside it)`,
    );
  const root = full.slice(0, marker) || '/';
  return { store: await openBackupStore(root, s3), key: full.slice(marker + 1) };
}
