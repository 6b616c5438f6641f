import {
  MailText,
  Patterns,
  type PreferencesView,
  type SubscriberCounts,
  type SubscriberImportReport,
  type SubscriberView,
} from '@blog/contracts';
import { createHash } from 'node:crypto';
import { PreferencesLinks } from '../src/subscriptions/preferences-links.js';
import { startMailStack, type MailReplica, type MailStack } from './support/mail-stack.js';
import { startTestSmtp, type TestSmtp } from './support/smtp.js';

const SITE = 'https://blog.example';

/** The subscribers' RPCs against a real PostgreSQL and SMTP server: preferences, the owner's list, imports. */
describe('mail service: subscribers (real PostgreSQL, real SMTP server)', () => {
  let stack: MailStack;
  let smtp: TestSmtp;
  let mail: MailReplica;

  const count = async (where = 'true') =>
    Number((await stack.sql.query(`SELECT count(*) AS n FROM mail.subscribers WHERE ${where}`)).rows[0].n);
  const importRows = (id: string, emails: string[], first = 2) =>
    mail.send<SubscriberImportReport>(Patterns.mail.subscriberImportRows, {
      id,
      rows: emails.map((email, i) => ({ line: first + i, email })),
    });

  beforeAll(async () => {
    smtp = await startTestSmtp();
    stack = await startMailStack({
      SMTP_URL: smtp.url,
      OWNER_EMAIL: 'owner@blog.example',
      SITE_URL: SITE,
      MAIL_RETRY_INTERVAL_MS: '150',
    });
    mail = await stack.startMail();
  });
  afterAll(async () => {
    await stack?.stop();
    await smtp?.close();
  });

  it('existing subscribers keep the weekly digest; the columns come with defaults', async () => {
    await stack.sql.query(
      `INSERT INTO mail.subscribers (email, status) VALUES ('old@reader.example', 'confirmed')`,
    );
    const { rows } = await stack.sql.query(
      `SELECT frequency, bounced_at, bounce_count FROM mail.subscribers WHERE email = 'old@reader.example'`,
    );
    expect(rows[0]).toEqual({ frequency: 'weekly', bounced_at: null, bounce_count: 0 });
  });

  it('a preferences link: its own token (stored hashed), read, change how often, unsubscribe', async () => {
    const links = mail.app.get(PreferencesLinks);
    const { rows } = await stack.sql.query(
      `SELECT id FROM mail.subscribers WHERE email = 'old@reader.example'`,
    );
    const url = await links.preferencesUrl(rows[0].id);
    expect(url).toMatch(/^https:\/\/blog\.example\/api\/preferences\?token=[\w-]{43}$/);
    const token = new URL(url).searchParams.get('token')!;
    const stored = await stack.sql.query(
      `SELECT hash, purpose, expires_at FROM mail.mail_tokens WHERE purpose = 'preferences'`,
    );
    expect(stored.rows).toEqual([
      { hash: createHash('sha256').update(token).digest('hex'), purpose: 'preferences', expires_at: null },
    ]);
    expect(await mail.send<PreferencesView>(Patterns.mail.preferences, { token })).toEqual({
      email: 'o***@reader.example',
      status: 'confirmed',
      frequency: 'weekly',
    });
    expect(
      await mail.send<PreferencesView>(Patterns.mail.preferencesUpdate, { token, frequency: 'each-post' }),
    ).toMatchObject({ frequency: 'each-post', status: 'confirmed' });
    expect(await mail.failure(Patterns.mail.preferencesUpdate, { token })).toMatchObject({
      status: 400,
      error: 'frequency or unsubscribe is required',
    });
    expect(await mail.failure(Patterns.mail.preferences, { token: 'short' })).toMatchObject({
      status: 404,
      error: MailText.invalidLink,
    });
    expect(
      await mail.failure(Patterns.mail.preferencesUpdate, { token: 'x'.repeat(43), unsubscribe: true }),
    ).toMatchObject({ status: 404 });
    expect(
      await mail.send<PreferencesView>(Patterns.mail.preferencesUpdate, { token, unsubscribe: true }),
    ).toMatchObject({ status: 'unsubscribed' });
    expect(
      await count(`email = 'old@reader.example' AND status = 'unsubscribed' AND unsubscribed_at IS NOT NULL`),
    ).toBe(1);
  });

  it('imports: each address checked, repeats and addresses here counted, a header never reaches a mail', async () => {
    const started = await mail.send<SubscriberImportReport>(Patterns.mail.subscriberImportStart, {
      consented: false,
      frequency: 'each-post',
    });
    expect(started).toMatchObject({ state: 'running', lines: 0, added: 0 });
    const before = smtp.received.length;
    const report = await importRows(started.id, [
      'new1@import.example',
      ' NEW1@import.example ',
      'old@reader.example',
      'a@b.example\r\nBcc: victim@else.example',
      'tab\t@import.example',
      'x'.repeat(1000),
      '=cmd|calc@import.example',
      'new2@import.example',
    ]);
    expect(report).toMatchObject({ lines: 8, added: 2, pending: 2, confirmed: 0, duplicates: 2, invalid: 4 });
    expect(report.errors.map((e) => e.line)).toEqual([5, 6, 7, 8]);
    // The unsubscribed address stays unsubscribed: an import never subscribes it again.
    expect(await count(`email = 'old@reader.example' AND status = 'unsubscribed'`)).toBe(1);
    const finished = await mail.send<SubscriberImportReport>(Patterns.mail.subscriberImportFinish, {
      id: started.id,
    });
    expect(finished).toMatchObject({ state: 'done', added: 2, finishedAt: expect.any(String) });
    expect(
      await mail.failure(Patterns.mail.subscriberImportRows, { id: started.id, rows: [] }),
    ).toMatchObject({
      status: 409,
    });
    // The confirmations go out in the background, one each.
    const mails = await smtp.waitFor(before + 2);
    expect(
      mails
        .slice(before)
        .flatMap((m) => m.to)
        .sort(),
    ).toEqual(['new1@import.example', 'new2@import.example']);
    expect(smtp.received.some((m) => m.raw.includes('victim@else.example'))).toBe(false);
    expect(await mail.send(Patterns.mail.subscriberImportStatus, { id: started.id })).toEqual(finished);
  });

  it('keeps at most 100 refused lines in the report, counting them all', async () => {
    const { id } = await mail.send<SubscriberImportReport>(Patterns.mail.subscriberImportStart, {
      consented: true,
      frequency: 'weekly',
    });
    await importRows(
      id,
      Array.from({ length: 80 }, (_, i) => `bad ${i}`),
    );
    const report = await importRows(
      id,
      Array.from({ length: 80 }, (_, i) => `worse ${i}`),
      82,
    );
    expect(report).toMatchObject({ lines: 160, invalid: 160, added: 0 });
    expect(report.errors).toHaveLength(100);
    const failed = await mail.send<SubscriberImportReport>(Patterns.mail.subscriberImportFinish, {
      id,
      error: 'The file is not valid CSV',
    });
    expect(failed).toMatchObject({ state: 'failed', error: 'The file is not valid CSV' });
  });

  it('counts, filters, bounce resets and export pages', async () => {
    await stack.sql.query(
      `UPDATE mail.subscribers SET bounced_at = now(), bounce_count = 2, status = 'confirmed' WHERE email = 'new2@import.example'`,
    );
    expect(await mail.send<SubscriberCounts>(Patterns.mail.subscriberCounts, {})).toEqual({
      byStatus: { pending: 1, confirmed: 1, unsubscribed: 1, bounced: 1 },
      byFrequency: { 'each-post': 0, weekly: 0 },
    });
    const bounced = await mail.send<{ items: SubscriberView[]; total: number }>(
      Patterns.mail.listSubscribers,
      {
        status: 'bounced',
      },
    );
    expect(bounced.items.map((s) => s.email)).toEqual(['new2@import.example']);
    const like = await mail.send<{ items: SubscriberView[] }>(Patterns.mail.listSubscribers, { search: '_' });
    expect(like.items).toEqual([]);
    const reset = await mail.send<SubscriberView>(Patterns.mail.subscriberResetBounce, {
      id: bounced.items[0]!.id,
    });
    expect(reset).toMatchObject({ bounced: false, frequency: 'each-post' });
    expect(await count('bounce_count = 0 AND bounced_at IS NULL')).toBe(3);
    expect(await mail.failure(Patterns.mail.subscriberResetBounce, { id: 99999 })).toMatchObject({
      status: 404,
    });

    const first = await mail.send<{ items: SubscriberView[]; nextAfterId: number | null }>(
      Patterns.mail.subscriberExportPage,
      { afterId: 0, limit: 2 },
    );
    expect(first.items).toHaveLength(2);
    expect(first.nextAfterId).toBe(first.items[1]!.id);
    const rest = await mail.send<{ items: SubscriberView[]; nextAfterId: number | null }>(
      Patterns.mail.subscriberExportPage,
      { afterId: first.nextAfterId, limit: 2 },
    );
    expect(rest).toMatchObject({ nextAfterId: null });
    expect(first.items.length + rest.items.length).toBe(await count());
  });
});
