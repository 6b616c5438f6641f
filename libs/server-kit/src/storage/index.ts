export * from './object-storage.js';
export * from './keys.js';
export * from './content-type.js';
export { LocalFolderStorage } from './local-folder-storage.js';
export { S3Storage, createS3Client, type S3StorageOptions } from './s3-storage.js';
export * from './config.js';
