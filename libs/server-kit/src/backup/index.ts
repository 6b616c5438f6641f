export * from './backup-target.js';
export { SERVICE_SCHEMAS, type ServiceSchema } from './database-snapshot.js';
export { BackupPassphraseError } from './encryption.js';
export { BackupFormatError } from './records.js';
export * from './restore-backup.js';
export * from './retention.js';
export * from './take-backup.js';
export * from './backup-lock.js';
