import { Readable } from 'node:stream';
import type { SourcePost } from './source-post.js';
import { wxrIdentity, wxrRestriction, wxrSite, wxrTitle } from './wxr-post.js';
import { wxrEntries } from './wxr-reader.js';

describe('a WordPress title as text', () => {
  it.each([
    ['Markup: Title <em>With</em> <b>Mark<sup>up</sup></b>', 'Markup: Title With Markup'],
    // Decoded once: "&amp;amp;" is the text "&amp;".
    ['Tom &amp;amp; Jerry', 'Tom &amp; Jerry'],
    ['Tom &amp; Jerry', 'Tom & Jerry'],
    ['Caf&eacute; &#8220;open&#8221; &hellip;', 'Café “open” …'],
    ['~`!@#$%^&*()-_=+{}[]/\\;:\'"?,.>', '~`!@#$%^&*()-_=+{}[]/\\;:\'"?,.>'],
    ['a < b and c > d', 'a < b and c > d'],
    ['&lt;em&gt;kept as text&lt;/em&gt;', '<em>kept as text</em>'],
    ['  Two\n  lines  ', 'Two lines'],
    ['<script>alert(1)</script>Safe', 'Safe'],
  ])('%s → %s', (html, text) => {
    expect(wxrTitle(html)).toBe(text);
  });
});

describe('a WordPress post identity', () => {
  it('is the site (blog URL first, scheme and trailing slash dropped) and the post id', () => {
    expect(
      wxrSite({
        'wp:base_site_url': 'https://wordpress.com/',
        'wp:base_blog_url': 'https://Theme-Tests.example/',
        link: 'https://ignored.example',
      }),
    ).toBe('theme-tests.example');
    expect(wxrSite({ link: 'http://old.example/blog/' })).toBe('old.example/blog');
    expect(wxrSite({ 'wp:base_site_url': 'http://old.example' })).toBe('old.example');
    expect(wxrSite({})).toBe('');
    const guid = 'https://theme-tests.example/?p=100';
    expect(wxrIdentity('theme-tests.example', { guid, 'wp:post_id': '102' }, 'Copy')).toEqual({
      sourceId: 'wxr:theme-tests.example:102',
      former: [`wxr:${guid}`],
    });
    // No id: the GUID, as before.
    expect(wxrIdentity('theme-tests.example', { guid }, 'Copy')).toEqual({
      sourceId: `wxr:${guid}`,
      former: [],
    });
  });

  it('restricted: a password, or the private status', () => {
    expect(wxrRestriction({ 'wp:post_password': 'enter' }, 'publish')).toBe('password-protected');
    expect(wxrRestriction({ 'wp:post_password': '' }, 'private')).toBe('private');
    expect(wxrRestriction({ 'wp:post_password': '  ' }, 'publish')).toBeUndefined();
    expect(wxrRestriction({}, 'draft')).toBeUndefined();
  });
});

describe('wxrEntries', () => {
  const item = (id: number, guid: number, extra = '') => `<item>
    <title><![CDATA[Post ${id}]]></title><guid isPermaLink="false">https://theme-tests.example/?p=${guid}</guid>
    <wp:post_id>${id}</wp:post_id><wp:status>publish</wp:status><wp:post_type>post</wp:post_type>${extra}</item>`;
  const read = async (channel: string, items: string[]) => {
    const xml = `<?xml version="1.0"?><rss xmlns:wp="https://wordpress.org/export/1.2/"><channel>${channel}${items.join('')}</channel></rss>`;
    const posts: SourcePost[] = [];
    for await (const entry of wxrEntries(Readable.from([Buffer.from(xml)]), new Map()))
      if (entry.kind === 'post') posts.push(entry.post);
    return posts;
  };

  it('gives two posts sharing a GUID two identities, from the channel site', async () => {
    const posts = await read('<link>https://theme-tests.example</link>', [item(101, 100), item(102, 100)]);
    expect(posts.map((p) => [p.sourceId, p.formerSourceIds])).toEqual([
      ['wxr:theme-tests.example:101', ['wxr:https://theme-tests.example/?p=100']],
      ['wxr:theme-tests.example:102', ['wxr:https://theme-tests.example/?p=100']],
    ]);
  });

  it('makes a password-protected or private post a draft that says why', async () => {
    const posts = await read('', [
      item(1, 1, '<wp:post_password>enter</wp:post_password>'),
      item(2, 2).replace('<wp:status>publish', '<wp:status>private'),
      item(3, 3),
    ]);
    expect(posts.map((p) => [p.title, p.status, p.restricted])).toEqual([
      ['Post 1', 'draft', 'password-protected'],
      ['Post 2', 'draft', 'private'],
      ['Post 3', 'published', undefined],
    ]);
  });
});
