import { backupWarning } from './backups.js';

const NOW = new Date('2026-11-28T12:00:00Z');
const run = (state: 'running' | 'done' | 'failed', startedAt: string, error?: string) => ({
  state,
  startedAt,
  ...(error ? { error } : {}),
});

describe('the staleness warning', () => {
  it('is quiet while the last finished backup is good and under 2 days old', () => {
    expect(backupWarning([run('done', '2026-11-27T03:30:00Z')], true, NOW)).toBeNull();
    expect(backupWarning([run('done', '2026-11-26T12:00:01Z')], true, NOW)).toBeNull();
    // A failure before the good one is over.
    expect(
      backupWarning(
        [run('done', '2026-11-28T03:30:00Z'), run('failed', '2026-11-27T03:30:00Z', 'x')],
        true,
        NOW,
      ),
    ).toBeNull();
  });

  it('warns when the last finished backup failed, with its reason', () => {
    expect(
      backupWarning([run('failed', '2026-11-28T03:30:00Z', 'EACCES: permission denied')], true, NOW),
    ).toBe('The last backup failed: EACCES: permission denied');
    // A running one changes nothing until it ends.
    expect(
      backupWarning(
        [run('running', '2026-11-28T11:59:00Z'), run('failed', '2026-11-28T03:30:00Z', 'disk full')],
        false,
        NOW,
      ),
    ).toBe('The last backup failed: disk full');
  });

  it('warns when the last good backup is older than 2 days', () => {
    expect(backupWarning([run('done', '2026-11-26T11:59:59Z')], false, NOW)).toBe(
      'The last good backup is from 2026-11-26, more than 2 days ago',
    );
  });

  it('warns when none exists while a schedule is set, and not without a schedule', () => {
    expect(backupWarning([], true, NOW)).toBe('No backup has been made yet');
    expect(backupWarning([run('running', '2026-11-28T11:59:00Z')], true, NOW)).toBe(
      'No backup has been made yet',
    );
    expect(backupWarning([], false, NOW)).toBeNull();
  });
});
