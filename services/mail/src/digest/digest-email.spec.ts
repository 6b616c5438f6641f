import type { PostView } from '@blog/contracts';
import { simpleParser } from 'mailparser';
import { createTransport } from 'nodemailer';
import { DigestEmail, toDigestPost } from './digest-email.js';
import { DigestCalendar } from './digest-calendar.js';

const post = (over: Partial<PostView>): PostView =>
  ({
    id: 7,
    title: 'New tyres',
    content: 'Short.',
    excerpt: 'Short.',
    url: '/garage/automobiles/new-tyres',
    created_at: '2026-11-18T10:00:00.000Z',
    mainMedia: null,
    ...over,
  }) as PostView;

describe('digest posts', () => {
  it('makes links and pictures absolute and cuts the excerpt', () => {
    const item = toDigestPost(
      post({
        // The posts service's plain text (at most 300 characters); the digest cuts it to 150.
        content: `**${'word '.repeat(40)}end**`,
        excerpt: `${'word '.repeat(40)}end`,
        mainMedia: { type: 'image', path: '/uploads/media/2026/tyres.webp' },
      }),
      'https://blog.example',
    );
    expect(item).toEqual({
      id: 7,
      title: 'New tyres',
      url: 'https://blog.example/garage/automobiles/new-tyres',
      image: 'https://blog.example/uploads/media/2026/tyres.webp',
      excerpt: `${'word '.repeat(29)}word...`,
      created_at: '2026-11-18T10:00:00.000Z',
    });
    expect(toDigestPost(post({ url: null }), 'https://blog.example').url).toBe('https://blog.example/post/7');
  });
});

describe('digest e-mail', () => {
  const content = {
    posts: [
      toDigestPost(
        post({
          title: 'Fish & <chips> à la crème 🐟',
          content: `*Crispy.* ${'batter '.repeat(30)}`,
          excerpt: `Crispy. ${'batter '.repeat(30)}`.trim(),
          mainMedia: { type: 'image', path: '/uploads/a.jpg' },
        }),
        'https://b.example',
      ),
    ],
    total: 3,
  };
  const email = new DigestEmail(content, {
    siteTitle: 'My "Blog"',
    siteUrl: 'https://b.example',
    timeZone: 'Asia/Tokyo',
    unsubscribeBase: 'https://b.example/api/unsubscribe?token=',
  });
  const token = (c: string) => c.repeat(43);

  it('personalises the unsubscribe link in the body and the one-click headers', () => {
    const mail = email.for('ann@example.org', token('a'));
    expect(mail.to).toBe('ann@example.org');
    expect(mail.subject).toBe('My "Blog": 1 new post this week');
    expect(mail.headers).toEqual({
      'List-Unsubscribe': `<https://b.example/api/unsubscribe?token=${token('a')}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    });
    const { text, html } = email.bodies(token('a'));
    expect(text).toContain(`Unsubscribe: https://b.example/api/unsubscribe?token=${token('a')}`);
    expect(html).toContain(`href="https://b.example/api/unsubscribe?token=${token('a')}"`);
    expect(email.bodies(token('b')).html).not.toContain(token('a'));
    expect(() => email.for('ann@example.org', 'not a token')).toThrow();
  });

  it('links the preferences page of each subscriber in the footer, beside the unsubscribe link', async () => {
    const withPreferences = new DigestEmail(content, {
      siteTitle: 'My "Blog"',
      siteUrl: 'https://b.example',
      timeZone: 'Asia/Tokyo',
      unsubscribeBase: 'https://b.example/api/unsubscribe?token=',
      preferencesBase: 'https://b.example/api/preferences?token=',
    });
    const { text, html } = withPreferences.bodies(token('a'), token('p'));
    expect(text).toContain(`https://b.example/api/preferences?token=${token('p')}`);
    expect(html).toContain(`href="https://b.example/api/preferences?token=${token('p')}"`);
    expect(html).toContain(`href="https://b.example/api/unsubscribe?token=${token('a')}"`);
    const info = await createTransport({ streamTransport: true, buffer: true }).sendMail({
      from: 'blog@b.example',
      ...withPreferences.for('ann@example.org', token('a'), token('p')),
    });
    const parsed = await simpleParser(info.message as Buffer);
    expect(parsed.text).toBe(text);
    expect(parsed.html).toBe(html);
    expect(() => withPreferences.for('ann@example.org', token('a'), 'bad')).toThrow();
  });

  it('escapes HTML, shows dates in the site time zone and links the rest', () => {
    const { text, html } = email.bodies(token('a'));
    expect(html).toContain('Fish &amp; &lt;chips&gt; à la crème 🐟');
    expect(html).not.toContain('<chips>');
    expect(html).toContain('<img src="https://b.example/uploads/a.jpg"');
    expect(html).toContain('November 18, 2026');
    expect(text).toContain('Fish & <chips> à la crème 🐟\nNovember 18, 2026\nCrispy. batter batter');
    expect(text).toContain('Read it: https://b.example/garage/automobiles/new-tyres');
    expect(text).toContain('…and 2 more on https://b.example');
  });

  it('builds a MIME message whose parts decode to exactly the rendered bodies', async () => {
    const transport = createTransport({ streamTransport: true, buffer: true });
    for (const t of [token('a'), `${'Zz09_-'.repeat(7)}q`]) {
      const info = await transport.sendMail({ from: 'blog@b.example', ...email.for('ann@example.org', t) });
      const raw = (info.message as Buffer).toString();
      const lines = raw.split('\r\n');
      // Body lines stay within 76 characters; only the folded List-Unsubscribe header is longer (a URL cannot fold).
      expect(lines.filter((line) => line.length > 76)).toEqual([
        ` <https://b.example/api/unsubscribe?token=${t}>`,
      ]);
      expect(raw).not.toMatch(/[^\r]\n/);
      const parsed = await simpleParser(info.message as Buffer);
      const { text, html } = email.bodies(t);
      expect(parsed.text).toBe(text);
      expect(parsed.html).toBe(html);
      expect(parsed.headers.get('content-type')).toMatchObject({ value: 'multipart/alternative' });
    }
  });
});

describe('digest weeks', () => {
  const calendar = new DigestCalendar('0 8 * * 1', 'Europe/Berlin');

  it('names a week by the Monday 08:00 (site time) that starts it', () => {
    // Monday 8 am in Berlin is 07:00 UTC in winter.
    expect(calendar.weekOf(new Date('2026-11-18T12:00:00Z')).toISOString()).toBe('2026-11-16T07:00:00.000Z');
    expect(calendar.weekOf(new Date('2026-11-16T07:00:00Z')).toISOString()).toBe('2026-11-16T07:00:00.000Z');
    expect(calendar.weekOf(new Date('2026-11-16T06:59:59Z')).toISOString()).toBe('2026-11-09T07:00:00.000Z');
    // Summer time: 06:00 UTC.
    expect(calendar.weekOf(new Date('2026-07-01T00:00:00Z')).toISOString()).toBe('2026-06-29T06:00:00.000Z');
  });

  it('finds the next occurrence', () => {
    expect(calendar.nextAfter(new Date('2026-11-16T07:00:00Z')).toISOString()).toBe(
      '2026-11-23T07:00:00.000Z',
    );
    expect(
      new DigestCalendar('30 18 * * 5', 'UTC').nextAfter(new Date('2026-11-18T00:00:00Z')).toISOString(),
    ).toBe('2026-11-20T18:30:00.000Z');
  });
});
