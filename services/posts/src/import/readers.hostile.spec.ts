/**
 * The readers against hostile shapes, straight from memory: each ends with an ImportFileError
 * naming the limit it hit, holding the event loop only briefly (the longest stall is measured).
 */
import { Readable } from 'node:stream';
import { indexGhost } from './ghost-reader.js';
import { htmlToMarkdown } from './html-to-markdown.js';
import { wxrItems } from './wxr-reader.js';

const MB = 1024 * 1024;
const HEAD = '<?xml version="1.0"?><rss xmlns:wp="http://wordpress.org/export/1.2/"><channel>';

/** The file as storage streams it: 64 KB chunks, each after a turn of the event loop (as disk reads come). */
const chunked = (buffer: Buffer) =>
  Readable.from(
    (async function* () {
      for (let at = 0; at < buffer.length; at += 64 * 1024) {
        await new Promise((resolve) => setImmediate(resolve));
        yield buffer.subarray(at, at + 64 * 1024);
      }
    })(),
  );

/**
 * Runs `work`, timing it and the longest stretch of work between ticks of a 10 ms timer (the
 * event loop's longest stall), counted in this thread's CPU time: a loaded machine that leaves
 * the process waiting for a core stretches the wall-clock gaps (a CI run once saw a 0.3 s read
 * take 3 s between ticks) but not the work done in them, and the process's CPU time counts
 * V8's helper threads and whatever else the test worker runs (1.7 s in a loaded CI run for a
 * stretch this thread spent well under 0.1 s on alone). Before the readers paused, these
 * inputs ran on promise callbacks alone and the timer never ticked (10 s and more in one stall).
 */
const STALL_MAX_MS = 3000;
const cpuMs = () => {
  const { user, system } = process.threadCpuUsage();
  return (user + system) / 1000;
};
async function measure(work: () => Promise<unknown>) {
  let last = cpuMs();
  let stallMs = 0;
  const ticker = setInterval(() => {
    const now = cpuMs();
    stallMs = Math.max(stallMs, now - last);
    last = now;
  }, 10);
  const started = performance.now();
  const outcome = await work().then(
    () => 'ok',
    (error: Error) => error.message,
  );
  clearInterval(ticker);
  // The stretch up to the end counts too: a loop that never let the timer tick stalled throughout.
  stallMs = Math.max(stallMs, cpuMs() - last);
  return { outcome, ms: performance.now() - started, stallMs };
}
const drain = async (items: AsyncIterable<unknown>) => {
  for await (const _ of items);
};

describe('hostile shapes for the readers', () => {
  const xml = (...parts: (string | Buffer)[]) =>
    Buffer.concat([HEAD, ...parts, '</channel></rss>'].map((p) => (Buffer.isBuffer(p) ? p : Buffer.from(p))));

  it.each([
    ['a 6 MB comment of "-x"', () => xml(`<!--${'-x'.repeat(3 * MB)}-->`), 'a comment of more than 64 KB'],
    [
      'a 6 MB attribute',
      () => xml(`<item><category domain="${'x'.repeat(6 * MB)}">a</category></item>`),
      'a text, tag or comment of more than 4 MB',
    ],
    [
      'a 40 MB CDATA of "<"',
      () => xml('<item><content><![CDATA[', Buffer.alloc(40 * MB, '<'), ']]></content></item>'),
      'a text, tag or comment of more than 4 MB',
    ],
    [
      'a text of 6 MB in pieces',
      () => xml('<item><content>', Buffer.alloc(6 * MB, 'a&amp;'), '</content></item>'),
      'a text, tag or comment of more than 4 MB',
    ],
    [
      'an item of 20 MB in 3 MB fields',
      () =>
        xml(
          '<item>',
          ...Array.from({ length: 7 }, (_, i) => `<f${i}>${'y'.repeat(3 * MB)}</f${i}>`),
          '</item>',
        ),
      'an item of more than 16 MB',
    ],
    ['nesting 100,000 deep', () => xml('<a>'.repeat(100_000)), 'elements nested more than 64 deep'],
  ])('WXR: %s fails naming the limit', async (label, make, limit) => {
    const file = chunked(make());
    const run = await measure(() => drain(wxrItems(file)));
    expect(run.outcome).toBe(`The file has ${limit} (the limit of an import)`);
    expect(run.stallMs).toBeLessThan(STALL_MAX_MS);
  });

  it('Ghost: 100,000 tags fail naming the limit', async () => {
    const file = JSON.stringify({
      db: [
        {
          data: {
            posts: [{ id: 'p1', title: 'Tagged', html: '<p>x</p>' }],
            tags: Array.from({ length: 100_000 }, (_, i) => ({
              id: `t${i}`,
              name: `Tag ${i}`,
              slug: `tag-${i}`,
            })),
          },
        },
      ],
    });
    const buffer = Buffer.from(file);
    const run = await measure(() => indexGhost(async () => chunked(buffer)));
    expect(run.outcome).toBe('The file has more than 10,000 tags (the limit of an import)');
    expect(run.stallMs).toBeLessThan(STALL_MAX_MS);
  });

  // A post's HTML is at most 1 MB (larger ones fail alone); its conversion is synchronous, so
  // each shape must convert in linear time (openers without closers scanned to the end before).
  it.each([
    ['[caption] without [/caption]', '[caption]'.repeat(110_000)],
    ['[caption] openers after the last [/caption]', `[caption]x[/caption]${'[caption]'.repeat(110_000)}`],
    ['[embed] without [/embed]', '[embed]'.repeat(140_000)],
    ['[video] without [/video]', '[video]'.repeat(140_000)],
    ['shortcode openers without "]"', '[a b'.repeat(250_000)],
    ['[gallery openers without "]"', '[gallery ids=1'.repeat(70_000)],
  ])('HTML of 1 MB: %s converts in bounded time', (_label, html) => {
    const started = cpuMs();
    htmlToMarkdown(html, {});
    expect(cpuMs() - started).toBeLessThan(2000);
  });
});
