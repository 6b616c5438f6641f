import { NEWSLETTER_SEND_STATES } from '@blog/contracts';
import { linkIn, startTestSmtp, type TestSmtp } from '../../services/mail/test/support/smtp.js';
import { multipart, type Part } from './support/media-fixtures.js';
import { ADMIN, api, loginAs, startTestStack, type TestStack } from './support/test-stack.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A post's e-mail through the gateway: the form's sendByEmail field and the owner's routes. */
describe('a post by e-mail through the gateway (real services, real SMTP server)', () => {
  let stack: TestStack;
  let smtp: TestSmtp;
  let admin: string;
  let reader: string;

  const send = async (method: 'POST' | 'PUT', path: string, parts: Part[], token = admin) => {
    const { body, contentType } = multipart(parts);
    const response = await fetch(`${stack.baseUrl}${path}`, {
      method,
      headers: { 'content-type': contentType, authorization: `Bearer ${token}` },
      body,
    });
    const text = await response.text();
    return { status: response.status, json: (text ? JSON.parse(text) : undefined) as Json };
  };
  const postFields = (title: string, more: Record<string, string> = {}): Part[] =>
    Object.entries({
      title,
      content: `The text of ${title}.`,
      category: 'Garage',
      submenu1: 'Automobiles',
      status: 'published',
      date: '2024-03-01T10:00:00.000Z',
      ...more,
    }).map(([name, value]) => ({ name, value }));

  beforeAll(async () => {
    smtp = await startTestSmtp();
    stack = await startTestStack({
      SITE_URL: 'https://blog.example',
      SMTP_URL: smtp.url,
      OWNER_EMAIL: 'owner@blog.example',
      MAIL_RETRY_INTERVAL_MS: '200',
    });
    admin = await loginAs(stack, ADMIN.username, ADMIN.password);
    await api(stack, '/api/auth/register', { body: { username: 'mailreader', password: 'reader-password' } });
    reader = await loginAs(stack, 'mailreader', 'reader-password');
  });
  afterAll(async () => {
    await stack?.stop();
    await smtp?.close();
  });

  it('POST and PUT /api/posts take sendByEmail; the admin reads it back, a visitor never sees it', async () => {
    const created = await send('POST', '/api/posts', postFields('By e-mail', { sendByEmail: 'true' }));
    expect(created.status).toBe(201);
    expect(created.json.sendByEmail).toBe(true);
    const quiet = await send('POST', '/api/posts', postFields('Not by e-mail'));
    expect(quiet.json.sendByEmail).toBe(false);
    const edited = await send('PUT', `/api/posts/${quiet.json.id}`, postFields('Not by e-mail, edited'));
    expect(edited.json.sendByEmail).toBe(false);

    const refused = await send('POST', '/api/posts', postFields('Refused', { sendByEmail: 'yes' }));
    expect(refused.status).toBe(400);
    expect(refused.json.error).toMatch(/sendByEmail must be true or false/);

    const asVisitor = await api(stack, `/api/posts/${created.json.id}`);
    expect(asVisitor.status).toBe(200);
    expect(asVisitor.json).not.toHaveProperty('sendByEmail');
  });

  it('the owner’s routes: 401 signed out, 403 for a reader, 400 for an id that is none', async () => {
    const routes: { path: string; method: string }[] = [
      { path: '/api/admin/posts/1/email', method: 'GET' },
      { path: '/api/admin/posts/1/email/test', method: 'POST' },
      { path: '/api/admin/newsletter/audience', method: 'GET' },
    ];
    for (const { path, method } of routes) {
      expect((await api(stack, path, { method })).status).toBe(401);
      expect((await api(stack, path, { method, token: reader })).status).toBe(403);
    }
    for (const id of ['0', 'abc', '-1', '1.5', '9999999999']) {
      expect((await api(stack, `/api/admin/posts/${id}/email`, { token: admin })).status).toBe(400);
      expect(
        (await api(stack, `/api/admin/posts/${id}/email/test`, { method: 'POST', token: admin })).status,
      ).toBe(400);
    }
  });

  it('the status of a post’s e-mail, the audience, and a test to the owner', async () => {
    const post = await send('POST', '/api/posts', postFields('Tested', { sendByEmail: 'false' }));
    const status = await api(stack, `/api/admin/posts/${post.json.id}/email`, { token: admin });
    expect(status.status).toBe(200);
    expect(status.headers.get('cache-control')).toBe('no-store');
    expect(NEWSLETTER_SEND_STATES).toContain(status.json.status);
    expect(status.json).toMatchObject({ status: 'none', total: 0, sent: 0 });

    const audience = await api(stack, '/api/admin/newsletter/audience', { token: admin });
    expect(audience.status).toBe(200);
    expect(audience.json).toEqual({ eachPost: expect.any(Number) });

    const test = await api(stack, `/api/admin/posts/${post.json.id}/email/test`, {
      method: 'POST',
      token: admin,
    });
    expect(test.status).toBe(200);
    expect(test.json).toEqual({ sentTo: 'owner@blog.example' });
    const [mail] = await smtp.waitFor(1, (m) => m.to.includes('owner@blog.example'));
    expect(mail!.parsed.subject).toContain('Tested');

    // A draft can be tried out before it is published; its e-mail is owed to no one.
    const draft = await send(
      'POST',
      '/api/posts',
      postFields('Draft tried out', { status: 'draft', sendByEmail: 'true' }),
    );
    const tried = await api(stack, `/api/admin/posts/${draft.json.id}/email/test`, {
      method: 'POST',
      token: admin,
    });
    expect(tried.status).toBe(200);
    await smtp.waitFor(
      1,
      (m) => m.to.includes('owner@blog.example') && String(m.parsed.subject).includes('Draft tried out'),
    );
    const draftStatus = await api(stack, `/api/admin/posts/${draft.json.id}/email`, { token: admin });
    expect(draftStatus.json).toMatchObject({ status: 'none', sent: 0 });
    expect(
      (await api(stack, '/api/admin/posts/999999/email/test', { method: 'POST', token: admin })).status,
    ).toBe(404);
  });

  it('a post published with sendByEmail reaches an each-post subscriber once; an edit sends nothing more', async () => {
    const email = 'every-post@reader.example';
    expect((await api(stack, '/api/subscribe', { body: { email, frequency: 'each-post' } })).status).toBe(
      200,
    );
    const [confirmation] = await smtp.waitFor(1, (m) => m.to.includes(email));
    const confirm = linkIn(confirmation!, 'https://blog.example/api/subscribe/confirm?token=');
    expect((await fetch(`${stack.baseUrl}${confirm.slice('https://blog.example'.length)}`)).status).toBe(200);
    const audience = await api(stack, '/api/admin/newsletter/audience', { token: admin });
    expect(audience.json).toEqual({ eachPost: 1 });

    const title = 'New brake pads';
    const post = await send('POST', '/api/posts', postFields(title, { sendByEmail: 'true' }));
    expect(post.status).toBe(201);
    const isThePost = (m: { to: string[]; parsed: { subject?: string } }) =>
      m.to.includes(email) && (m.parsed.subject ?? '').includes(title);
    const [mail] = await smtp.waitFor(1, isThePost, 30_000);
    expect(mail!.parsed.html).toContain('The text of New brake pads.');
    for (;;) {
      const status = await api(stack, `/api/admin/posts/${post.json.id}/email`, { token: admin });
      if (status.json.status === 'sent') {
        expect(status.json).toMatchObject({ total: 1, sent: 1 });
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    // Edited, retitled, unpublished and published again: never owed twice.
    await send(
      'PUT',
      `/api/posts/${post.json.id}`,
      postFields(title, { content: 'Changed.', sendByEmail: 'true' }),
    );
    await send(
      'PUT',
      `/api/posts/${post.json.id}`,
      postFields(title, { status: 'draft', sendByEmail: 'true' }),
    );
    await send('PUT', `/api/posts/${post.json.id}`, postFields(title, { sendByEmail: 'true' }));
    // A later post is owed after them: had the edits owed anything, it would have been handed over first.
    const later = await send('POST', '/api/posts', postFields('Later post', { sendByEmail: 'true' }));
    await smtp.waitFor(
      1,
      (m) => m.to.includes(email) && (m.parsed.subject ?? '').includes('Later post'),
      30_000,
    );
    expect(later.status).toBe(201);
    expect(smtp.received.filter(isThePost)).toHaveLength(1);
  });
});
