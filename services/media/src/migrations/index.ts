import { CreateSettings1763830000000 } from './1763830000000-CreateSettings.js';
import { IdempotencyKeys1764300000000 } from '@blog/server-kit';

/** The media schema's migrations in the order they run: the service at start, a restore up to a backup's. */
export const MIGRATIONS = [CreateSettings1763830000000, IdempotencyKeys1764300000000];
