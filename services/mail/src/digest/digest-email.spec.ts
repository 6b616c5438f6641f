import type { PostView } from '@blog/contracts';
import { DigestEmail, toDigestPost } from './digest-email.js';
import { DigestCalendar } from './digest-week.js';

const post = (over: Partial<PostView>): PostView =>
  ({
    id: 7,
    title: 'New tyres',
    content: 'Short.',
    url: '/garage/automobiles/new-tyres',
    created_at: '2026-11-18T10:00:00.000Z',
    mainMedia: null,
    ...over,
  }) as PostView;

describe('digest posts', () => {
  it('makes links and pictures absolute and cuts the excerpt', () => {
    const item = toDigestPost(
      post({
        content: `${'word '.repeat(40)}end`,
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
        post({ title: 'Fish & <chips>', mainMedia: { type: 'image', path: '/uploads/a.jpg' } }),
        'https://b.example',
      ),
    ],
    total: 3,
  };
  const email = new DigestEmail(content, {
    siteTitle: 'My "Blog"',
    siteUrl: 'https://b.example',
    timeZone: 'Asia/Tokyo',
  });

  it('personalises the unsubscribe link in the body and the one-click headers', () => {
    const mail = email.for('ann@example.org', 'https://b.example/api/unsubscribe?token=abc');
    expect(mail.to).toBe('ann@example.org');
    expect(mail.subject).toBe('My "Blog": 1 new post this week');
    expect(mail.headers).toEqual({
      'List-Unsubscribe': '<https://b.example/api/unsubscribe?token=abc>',
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    });
    expect(mail.text).toContain('Unsubscribe: https://b.example/api/unsubscribe?token=abc');
    expect(mail.html).toContain('href="https://b.example/api/unsubscribe?token=abc"');
    const other = email.for('bob@example.org', 'https://b.example/api/unsubscribe?token=xyz');
    expect(other.html).not.toContain('token=abc');
  });

  it('escapes HTML, shows dates in the site time zone and links the rest', () => {
    const mail = email.for('ann@example.org', 'https://b.example/api/unsubscribe?token=abc');
    expect(mail.html).toContain('Fish &amp; &lt;chips&gt;');
    expect(mail.html).not.toContain('<chips>');
    expect(mail.html).toContain('<img src="https://b.example/uploads/a.jpg"');
    expect(mail.html).toContain('November 18, 2026');
    expect(mail.text).toContain(
      'Fish & <chips>\nNovember 18, 2026\nShort.\nRead it: https://b.example/garage/automobiles/new-tyres',
    );
    expect(mail.text).toContain('…and 2 more on https://b.example');
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
