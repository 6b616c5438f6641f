import { resolve } from 'node:path';
import { z } from 'zod';
import { loadConfig } from '../config.js';
import { LocalFolderStorage } from './local-folder-storage.js';
import type { ObjectStorage } from './object-storage.js';

/** Unset and empty are the same thing for an environment variable. */
const optionalText = z.preprocess(
  (value) => (value === '' ? undefined : value),
  z.string().min(1).optional(),
);

const TRUE = ['true', '1', 'yes'];
const FALSE = ['false', '0', 'no'];

/** true/false (also 1/0, yes/no); unset or empty means `fallback`. */
const flag = (fallback: boolean) =>
  z.preprocess(
    (value) => {
      if (value === undefined || value === '') return fallback;
      if (typeof value !== 'string') return value;
      const text = value.trim().toLowerCase();
      return TRUE.includes(text) ? true : FALSE.includes(text) ? false : value;
    },
    z.boolean({ error: 'must be true or false' }),
  );

/**
 * Where media lives: S3 when S3_ENDPOINT is set, else the folder `${DATA_DIR}/uploads`.
 * S3_BUCKET is required with S3_ENDPOINT; S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together
 * (both unset: the SDK's default credential chain).
 */
export const storageEnv = z
  .object({
    DATA_DIR: z.preprocess(
      (value) => (value === '' ? undefined : value),
      z.string().min(1).default('./data'),
    ),
    S3_ENDPOINT: z.preprocess(
      (value) => (value === '' ? undefined : value),
      z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
    ),
    S3_BUCKET: optionalText,
    S3_REGION: z.preprocess(
      (value) => (value === '' ? undefined : value),
      z.string().min(1).default('us-east-1'),
    ),
    S3_ACCESS_KEY_ID: optionalText,
    S3_SECRET_ACCESS_KEY: optionalText,
    S3_FORCE_PATH_STYLE: flag(true),
  })
  .superRefine((env, ctx) => {
    if (!env.S3_ENDPOINT) return;
    if (!env.S3_BUCKET) {
      ctx.addIssue({
        code: 'custom',
        path: ['S3_BUCKET'],
        message: 'S3_BUCKET is required when S3_ENDPOINT is set',
      });
    } else if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(env.S3_BUCKET)) {
      ctx.addIssue({
        code: 'custom',
        path: ['S3_BUCKET'],
        message: 'must be a valid bucket name (3-63 of a-z 0-9 . -)',
      });
    }
    if (Boolean(env.S3_ACCESS_KEY_ID) !== Boolean(env.S3_SECRET_ACCESS_KEY)) {
      ctx.addIssue({
        code: 'custom',
        path: [env.S3_ACCESS_KEY_ID ? 'S3_SECRET_ACCESS_KEY' : 'S3_ACCESS_KEY_ID'],
        message: 'S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together',
      });
    }
  });

export type StorageConfig = z.infer<typeof storageEnv>;

/** The folder the local store uses for a config: `${DATA_DIR}/uploads`, absolute. */
export function localUploadsDir(config: Pick<StorageConfig, 'DATA_DIR'>): string {
  return resolve(config.DATA_DIR, 'uploads');
}

/**
 * The store a parsed config names. The AWS SDK is loaded only when S3 is used: it costs
 * every process about 20 MB of memory.
 */
export async function createStorageFromConfig(config: StorageConfig): Promise<ObjectStorage> {
  if (config.S3_ENDPOINT) {
    const { S3Storage } = await import('./s3-storage.js');
    return new S3Storage({
      endpoint: config.S3_ENDPOINT,
      bucket: config.S3_BUCKET!,
      region: config.S3_REGION,
      accessKeyId: config.S3_ACCESS_KEY_ID,
      secretAccessKey: config.S3_SECRET_ACCESS_KEY,
      forcePathStyle: config.S3_FORCE_PATH_STYLE,
    });
  }
  return new LocalFolderStorage(localUploadsDir(config));
}

/**
 * The store the environment names: S3 when S3_ENDPOINT is set, else `${DATA_DIR}/uploads`
 * (DATA_DIR default ./data). Throws ConfigError naming the bad variable. Call
 * `ensureReady()` on the result before the first put (it creates the folder or bucket).
 */
export function createStorage(env: NodeJS.ProcessEnv = process.env): Promise<ObjectStorage> {
  return createStorageFromConfig(loadConfig(storageEnv, env));
}
