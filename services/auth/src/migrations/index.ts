import { CreateUsers1763800000000 } from './1763800000000-CreateUsers.js';
import { AccountSecurity1764400000000 } from './1764400000000-AccountSecurity.js';
import { RateWindows1764800000000 } from '@blog/server-kit';
import { LoginAttemptsToRateWindows1764850000000 } from './1764850000000-LoginAttemptsToRateWindows.js';

/** The auth schema's migrations in the order they run: the service at start, a restore up to a backup's. */
export const MIGRATIONS = [
  CreateUsers1763800000000,
  AccountSecurity1764400000000,
  RateWindows1764800000000,
  LoginAttemptsToRateWindows1764850000000,
];
