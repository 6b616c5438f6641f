import type { BackupStore } from './backup-target.js';
import { BACKUP_FILE, refsPath, streamToBuffer } from './take-backup.js';

/** How many backups to keep: the newest of each of the last `daily` days and `weekly` weeks. */
export interface KeepPolicy {
  daily: number;
  weekly: number;
}

export const DEFAULT_KEEP: KeepPolicy = { daily: 7, weekly: 4 };

/** BACKUP_KEEP: `7d,4w` (either part may be left out, or 0). */
export function parseKeep(text: string | undefined): KeepPolicy {
  if (!text?.trim()) return DEFAULT_KEEP;
  const policy = { daily: 0, weekly: 0 };
  for (const part of text.split(',').map((item) => item.trim())) {
    const match = /^(\d{1,3})([dw])$/.exec(part);
    if (!match) throw new Error(`BACKUP_KEEP ${text} is not like "7d,4w" (days and weeks to keep)`);
    if (match[2] === 'd') policy.daily = Number(match[1]);
    else policy.weekly = Number(match[1]);
  }
  if (policy.daily + policy.weekly === 0) throw new Error('BACKUP_KEEP keeps no backup: keep at least 1d');
  return policy;
}

interface Dated {
  file: string;
  day: string;
  week: string;
}

/** The day (YYYY-MM-DD) and ISO week (YYYY-Www) of a date as seen in `timeZone`. */
function calendar(date: Date, timeZone: string): { day: string; week: string } {
  const day = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(date);
  const local = new Date(`${day}T00:00:00Z`);
  const weekday = (local.getUTCDay() + 6) % 7; // Monday 0
  const thursday = new Date(local.getTime() + (3 - weekday) * 86_400_000);
  const yearStart = Date.UTC(thursday.getUTCFullYear(), 0, 1);
  const week = Math.floor((thursday.getTime() - yearStart) / (7 * 86_400_000)) + 1;
  return { day, week: `${thursday.getUTCFullYear()}-W${String(week).padStart(2, '0')}` };
}

/** The backup files to keep, newest first: the newest of each kept day and week. */
export function backupsToKeep(files: string[], policy: KeepPolicy, timeZone = 'UTC'): Set<string> {
  const dated: Dated[] = [];
  for (const file of files) {
    const stamp = BACKUP_FILE.exec(file)?.[1];
    if (!stamp) continue;
    const date = new Date(
      `${stamp.slice(0, 4)}-${stamp.slice(4, 6)}-${stamp.slice(6, 8)}T${stamp.slice(9, 11)}:${stamp.slice(11, 13)}:${stamp.slice(13, 15)}Z`,
    );
    dated.push({ file, ...calendar(date, timeZone) });
  }
  dated.sort((a, b) => (a.file < b.file ? 1 : -1));
  const keep = new Set<string>();
  const pick = (slot: (item: Dated) => string, count: number) => {
    const seen = new Set<string>();
    for (const item of dated) {
      if (seen.has(slot(item))) continue;
      if (seen.size === count) break;
      seen.add(slot(item));
      keep.add(item.file);
    }
  };
  pick((item) => item.day, policy.daily);
  pick((item) => item.week, policy.weekly);
  return keep;
}

/**
 * Deletes the backups the policy does not keep, then the blobs no kept backup refers to. A
 * kept backup whose list of blobs cannot be read keeps every blob (nothing it needs is lost).
 */
export async function pruneBackups(
  target: BackupStore,
  policy: KeepPolicy,
  timeZone = 'UTC',
): Promise<{ deleted: string[]; blobsDeleted: number }> {
  const files = (await target.list('backups/')).filter((file) => BACKUP_FILE.test(file));
  const keep = backupsToKeep(files, policy, timeZone);
  const deleted = files.filter((file) => !keep.has(file));
  for (const file of deleted) {
    await target.delete(file);
    await target.delete(refsPath(file));
  }
  const needed = new Map<string, Set<string>>();
  for (const file of keep) {
    const refs = await target.get(refsPath(file));
    if (!refs) return { deleted, blobsDeleted: 0 };
    let parsed: { blobFolder: string; blobs: string[] };
    try {
      parsed = JSON.parse((await streamToBuffer(refs.body)).toString());
    } catch {
      return { deleted, blobsDeleted: 0 };
    }
    const set = needed.get(parsed.blobFolder) ?? new Set<string>();
    for (const blob of parsed.blobs) set.add(blob);
    needed.set(parsed.blobFolder, set);
  }
  let blobsDeleted = 0;
  for (const blob of await target.list('blobs/')) {
    const folder = blob.slice(0, blob.indexOf('/', 'blobs/'.length) + 1);
    const sha256 = blob.slice(blob.lastIndexOf('/') + 1);
    if (needed.get(folder)?.has(sha256)) continue;
    await target.delete(blob);
    blobsDeleted++;
  }
  return { deleted, blobsDeleted };
}
