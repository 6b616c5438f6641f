/**
 * Hostile WXR and Ghost files: each ends `failed` with a message naming what was
 * wrong (a DOCTYPE, a text, comment or attribute past its limit, nesting too deep, too many
 * tags), or imported with a report (one post too large, duplicate ids), within a bounded time,
 * while the site keeps answering reads (polled every 100 ms through the gateway and timed) and
 * the event loop never stalls long (this thread's CPU time between timer ticks). The files are
 * made here, in memory.
 */
import { MB, useHostileImportStack, wxr, wxrItem } from './support/hostile-import.js';

describe('hostile import files: WXR and Ghost', () => {
  const { importWhileReading, expectBounded, titles } = useHostileImportStack();

  it('billion laughs and external entities: refused for their DOCTYPE', async () => {
    const laughs = `<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;"><!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;"><!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">]>
<rss xmlns:wp="http://wordpress.org/export/1.2/"><channel><item><title>&lol4;&lol4;&lol4;</title></item></channel></rss>`;
    const external = `<?xml version="1.0"?>
<!DOCTYPE rss [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<rss xmlns:wp="http://wordpress.org/export/1.2/"><channel><item><title>&xxe;</title></item></channel></rss>`;
    for (const [label, file] of [
      ['billion laughs', laughs],
      ['external entity', external],
    ] as const) {
      const run = await importWhileReading('evil.xml', file);
      expect(run.report).toMatchObject({ state: 'failed', imported: 0 });
      expect(run.report.reason).toMatch(/DOCTYPE/);
      expectBounded(label, run);
    }
  }, 120_000);

  it('a 40 MB CDATA section of "<": the import fails naming the text limit, and the event loop stays free', async () => {
    const run = await importWhileReading('cdata.xml', wxr(wxrItem(1, 'Huge', Buffer.alloc(40 * MB, '<'))));
    expect(run.report).toMatchObject({ state: 'failed', imported: 0 });
    expect(run.report.reason).toBe(
      'The file has a text, tag or comment of more than 4 MB (the limit of an import)',
    );
    expectBounded('40 MB CDATA', run);
  }, 120_000);

  it('a 6 MB attribute and a 6 MB comment fail naming their limits', async () => {
    const attribute = wxr(`<item><category domain="${'x'.repeat(6 * MB)}">a</category></item>`);
    const comment = wxr(`<!--${'-x'.repeat(3 * MB)}-->`, wxrItem(2, 'After the comment'));
    for (const [label, file] of [
      ['6 MB attribute', attribute],
      ['6 MB comment', comment],
    ] as const) {
      const run = await importWhileReading('long.xml', file);
      expect(run.report).toMatchObject({ state: 'failed' });
      expect(run.report.reason).toMatch(
        /^The file has (a text, tag or comment of more than 4 MB|a comment of more than 64 KB) \(the limit of an import\)$/,
      );
      expectBounded(label, run);
    }
  }, 120_000);

  it('a post whose HTML passes 1 MB fails alone, with the reason; the others are imported', async () => {
    const run = await importWhileReading(
      'big-post.xml',
      wxr(wxrItem(3, 'Too long', `<p>${'word '.repeat(300_000)}</p>`), wxrItem(4, 'Short one')),
    );
    expect(run.report).toMatchObject({ state: 'done', imported: 1, failed: 1 });
    expect(run.report.errors).toContainEqual({
      item: 'Too long',
      message: 'its HTML is larger than 1 MB (a post holds at most 200,000 characters)',
    });
    expect(await titles()).toContain('Short one');
    expectBounded('1.5 MB post', run);
  }, 120_000);

  it('deep nesting: XML and JSON fail naming the depth limit', async () => {
    const xml = wxr('<a>'.repeat(100_000), '</a>'.repeat(100_000));
    const json = `{"db":[{"data":{"posts":[${'['.repeat(100_000)}${']'.repeat(100_000)}]}}]}`;
    for (const [label, name, file] of [
      ['deep XML', 'deep.xml', xml],
      ['deep JSON', 'deep.json', json],
    ] as const) {
      const run = await importWhileReading(name, file);
      expect(run.report).toMatchObject({ state: 'failed' });
      expect(run.report.reason).toMatch(/nested more than 64 deep \(the limit of an import\)$/);
      expectBounded(label, run);
    }
  }, 120_000);

  it('a Ghost file with 100,000 tags fails naming the limit, within bounded memory', async () => {
    const ghost = {
      db: [
        {
          data: {
            posts: [{ id: 'p1', title: 'Tagged', slug: 'tagged', html: '<p>x</p>', status: 'published' }],
            tags: Array.from({ length: 100_000 }, (_, i) => ({
              id: `t${i}`,
              name: `Tag ${i}`,
              slug: `tag-${i}`,
            })),
            posts_tags: [],
          },
        },
      ],
    };
    const run = await importWhileReading('tags.json', JSON.stringify(ghost));
    expect(run.report).toMatchObject({ state: 'failed', imported: 0 });
    expect(run.report.reason).toBe('The file has more than 10,000 tags (the limit of an import)');
    expectBounded('100,000 Ghost tags', run);
  }, 120_000);

  it('a Ghost post of one 6 MB string fails naming the text limit', async () => {
    const ghost = { data: { posts: [{ id: 'p2', title: 'Long', html: 'x'.repeat(6 * MB) }] } };
    const run = await importWhileReading('long.json', JSON.stringify(ghost));
    expect(run.report).toMatchObject({ state: 'failed' });
    expect(run.report.reason).toBe('The file has a text of more than 4 MB (the limit of an import)');
    expectBounded('6 MB Ghost string', run);
  }, 120_000);

  it('duplicate ids: the second item updates the first, no double', async () => {
    const run = await importWhileReading('dup.xml', wxr(wxrItem(7, 'Twin'), wxrItem(7, 'Twin')));
    expect(run.report).toMatchObject({ state: 'done', imported: 1, updated: 1, failed: 0 });
    expect((await titles()).filter((t) => t === 'Twin')).toHaveLength(1);
    expectBounded('duplicate ids', run);
  }, 120_000);
});
