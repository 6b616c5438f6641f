import { z } from 'zod';

/** The blog's own backups (the Backup tab's Backups panel, `/api/admin/backups`). */
export type BackupState = 'running' | 'done' | 'failed';
/** Who started a backup: BACKUP_SCHEDULE, or the owner's "Back up now". */
export type BackupTrigger = 'schedule' | 'owner';

export interface BackupProgressView {
  step: 'database' | 'media' | 'finishing';
  done: number;
  total: number;
}

export interface BackupRunView {
  id: string;
  state: BackupState;
  trigger: BackupTrigger;
  startedAt: string;
  finishedAt: string | null;
  /** Bytes written by this backup (its file and the media blobs it added). */
  bytes: number | null;
  /** Where it went: the folder, or `s3://bucket/prefix`. */
  target: string;
  /** The backup file under the target (`backups/blog-….blogbak`), once written. */
  file: string | null;
  /** Why it failed. */
  error?: string;
  /** Where a running backup stands. */
  progress?: BackupProgressView;
  encrypted: boolean;
}

export interface BackupList {
  /** Newest first, the last BACKUP_LIST_LIMIT. */
  items: BackupRunView[];
  /** When BACKUP_SCHEDULE runs the next one (ISO), or null when no schedule is set. */
  next: string | null;
  /** BACKUP_PASSPHRASE is set: new backups are encrypted. */
  encrypted: boolean;
  /** The staleness warning (backupWarning), or null when the backups are fine. */
  warning: string | null;
}

export const BACKUP_LIST_LIMIT = 30;
export const backupIdSchema = z.uuid({ error: 'Malformed backup id' });

/** A backup older than this (or none, or a failed last one) is a warning. */
export const BACKUP_STALE_MS = 2 * 86_400_000;

/**
 * The owner is warned (on the dashboard's front page, and by e-mail at most once a day) when
 * the last finished backup failed, the last good one is older than 2 days, or none exists
 * while a schedule is set. A running backup changes nothing until it ends. `runs`: newest first.
 */
export function backupWarning(
  runs: Pick<BackupRunView, 'state' | 'startedAt' | 'error'>[],
  scheduled: boolean,
  now: Date = new Date(),
): string | null {
  const finished = runs.filter((run) => run.state !== 'running');
  const last = finished[0];
  if (last?.state === 'failed')
    return `The last backup failed: ${last.error || 'no reason given'}`.replace(/\s+/g, ' ').slice(0, 500);
  const good = finished.find((run) => run.state === 'done');
  if (!good) return scheduled ? 'No backup has been made yet' : null;
  if (now.getTime() - Date.parse(good.startedAt) > BACKUP_STALE_MS)
    return `The last good backup is from ${good.startedAt.slice(0, 10)}, more than 2 days ago`;
  return null;
}
