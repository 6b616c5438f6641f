import { ConfigError } from '@blog/server-kit';
import { loadPostsConfig } from './config.js';

const base = { DATABASE_URL: 'postgres://blog@127.0.0.1:5432/blog' };

describe('the posts service backup settings', () => {
  it('default to no schedule, DATA_DIR/backups, 7d,4w and no passphrase', () => {
    const config = loadPostsConfig(base);
    expect(config).toMatchObject({
      BACKUP_SCHEDULE: null,
      BACKUP_KEEP: { daily: 7, weekly: 4 },
      DATA_DIR: './data',
    });
    expect(config.BACKUP_TARGET).toBeUndefined();
    expect(config.BACKUP_PASSPHRASE).toBeUndefined();
  });

  it('take a cron pattern, off, and s3:// or folder targets', () => {
    expect(loadPostsConfig({ ...base, BACKUP_SCHEDULE: '30 3 * * *' }).BACKUP_SCHEDULE).toBe('30 3 * * *');
    expect(loadPostsConfig({ ...base, BACKUP_SCHEDULE: 'off' }).BACKUP_SCHEDULE).toBeNull();
    expect(loadPostsConfig({ ...base, BACKUP_SCHEDULE: '' }).BACKUP_SCHEDULE).toBeNull();
    expect(loadPostsConfig({ ...base, BACKUP_TARGET: 's3://blog-backups/daily' }).BACKUP_TARGET).toBe(
      's3://blog-backups/daily',
    );
    expect(loadPostsConfig({ ...base, BACKUP_KEEP: '3d' }).BACKUP_KEEP).toEqual({ daily: 3, weekly: 0 });
  });

  it.each([
    [{ BACKUP_SCHEDULE: 'every night' }, /BACKUP_SCHEDULE: must be a cron pattern/],
    [{ BACKUP_SCHEDULE: '61 3 * * *' }, /BACKUP_SCHEDULE/],
    [{ BACKUP_TARGET: 'ftp://host/folder' }, /BACKUP_TARGET: must be a folder or s3:\/\/bucket\/prefix/],
    [{ BACKUP_KEEP: 'forever' }, /BACKUP_KEEP: BACKUP_KEEP forever is not like "7d,4w"/],
    [{ SITE_TIMEZONE: 'Mars/Olympus' }, /SITE_TIMEZONE: must be an IANA time zone/],
  ])('refuse %j with a ConfigError naming the variable', (env, message) => {
    expect(() => loadPostsConfig({ ...base, ...env })).toThrow(ConfigError);
    expect(() => loadPostsConfig({ ...base, ...env })).toThrow(message);
  });
});
