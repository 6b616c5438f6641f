import { formatBytes, formatDuration, progressPercent, progressText } from './backupsApi';

describe("the Backups panel's words", () => {
  it('sizes and durations', () => {
    expect(formatBytes(null)).toBe('—');
    expect(formatBytes(512)).toBe('512 bytes');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(250 * 1024 ** 2)).toBe('250 MB');
    expect(formatDuration('2026-11-28T03:30:00Z', null)).toBe('—');
    expect(formatDuration('2026-11-28T03:30:00Z', '2026-11-28T03:30:12Z')).toBe('12 s');
    expect(formatDuration('2026-11-28T03:30:00Z', '2026-11-28T03:33:05Z')).toBe('3 min 5 s');
    expect(formatDuration('2026-11-28T03:30:00Z', '2026-11-28T04:32:00Z')).toBe('1 h 2 min');
  });

  it('progress, in words and as a share', () => {
    expect(progressText(undefined)).toBe('Backing up: starting...');
    expect(progressText({ step: 'database', done: 3, total: 40 })).toBe(
      'Backing up the database: table 3 of 40',
    );
    expect(progressText({ step: 'media', done: 12, total: 300 })).toBe(
      'Backing up the media: file 12 of 300',
    );
    expect(progressPercent({ step: 'database', done: 20, total: 40 })).toBe(10);
    expect(progressPercent({ step: 'media', done: 0, total: 0 })).toBe(20);
    expect(progressPercent({ step: 'finishing', done: 0, total: 1 })).toBe(99);
  });
});
