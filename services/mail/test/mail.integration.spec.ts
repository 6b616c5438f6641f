import { MailText, Patterns, type MailAck, type MailListResult, type SubscriberView } from '@blog/contracts';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { eventually, startMailStack, type MailReplica, type MailStack } from './support/mail-stack.js';
import { linkIn, startInProcessSmtp, startTestSmtp, type TestSmtp } from './support/smtp.js';

const OWNER = 'owner@blog.example';
const SITE = 'https://blog.example';
const contact = (extra: Record<string, unknown> = {}) => ({
  name: 'Jane Reader',
  email: 'jane@reader.example',
  subject: 'Your sourdough post',
  message: 'Hello!\nHow long do you let it rise?',
  ip: '198.51.100.7',
  ...extra,
});

describe('mail service: contact and subscriptions (real PostgreSQL, real SMTP server)', () => {
  let stack: MailStack;
  let smtp: TestSmtp;
  let mail: MailReplica;

  const count = async (table: string, where = 'true') =>
    Number((await stack.sql.query(`SELECT count(*) AS n FROM mail.${table} WHERE ${where}`)).rows[0].n);

  beforeAll(async () => {
    smtp = await startTestSmtp();
    stack = await startMailStack({
      SMTP_URL: smtp.url,
      OWNER_EMAIL: OWNER,
      MAIL_FROM: 'My Blog <blog@blog.example>',
      SITE_URL: `${SITE}/`,
      MAIL_RETRY_INTERVAL_MS: '150',
      // Retries stay a second apart at most: the back-off's doubling otherwise outgrows the wait for
      // the relay's return on a loaded machine (a full CI run once waited past 10 s).
      MAIL_RETRY_MAX_DELAY: '1',
      CONTACT_MAX_PER_IP: '3',
      SUBSCRIBE_MAX_PER_IP: '4',
    });
    mail = await stack.startMail();
  });
  afterAll(async () => {
    await stack?.stop();
    await smtp?.close();
  });

  describe('contact', () => {
    it('stores the message, then e-mails the owner with Reply-To set to the visitor', async () => {
      const before = smtp.received.length;
      const answer = await mail.send<MailAck>(Patterns.mail.contact, contact());
      expect(answer).toEqual({ success: true, message: 'Message sent successfully!' });
      const [received] = (await smtp.waitFor(before + 1)).slice(before);
      expect(received!.to).toEqual([OWNER]);
      expect(received!.parsed.from?.value).toEqual([{ name: 'My Blog', address: 'blog@blog.example' }]);
      expect(received!.parsed.replyTo?.value).toEqual([
        { name: 'Jane Reader', address: 'jane@reader.example' },
      ]);
      expect(received!.parsed.subject).toBe('[My Personal Blog] Your sourdough post');
      expect(received!.parsed.text).toContain('Hello!\nHow long do you let it rise?');
      expect(received!.parsed.text).toContain('From: Jane Reader <jane@reader.example>');
      const row = await eventually(async () => {
        const { rows } = await stack.sql.query(`SELECT * FROM mail.contact_messages WHERE status = 'sent'`);
        return rows[0];
      });
      expect(row).toMatchObject({
        name: 'Jane Reader',
        subject: 'Your sourdough post',
        attempts: 1,
        ip: '198.51.100.7',
      });
      expect(received!.header('x-blog-contact-id')).toBe(String(row.id));
    });

    it.each([
      ['name', 'name is required', { name: '  ' }],
      ['email', 'email must be a valid e-mail address', { email: 'jane at reader' }],
      ['email', 'email is required', { email: undefined }],
      ['subject', 'subject must be at most 200 characters', { subject: 's'.repeat(201) }],
      ['message', 'message is required', { message: '' }],
    ])('rejects a bad %s (%s) and changes nothing', async (field, error, extra) => {
      const [messages, limits, received] = [
        await count('contact_messages'),
        await count('rate_windows'),
        smtp.received.length,
      ];
      expect(await mail.failure(Patterns.mail.contact, contact(extra))).toEqual({
        status: 400,
        error,
        field,
      });
      expect(await count('contact_messages')).toBe(messages);
      expect(await count('rate_windows')).toBe(limits);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(smtp.received.length).toBe(received);
    });

    it('answers a filled honeypot as if it was sent, and stores and sends nothing', async () => {
      const [messages, received] = [await count('contact_messages'), smtp.received.length];
      const answer = await mail.send<MailAck>(
        Patterns.mail.contact,
        contact({ website: 'http://spam.example' }),
      );
      expect(answer).toEqual({ success: true, message: MailText.contactSent });
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(await count('contact_messages')).toBe(messages);
      expect(smtp.received.length).toBe(received);
    });

    it('limits messages per IP (429 with Retry-After), counted in the database', async () => {
      const ip = '203.0.113.99';
      for (let i = 0; i < 3; i++) await mail.send(Patterns.mail.contact, contact({ ip }));
      const blocked = await mail.failure(Patterns.mail.contact, contact({ ip }));
      expect(blocked).toMatchObject({ status: 429, error: MailText.tooManyMessages });
      expect(blocked.retryAfter).toBeGreaterThan(3500);
      // Another replica shares the count; another IP does not.
      const other = await stack.startMail();
      expect((await other.failure(Patterns.mail.contact, contact({ ip }))).status).toBe(429);
      await expect(
        other.send(Patterns.mail.contact, contact({ ip: '203.0.113.100' })),
      ).resolves.toMatchObject({
        success: true,
      });
      await other.close();
    });

    it('keeps a message when SMTP is down and delivers it once the server is back', async () => {
      await smtp.waitFor(await count('contact_messages')); // earlier messages are all delivered
      await smtp.stop();
      const answer = await mail.send<MailAck>(
        Patterns.mail.contact,
        contact({ subject: 'Sent while the relay is down', ip: '192.0.2.44' }),
      );
      expect(answer.success).toBe(true);
      // Stored at once, and the failed try is recorded.
      const stored = await eventually(async () => {
        const { rows } = await stack.sql.query(
          `SELECT * FROM mail.contact_messages WHERE subject = 'Sent while the relay is down' AND last_error IS NOT NULL`,
        );
        return rows[0];
      });
      expect(stored.status).toBe('pending');
      await new Promise((resolve) => setTimeout(resolve, 400));
      await smtp.start();
      const [arrived] = await smtp.waitFor(
        1,
        (m) => m.parsed.subject === '[My Personal Blog] Sent while the relay is down',
      );
      expect(arrived!.to).toEqual([OWNER]);
      const sent = await eventually(async () => {
        const { rows } = await stack.sql.query(
          `SELECT * FROM mail.contact_messages WHERE id = $1 AND status = 'sent'`,
          [stored.id],
        );
        return rows[0];
      });
      expect(sent.attempts).toBeGreaterThanOrEqual(2);
      expect(sent.last_error).toBeNull();
      // Exactly once.
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(
        smtp.received.filter((m) => m.parsed.subject?.endsWith('Sent while the relay is down')),
      ).toHaveLength(1);
    });

    it('lists messages for the owner, newest first and paged', async () => {
      const total = await count('contact_messages');
      const page1 = await mail.send<MailListResult<Record<string, unknown>>>(Patterns.mail.listMessages, {
        page: 1,
        limit: 2,
      });
      expect(page1.total).toBe(total);
      expect(page1.items).toHaveLength(2);
      expect(page1.items[0]).toMatchObject({ subject: 'Sent while the relay is down', status: 'sent' });
      expect(Object.keys(page1.items[0]!).sort()).toEqual(
        [
          'attempts',
          'created_at',
          'email',
          'id',
          'last_error',
          'message',
          'name',
          'sent_at',
          'status',
          'subject',
        ].sort(),
      );
      const page2 = await mail.send<MailListResult<{ id: number }>>(Patterns.mail.listMessages, {
        page: 2,
        limit: 2,
      });
      expect(page2.items[0]!.id).toBeLessThan((page1.items[1] as { id: number }).id);
      const pending = await mail.send<MailListResult<unknown>>(Patterns.mail.listMessages, {
        status: 'pending',
      });
      expect(pending).toEqual({ items: [], total: 0 });
      expect(await mail.failure(Patterns.mail.listMessages, { limit: 1000 })).toMatchObject({
        status: 400,
        field: 'limit',
      });
    });
  });

  describe('subscriptions (double opt-in)', () => {
    const confirmations = (address: string) =>
      smtp.to(address).filter((m) => m.parsed.subject === 'Confirm your subscription to My Personal Blog');

    it('stores a pending subscription and e-mails a confirmation link; the link confirms', async () => {
      const answer = await mail.send<MailAck>(Patterns.mail.subscribe, {
        email: 'sam@reader.example',
        ip: '10.1.1.1',
      });
      expect(answer).toEqual({ success: true, message: MailText.subscribeRequested });
      const [confirmation] = await smtp.waitFor(1, (m) => m.to.includes('sam@reader.example'));
      expect(confirmation!.parsed.html).toContain('Confirm my subscription');
      const link = linkIn(confirmation!, `${SITE}/api/subscribe/confirm?token=`);
      const token = new URL(link).searchParams.get('token')!;
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const { rows } = await stack.sql.query(
        `SELECT * FROM mail.subscribers WHERE email = 'sam@reader.example'`,
      );
      expect(rows).toMatchObject([{ status: 'pending', confirmed_at: null }]);
      // Only a hash of the token is stored.
      const tokens = await stack.sql.query(
        `SELECT hash, purpose FROM mail.mail_tokens WHERE subscriber_id = $1`,
        [rows[0].id],
      );
      expect(tokens.rows).toEqual([{ hash: expect.stringMatching(/^[0-9a-f]{64}$/), purpose: 'confirm' }]);
      expect(JSON.stringify(tokens.rows)).not.toContain(token);

      await expect(mail.send(Patterns.mail.confirm, { token })).resolves.toEqual({
        email: 's***@reader.example',
        status: 'confirmed',
      });
      // Opening it again is harmless.
      await expect(mail.send(Patterns.mail.confirm, { token })).resolves.toMatchObject({
        status: 'confirmed',
      });
      const after = await stack.sql.query(`SELECT status, confirmed_at FROM mail.subscribers WHERE id = $1`, [
        rows[0].id,
      ]);
      expect(after.rows[0]).toMatchObject({ status: 'confirmed', confirmed_at: expect.any(Date) });
    });

    it('subscribing twice sends a fresh confirmation, keeps one row and answers the same', async () => {
      const first = await mail.send(Patterns.mail.subscribe, {
        email: 'twice@reader.example',
        ip: '10.1.1.2',
      });
      await smtp.waitFor(1, (m) => m.to.includes('twice@reader.example'));
      const second = await mail.send(Patterns.mail.subscribe, {
        email: 'TWICE@Reader.example',
        ip: '10.1.1.2',
      });
      expect(second).toEqual(first);
      await eventually(() => confirmations('twice@reader.example').length === 2);
      const [a, b] = confirmations('twice@reader.example').map((m) =>
        linkIn(m, `${SITE}/api/subscribe/confirm?token=`),
      );
      expect(a).not.toBe(b);
      expect(await count('subscribers', `lower(email) = 'twice@reader.example'`)).toBe(1);
      // An already confirmed address: the same answer, it stays confirmed, and no second row.
      const again = await mail.send(Patterns.mail.subscribe, { email: 'Sam@reader.example', ip: '10.1.1.3' });
      expect(again).toEqual(first);
      await eventually(() => confirmations('sam@reader.example').length === 2);
      const { rows } = await stack.sql.query(
        `SELECT status FROM mail.subscribers WHERE lower(email) = 'sam@reader.example'`,
      );
      expect(rows).toEqual([{ status: 'confirmed' }]);
    });

    it('refuses unknown, malformed and wrong-purpose tokens', async () => {
      const unknown = 'A'.repeat(43);
      expect(await mail.failure(Patterns.mail.confirm, { token: unknown })).toEqual({
        status: 404,
        error: MailText.invalidLink,
      });
      for (const token of ['short', `${unknown}=`, 42, undefined]) {
        expect(await mail.failure(Patterns.mail.confirm, { token })).toEqual({
          status: 404,
          error: MailText.invalidLink,
        });
      }
      // A confirmation token cannot unsubscribe.
      const [confirmation] = confirmations('twice@reader.example');
      const token = new URL(linkIn(confirmation!, `${SITE}/api/subscribe/confirm?token=`)).searchParams.get(
        'token',
      );
      expect((await mail.failure(Patterns.mail.unsubscribe, { token })).status).toBe(404);
      expect((await mail.failure(Patterns.mail.unsubscribeInfo, { token })).status).toBe(404);
    });

    it('an expired confirmation link no longer works', async () => {
      await mail.send(Patterns.mail.subscribe, { email: 'late@reader.example', ip: '10.1.1.4' });
      const [confirmation] = await smtp.waitFor(1, (m) => m.to.includes('late@reader.example'));
      const token = new URL(linkIn(confirmation!, `${SITE}/api/subscribe/confirm?token=`)).searchParams.get(
        'token',
      );
      await stack.sql.query(`UPDATE mail.mail_tokens SET expires_at = now() - interval '1 second'`);
      expect((await mail.failure(Patterns.mail.confirm, { token })).status).toBe(404);
    });

    it('rejects a bad address and limits requests per IP', async () => {
      expect(await mail.failure(Patterns.mail.subscribe, { email: 'nope', ip: '10.2.2.2' })).toEqual({
        status: 400,
        error: 'email must be a valid e-mail address',
        field: 'email',
      });
      for (let i = 0; i < 4; i++)
        await mail.send(Patterns.mail.subscribe, { email: `r${i}@reader.example`, ip: '10.3.3.3' });
      expect(
        await mail.failure(Patterns.mail.subscribe, { email: 'r9@reader.example', ip: '10.3.3.3' }),
      ).toMatchObject({
        status: 429,
        error: MailText.tooManySubscriptions,
      });
      expect(await count('subscribers', `email = 'r9@reader.example'`)).toBe(0);
    });

    it('resends a confirmation whose first send failed', async () => {
      await smtp.stop();
      await mail.send(Patterns.mail.subscribe, { email: 'retry@reader.example', ip: '10.4.4.4' });
      await eventually(
        async () =>
          (await count(
            'subscribers',
            `email = 'retry@reader.example' AND confirmation_attempts = 1 AND confirmation_due_at < now() + interval '10 seconds'`,
          )) === 1,
      );
      await smtp.start();
      // The retry is due within 10 s, then a sweep sends it: a minute of room for a busy machine.
      const [confirmation] = await smtp.waitFor(1, (m) => m.to.includes('retry@reader.example'), 60_000);
      await expect(
        mail.send(Patterns.mail.confirm, {
          token: new URL(linkIn(confirmation!, `${SITE}/api/subscribe/confirm?token=`)).searchParams.get(
            'token',
          ),
        }),
      ).resolves.toMatchObject({ status: 'confirmed' });
      await eventually(
        async () =>
          (await count('subscribers', `email = 'retry@reader.example' AND confirmation_due_at IS NULL`)) ===
          1,
      );
    });

    it('lists subscribers for the owner, paged and by status', async () => {
      const all = await mail.send<MailListResult<SubscriberView>>(Patterns.mail.listSubscribers, {
        limit: 100,
      });
      expect(all.total).toBe(await count('subscribers'));
      expect(all.items[0]!.email).toBe('retry@reader.example');
      expect(Object.keys(all.items[0]!).sort()).toEqual(
        [
          'bounced',
          'confirmed_at',
          'created_at',
          'email',
          'frequency',
          'id',
          'status',
          'unsubscribed_at',
        ].sort(),
      );
      const confirmed = await mail.send<MailListResult<SubscriberView>>(Patterns.mail.listSubscribers, {
        status: 'confirmed',
      });
      expect(confirmed.items.map((s) => s.email).sort()).toEqual([
        'retry@reader.example',
        'sam@reader.example',
      ]);
      const paged = await mail.send<MailListResult<SubscriberView>>(Patterns.mail.listSubscribers, {
        page: 2,
        limit: 3,
      });
      expect(paged.items).toHaveLength(3);
      expect(paged.total).toBe(all.total);
      expect(paged.items[0]!.id).toBe(all.items[3]!.id);
    });
  });

  describe('transports', () => {
    it('writes .eml files to DATA_DIR/outbox without SMTP_URL', async () => {
      const outboxReplica = await stack.startMail({ SMTP_URL: '' });
      await outboxReplica.send(Patterns.mail.contact, contact({ subject: 'To the outbox', ip: '10.9.9.9' }));
      const outbox = join(stack.env.DATA_DIR!, 'outbox');
      // This replica may also retry an earlier test's unsent e-mail into the outbox: find ours.
      const eml = await eventually(async () => {
        const files = (await readdir(outbox).catch(() => [])).filter((f) => f.endsWith('.eml'));
        const texts = await Promise.all(files.map((f) => readFile(join(outbox, f), 'utf8')));
        return texts.find((text) => /^Subject: \[My Personal Blog\] To the outbox$/m.test(text));
      });
      expect(eml).toMatch(/^To: owner@blog\.example$/m);
      expect(eml).toMatch(/^Reply-To: Jane Reader <jane@reader\.example>$/m);
      await outboxReplica.close();
    });

    it('sends over TLS when the URL is smtps://', async () => {
      const tls = await startInProcessSmtp({ secure: true, disabledCommands: ['AUTH'] });
      const tlsReplica = await stack.startMail({
        SMTP_URL: `smtps://127.0.0.1:${tls.port}/?tls.rejectUnauthorized=false`,
      });
      await tlsReplica.send(Patterns.mail.contact, contact({ subject: 'Over TLS', ip: '10.9.9.8' }));
      // This replica may also send an earlier test's unsent e-mail (a confirmation) first: find ours.
      const [received] = await tls.waitFor(
        1,
        (mail) => mail.parsed.subject === '[My Personal Blog] Over TLS',
      );
      expect(received!.to).toEqual(['owner@blog.example']);
      await tlsReplica.close();
      await tls.close();
    });
  });
});
