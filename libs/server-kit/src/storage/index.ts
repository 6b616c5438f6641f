export * from './object-storage.js';
export * from './keys.js';
export * from './content-type.js';
export { LocalFolderStorage } from './local-folder-storage.js';
// S3Storage is loaded on demand by createStorage (import it from './s3-storage.js' directly).
export type { S3StorageOptions } from './s3-storage.js';
export * from './config.js';
export * from './media-original.js';
