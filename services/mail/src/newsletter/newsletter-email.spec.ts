import { NewsletterEmail, emailHtml, isPlainAddress, oneLine } from './newsletter-email.js';
import { Pace, smtpFailure } from './smtp-outcome.js';

const SITE = 'https://blog.example';
const TOKEN = 'a'.repeat(43);
const PREFS = 'b'.repeat(43);

const post = (html: string, title = 'A title') => ({
  id: 7,
  title,
  url: `${SITE}/posts/7-a-title`,
  html,
  text: 'The text.',
  excerpt: 'The text.',
  published: '2026-11-20T10:00:00.000Z',
  pictures: [],
});

describe('a post as an e-mail', () => {
  it('keeps only allowed tags and attributes, and styles each element inline', () => {
    const html = emailHtml(
      '<h1 class="x">Head</h1><p style="color:red" onmouseover="x()">a <a href="/about" onclick="y()">b</a>' +
        '<a href="javascript:alert(1)">c</a><a href="//evil.example/x">d</a></p>' +
        '<script>alert(1)</script><style>p{}</style><iframe src="https://e.example"></iframe>' +
        '<form action="/x"><input name="q"></form><img src="/media/p.png" width="2000" height="1500">' +
        '<img src="data:image/png;base64,AAAA"><img src="javascript:x">' +
        '<svg><script>alert(1)</script></svg><object data="x"></object>',
      SITE,
    );
    expect(html).not.toMatch(
      /script|color:red|onmouseover|onclick|javascript|iframe|form|input|svg|object|data:/i,
    );
    expect(html).toContain('<h2 style="font-size:22px;line-height:1.3;margin:24px 0 12px">Head</h2>');
    expect(html).toContain(`<a href="${SITE}/about" style="color:#1f5fa8;text-decoration:underline">b</a>`);
    // A protocol-relative link is made absolute (https), like any other link to another site.
    expect(html).toContain(
      '<a href="https://evil.example/x" style="color:#1f5fa8;text-decoration:underline">d</a>',
    );
    expect(html).toContain('<a style="color:#1f5fa8;text-decoration:underline">c</a>');
    expect(html).toMatch(
      new RegExp(`<img src="${SITE}/media/p.png" alt="" width="552" style="display:block;max-width:100%`),
    );
    expect(html.match(/<img/g)).toHaveLength(1);
  });

  it('fills each copy with its own links, Message-ID and one-click unsubscribe', () => {
    const email = new NewsletterEmail(post('<p>Body</p>'), {
      siteTitle: 'My "Blog"',
      siteUrl: SITE,
      unsubscribeBase: `${SITE}/api/unsubscribe?token=`,
      preferencesBase: `${SITE}/api/preferences?token=`,
      replyTo: 'owner@blog.example',
    });
    const mail = email.for({ id: 12, email: 'reader@x.example', token: TOKEN, preferencesToken: PREFS });
    expect(mail.subject).toBe('A title');
    expect(mail.messageId).toBe('<newsletter-7-12@blog.example>');
    expect(mail.replyTo).toBe('owner@blog.example');
    expect(mail.headers).toEqual({
      'List-Unsubscribe': `<${SITE}/api/unsubscribe?token=${TOKEN}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    });
    expect(mail.list).toEqual({ id: { url: 'newsletter.blog.example', comment: 'My "Blog"' } });
    expect(mail.html).toContain(`href="${SITE}/api/unsubscribe?token=${TOKEN}"`);
    expect(mail.html).toContain(`href="${SITE}/api/preferences?token=${PREFS}"`);
    expect(mail.html).toContain('View in the browser');
    expect(mail.html).toContain('max-width:600px');
    expect(mail.text).toContain(`View in the browser: ${SITE}/posts/7-a-title`);
    expect(mail.text).toContain(`Unsubscribe: ${SITE}/api/unsubscribe?token=${TOKEN}`);
    expect(mail.text).toContain('The text.');
  });

  it('refuses an address that could add a header or a recipient, and keeps the subject on one line', () => {
    const email = new NewsletterEmail(post('<p>x</p>', 'Hi\r\nBcc: evil@x.example'), {
      siteTitle: 'Blog',
      siteUrl: SITE,
      unsubscribeBase: `${SITE}/api/unsubscribe?token=`,
    });
    expect(email.subject).toBe('Hi Bcc: evil@x.example');
    for (const address of [
      'a@x.example\r\nBcc: evil@x.example',
      'a@x.example, evil@x.example',
      '<a@x.example>',
      'a b@x',
    ]) {
      expect(isPlainAddress(address)).toBe(false);
      expect(() => email.for({ id: 1, email: address, token: TOKEN, preferencesToken: '' })).toThrow();
    }
    expect(oneLine(' a\n\tb\u2028c ')).toBe('a b c');
    expect(email.test('owner@blog.example').subject).toBe('[Test] Hi Bcc: evil@x.example');
    expect(email.test('owner@blog.example').headers).toBeUndefined();
  });

  it('reads SMTP failures: 5xx to RCPT TO is the address refused, other 5xx final, the rest temporary', () => {
    expect(smtpFailure({ responseCode: 550, command: 'RCPT TO' })).toBe('rejected');
    expect(smtpFailure({ responseCode: 554, command: 'DATA' })).toBe('permanent');
    expect(smtpFailure({ responseCode: 421, command: 'DATA' })).toBe('temporary');
    expect(smtpFailure({ responseCode: 451, command: 'RCPT TO' })).toBe('temporary');
    expect(smtpFailure({ code: 'ETIMEDOUT' })).toBe('temporary');
    expect(smtpFailure(new Error('Connection closed'))).toBe('temporary');
  });

  it('spaces sends at the rate', async () => {
    const pace = new Pace(6000); // one every 10 ms
    const start = Date.now();
    for (let i = 0; i < 5; i++) await pace.wait();
    expect(Date.now() - start).toBeGreaterThanOrEqual(35);
    const free = new Pace(0);
    await free.wait();
  });
});
