import type { BackupList, BackupProgressView, BackupRunView } from '@blog/contracts/backups';
import type { ApiClient } from '../../../api/client';

export const listBackups = (api: ApiClient, signal?: AbortSignal) =>
  api.request<BackupList>('/api/admin/backups', { signal });

/** Starts one now; answers the one already running instead when there is one. */
export const startBackup = (api: ApiClient) =>
  api.request<BackupRunView>('/api/admin/backups', { method: 'POST' });

export const getBackup = (api: ApiClient, id: string, signal?: AbortSignal) =>
  api.request<BackupRunView>(`/api/admin/backups/${encodeURIComponent(id)}`, { signal });

/** 1536 → "1.5 KB": a backup's size as the list shows it. */
export function formatBytes(bytes: number | null): string {
  if (bytes === null) return '—';
  const units = ['bytes', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${value} bytes` : `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** How long a backup took: "12 s", "3 min 5 s", "1 h 2 min"; a dash while it runs. */
export function formatDuration(startedAt: string, finishedAt: string | null): string {
  if (!finishedAt) return '—';
  const seconds = Math.max(0, Math.round((Date.parse(finishedAt) - Date.parse(startedAt)) / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${seconds % 60} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** Where a running backup stands, in words for the status region. */
export function progressText(progress: BackupProgressView | undefined): string {
  if (!progress) return 'Backing up: starting...';
  if (progress.step === 'database')
    return `Backing up the database: table ${progress.done} of ${progress.total}`;
  if (progress.step === 'media') return `Backing up the media: file ${progress.done} of ${progress.total}`;
  return 'Backing up: finishing...';
}

/** The progress bar's share (0–100): the database counts for the first fifth, media for the rest. */
export function progressPercent(progress: BackupProgressView | undefined): number {
  if (!progress) return 0;
  const share = progress.total ? progress.done / progress.total : 0;
  if (progress.step === 'database') return Math.round(share * 20);
  if (progress.step === 'media') return 20 + Math.round(share * 79);
  return 99;
}
