import {
  linkIn,
  startTestSmtp,
  type ReceivedMail,
  type TestSmtp,
} from '../../services/mail/test/support/smtp.js';
import { ADMIN, api, loginAs, startTestStack, type TestStack } from './support/test-stack.js';

const OWNER = 'owner@blog.example';
const contact = {
  name: 'Jane Reader',
  email: 'jane@reader.example',
  subject: 'Hello',
  message: 'Lovely blog.',
};
const isDigest = (mail: ReceivedMail) => / new posts? this week$/.test(mail.parsed.subject ?? '');

describe('mail through the gateway (real services, real SMTP server)', () => {
  let stack: TestStack;
  let smtp: TestSmtp;
  let admin: string;
  /** SITE_URL: the public address in e-mail links (nginx in front); the test calls the gateway directly. */
  const site = 'https://blog.example';

  const page = async (url: string, init: RequestInit = {}) => {
    const direct = url.startsWith(site) ? `${stack.baseUrl}${url.slice(site.length)}` : url;
    const response = await fetch(direct, { redirect: 'manual', ...init });
    return { status: response.status, headers: response.headers, html: await response.text() };
  };

  beforeAll(async () => {
    smtp = await startTestSmtp();
    stack = await startTestStack({
      SITE_URL: site,
      SMTP_URL: smtp.url,
      OWNER_EMAIL: OWNER,
      CONTACT_MAX_PER_IP: '2',
      MAIL_RETRY_INTERVAL_MS: '200',
    });
    admin = await loginAs(stack, ADMIN.username, ADMIN.password);
  });
  afterAll(async () => {
    await stack?.stop();
    await smtp?.close();
  });

  it('POST /api/contact stores and e-mails the message to the owner', async () => {
    const response = await api(stack, '/api/contact', {
      body: contact,
      headers: { 'x-forwarded-for': '203.0.113.1' },
    });
    expect(response.status).toBe(200);
    expect(response.json).toEqual({ success: true, message: 'Message sent successfully!' });
    const [mail] = await smtp.waitFor(1, (m) => m.to.includes(OWNER));
    expect(mail!.parsed.replyTo?.value).toEqual([{ name: 'Jane Reader', address: 'jane@reader.example' }]);
    expect(mail!.parsed.subject).toBe('[My Personal Blog] Hello');
    expect(mail!.parsed.text).toContain('Lovely blog.');
  });

  it.each([
    ['name is required', { ...contact, name: '' }],
    ['email must be a valid e-mail address', { ...contact, email: 'not-an-address' }],
    ['subject is required', { ...contact, subject: undefined }],
    ['message must be at most 5000 characters', { ...contact, message: 'x'.repeat(5001) }],
  ])('POST /api/contact answers 400 "%s" and changes nothing', async (error, body) => {
    const before = smtp.received.length;
    const response = await api(stack, '/api/contact', {
      body,
      headers: { 'x-forwarded-for': '203.0.113.2' },
    });
    expect(response.status).toBe(400);
    expect(response.json).toEqual({ error });
    const messages = await api(stack, '/api/admin/messages', { token: admin });
    expect(messages.headers.get('x-total-count')).toBe('1');
    expect(smtp.received.length).toBe(before);
  });

  it('a filled honeypot gets 200 and nothing happens; a third message from one IP gets 429', async () => {
    const ip = { 'x-forwarded-for': '203.0.113.3' };
    const trap = await api(stack, '/api/contact', {
      body: { ...contact, website: 'https://spam.example' },
      headers: ip,
    });
    expect(trap.status).toBe(200);
    expect(trap.json).toEqual({ success: true, message: 'Message sent successfully!' });
    for (let i = 0; i < 2; i++) {
      expect((await api(stack, '/api/contact', { body: contact, headers: ip })).status).toBe(200);
    }
    const blocked = await api(stack, '/api/contact', { body: contact, headers: ip });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(3000);
    expect(blocked.json).toEqual({ error: 'Too many messages from your address. Please try again later.' });
    const messages = await api(stack, '/api/admin/messages', { token: admin });
    expect(messages.headers.get('x-total-count')).toBe('3');
  });

  it('GET /api/admin/messages is paged, newest first', async () => {
    const response = await api(stack, '/api/admin/messages?limit=2&page=1', { token: admin });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.json).toHaveLength(2);
    expect(response.json[0]).toMatchObject({
      name: 'Jane Reader',
      email: 'jane@reader.example',
      subject: 'Hello',
    });
    const last = await api(stack, '/api/admin/messages?limit=2&page=2', { token: admin });
    expect(last.json).toHaveLength(1);
    expect((last.json[0] as { id: number }).id).toBeLessThan((response.json[1] as { id: number }).id);
    const bad = await api(stack, '/api/admin/messages?limit=500', { token: admin });
    expect(bad.status).toBe(400);
    expect(bad.json).toEqual({ error: 'limit must be at most 100' });
  });

  it('subscribe, confirm from the e-mail, get the digest, unsubscribe in one click', async () => {
    const subscribed = await api(stack, '/api/subscribe', { body: { email: 'sam@reader.example' } });
    expect(subscribed.status).toBe(200);
    expect(subscribed.json).toEqual({ success: true, message: expect.stringMatching(/confirm/) });
    const again = await api(stack, '/api/subscribe', { body: { email: 'sam@reader.example' } });
    expect(again.json).toEqual(subscribed.json);
    expect((await api(stack, '/api/subscribe', { body: { email: 'nope' } })).json).toEqual({
      error: 'email must be a valid e-mail address',
    });

    // The confirmation link opens a small self-contained page.
    const [confirmation] = await smtp.waitFor(1, (m) => m.to.includes('sam@reader.example'));
    const confirmLink = linkIn(confirmation!, `${site}/api/subscribe/confirm?token=`);
    const confirmed = await page(confirmLink);
    expect(confirmed.status).toBe(200);
    expect(confirmed.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(confirmed.html).toContain('Subscription confirmed');
    expect(confirmed.html).toContain('s***@reader.example');
    expect(confirmed.html).not.toMatch(/<script|<link|src=|https?:\/\//);
    const csp = confirmed.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("form-action 'self'");
    expect(confirmed.headers.get('cache-control')).toBe('no-store');
    const subscribers = await api(stack, '/api/admin/subscribers?status=confirmed', { token: admin });
    expect(subscribers.json).toEqual([
      expect.objectContaining({
        email: 'sam@reader.example',
        status: 'confirmed',
        confirmed_at: expect.any(String),
      }),
    ]);

    const invalid = await page(`${site}/api/subscribe/confirm?token=${'x'.repeat(43)}`);
    expect(invalid.status).toBe(404);
    expect(invalid.html).toContain('This link is invalid or has expired.');
    expect((await page(`${site}/api/subscribe/confirm`)).status).toBe(404);

    // The owner writes a post and sends the digest now.
    const form = new FormData();
    form.set('title', 'Solar shed, finished');
    form.set('content', 'The panels are up and the shed lights itself at night.');
    form.set('category', 'Projects');
    form.set('youtubeUrls', JSON.stringify(['https://youtu.be/dQw4w9WgXcQ']));
    const created = await fetch(`${stack.baseUrl}/api/posts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}` },
      body: form,
    });
    expect(created.status).toBe(201);
    const post = (await created.json()) as { url: string };
    const run = await api(stack, '/api/admin/digest', { method: 'POST', token: admin });
    expect(run.status).toBe(200);
    expect(run.json).toEqual({ week: expect.any(String), sent: 1, posts: 1, skipped: false });
    const [digest] = await smtp.waitFor(1, isDigest);
    expect(digest!.to).toEqual(['sam@reader.example']);
    expect(digest!.parsed.html).toContain(`href="${site}${post.url}"`);
    expect(digest!.parsed.text).toContain('The panels are up and the shed lights itself at night.');
    const again2 = await api(stack, '/api/admin/digest', { method: 'POST', token: admin });
    expect(again2.json).toMatchObject({ sent: 0, posts: 1 });

    // The unsubscribe link: GET asks, POST (RFC 8058 one-click) acts.
    const unsubscribeUrl = /^<(.+)>$/.exec(digest!.header('list-unsubscribe')!)![1]!;
    expect(unsubscribeUrl.startsWith(`${site}/api/unsubscribe?token=`)).toBe(true);
    const ask = await page(unsubscribeUrl);
    expect(ask.status).toBe(200);
    expect(ask.html).toContain('<form method="post">');
    expect(ask.html).toContain('s***@reader.example');
    const stillConfirmed = await api(stack, '/api/admin/subscribers', { token: admin });
    expect(stillConfirmed.json).toEqual([expect.objectContaining({ status: 'confirmed' })]);
    const oneClick = await page(unsubscribeUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    expect(oneClick.status).toBe(200);
    expect(oneClick.html).toContain('You are unsubscribed');
    const after = await api(stack, '/api/admin/subscribers', { token: admin });
    expect(after.json).toEqual([
      expect.objectContaining({
        email: 'sam@reader.example',
        status: 'unsubscribed',
        unsubscribed_at: expect.any(String),
      }),
    ]);
    expect(after.headers.get('x-total-count')).toBe('1');
    expect((await page(unsubscribeUrl)).html).toContain('You are unsubscribed');
    expect((await page(`${site}/api/unsubscribe?token=nope`, { method: 'POST' })).status).toBe(404);
  });

  it('admin routes need the admin role', async () => {
    expect((await api(stack, '/api/admin/digest', { method: 'POST' })).status).toBe(401);
    await api(stack, '/api/auth/register', { body: { username: 'mailreader', password: 'reader-password' } });
    const user = await loginAs(stack, 'mailreader', 'reader-password');
    for (const [method, path] of [
      ['POST', '/api/admin/digest'],
      ['GET', '/api/admin/messages'],
      ['GET', '/api/admin/subscribers'],
    ]) {
      expect((await api(stack, path!, { method, token: user })).status).toBe(403);
    }
  });
});
