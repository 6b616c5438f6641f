import { Patterns, type NewsletterStatus } from '@blog/contracts';
import { eventually, startMailStack, type MailStack } from './support/mail-stack.js';
import { startFaultySmtp, type FaultySmtp } from './support/faulty-smtp.js';

const SITE = 'https://blog.example';

/** A post published with "Send by e-mail" through the real posts service reaches each each-post subscriber once. */
describe('every post by e-mail with the real posts service', () => {
  let smtp: FaultySmtp;
  let stack: MailStack;

  beforeAll(async () => {
    smtp = await startFaultySmtp();
    stack = await startMailStack({ SMTP_URL: smtp.url, SITE_URL: SITE, MAIL_RETRY_INTERVAL_MS: '200' });
  });
  afterAll(async () => {
    await stack?.stop();
    await smtp?.close();
  });

  it('sends the whole post once to each each-post subscriber, and nothing for a post without the box', async () => {
    const readers = ['one@readers.example', 'two@readers.example', 'three@readers.example'];
    const mail = await stack.startMail(); // its migrations make the mail schema
    await stack.sql.query(
      `INSERT INTO mail.subscribers (email, status, confirmed_at, frequency)
       SELECT e, 'confirmed', now(), 'each-post' FROM unnest($1::text[]) AS e`,
      [readers],
    );
    await stack.sql.query(
      `INSERT INTO mail.subscribers (email, status, confirmed_at) VALUES ('weekly@readers.example', 'confirmed', now())`,
    );
    const quiet = await stack.createPost({ title: 'Not by e-mail', content: 'Quiet.', sendByEmail: 'false' });
    const post = await stack.createPost({
      title: 'Sent by e-mail',
      content: 'The **whole** text, with [a link](/about).\n\nA second paragraph.',
      sendByEmail: 'true',
    });
    const status = await eventually(async () => {
      const current = await mail.send<NewsletterStatus>(Patterns.mail.newsletterStatus, { postId: post.id });
      return current.status === 'sent' ? current : null;
    }, 30_000);
    expect(status).toMatchObject({ total: 3, sent: 3, failed: 0 });
    expect(smtp.accepted.map((m) => m.to[0]).sort()).toEqual([...readers].sort());
    const parsed = await smtp.accepted[0]!.parsed();
    expect(parsed.subject).toBe('Sent by e-mail');
    expect(String(parsed.html)).toContain('<strong>whole</strong>');
    expect(String(parsed.html)).toContain('A second paragraph.');
    expect(String(parsed.html)).not.toContain('<script');
    expect(parsed.text).toContain('A second paragraph.');
    expect(await mail.send(Patterns.mail.newsletterStatus, { postId: quiet.id })).toMatchObject({
      status: 'none',
    });
  });
});
