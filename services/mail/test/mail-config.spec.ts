import { loadMailConfig } from '../src/index.js';

describe('mail config', () => {
  const base = { DATABASE_URL: 'postgres://x/y' };
  it('has defaults that work on localhost', () => {
    const config = loadMailConfig(base);
    expect(config.SMTP_URL).toBeUndefined();
    expect(config.REDIS_URL).toBeUndefined();
    expect(config.SITE_TIMEZONE).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone);
    expect(config).toMatchObject({
      MAIL_PORT: 4004,
      MAIL_FROM: 'Personal blog <blog@localhost>',
      OWNER_EMAIL: 'owner@localhost',
      SITE_URL: 'http://localhost:3000',
      DIGEST_CRON: '0 8 * * 1',
      POSTS_HOST: '127.0.0.1',
      POSTS_PORT: 4002,
    });
  });

  it.each([
    ['SMTP_URL', 'http://mail.example'],
    ['SITE_URL', 'blog.example'],
    ['SITE_TIMEZONE', 'Mars/Olympus'],
    ['DIGEST_CRON', 'every monday'],
    ['DIGEST_CRON', '0 25 * * *'],
    ['REDIS_URL', 'localhost:6379'],
    ['CONTACT_MAX_PER_IP', '0'],
    ['FORM_LIMIT_WINDOW', 'forever'],
  ])('names %s when it is %s', (name, value) => {
    expect(() => loadMailConfig({ ...base, [name]: value })).toThrow(new RegExp(name));
  });
});
