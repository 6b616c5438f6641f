import pg from 'pg';

/** The advisory lock's key: one backup at a time, whichever process takes it. */
const BACKUP_LOCK = 'blog-backup';

export interface BackupLock {
  /** Lets the lock go and closes its connection. */
  release(): Promise<void>;
}

/**
 * The backup lock (`pg_try_advisory_lock`) on a connection of its own, held until released:
 * a process that dies lets it go with its connection. Null when another run holds it.
 */
export async function tryBackupLock(databaseUrl: string): Promise<BackupLock | null> {
  const client = new pg.Client({ connectionString: databaseUrl });
  client.on('error', () => undefined); // a dropped connection only ends the lock
  await client.connect();
  try {
    const { rows } = await client.query<{ locked: boolean }>(
      'SELECT pg_try_advisory_lock(hashtext($1)) AS locked',
      [BACKUP_LOCK],
    );
    if (rows[0]?.locked)
      return {
        // Closing the session lets the lock go, also when the unlock itself fails.
        release: () => client.end().catch(() => undefined),
      };
  } catch (error) {
    await client.end().catch(() => undefined);
    throw error;
  }
  await client.end().catch(() => undefined);
  return null;
}
