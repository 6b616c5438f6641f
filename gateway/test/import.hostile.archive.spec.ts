/**
 * Hostile archives of this blog's own export format: a regex bomb as a media id, a
 * zip bomb, one entry that 50 posts name, entries that point outside the zip and hostile notes
 * (scripts, bad addresses, too long, too many or fake pictures), each imported
 * or failed within a bounded time while the site keeps answering reads (polled every 100 ms
 * through the gateway and timed). The zips are made here, in memory.
 */
import type { NotesPage, PostView } from '@blog/contracts';
import { ARCHIVE_ENTRY_READ, type ArchiveEntryRead } from '@blog/posts';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { archivePost, blogJson, MB, useHostileImportStack, zip } from './support/hostile-import.js';
import { makeImage } from './support/media-fixtures.js';
import { api, type TestStack } from './support/test-stack.js';

describe('hostile import files: archives', () => {
  const rig = useHostileImportStack();
  const { importWhileReading, expectBounded } = rig;
  let stack: TestStack;
  let admin: string;
  beforeAll(() => ({ stack, admin } = rig));

  it('a regex bomb as a media id: its failed file is dropped from the text at once', async () => {
    const bomb = '(a|a)*b';
    const archive = await zip({
      'blog.json': blogJson([
        archivePost(41, 'Regex bomb', `Before ![x](media:${bomb}) after; ![y](media:${'a'.repeat(40)}`, [
          { id: bomb, type: 'image', file: 'media/41/0-missing.jpg', name: 'missing.jpg' },
        ]),
      ]),
    });
    const run = await importWhileReading('bomb.zip', archive);
    expect(run.report).toMatchObject({ state: 'done', imported: 1, media: { failed: 1 } });
    expectBounded('regex bomb id', run, { ms: 10_000 });
    const list = (await api(stack, `/api/posts?limit=100&status=all`, { token: admin }))
      .json as unknown as PostView[];
    const post = (
      await api(stack, `/api/posts/${list.find((p) => p.title === 'Regex bomb')!.id}`, { token: admin })
    ).json as unknown as PostView & { content: string };
    expect(post.content).toMatch(/^Before {2}after/);
  }, 120_000);

  it('a zip bomb: an entry past the upload limit is not read, for a post nor for the banner', async () => {
    const banner = 'media/site/banner-00000000-0000-4000-8000-000000000000/wide.jpg';
    const archive = await zip({
      'blog.json': blogJson(
        [
          archivePost(51, 'Bombed', 'Text ![x](media:m1)', [
            { id: 'm1', type: 'image', file: 'media/51/0-bomb.jpg', name: 'bomb.jpg' },
          ]),
        ],
        { banner },
      ),
      'media/51/0-bomb.jpg': Buffer.alloc(101 * MB),
      [`site/${banner}`]: Buffer.alloc(101 * MB),
    });
    expect(archive.length).toBeLessThan(2 * MB);
    const run = await importWhileReading('bomb.zip', archive);
    expect(run.report).toMatchObject({ state: 'done', imported: 1, media: { failed: 1 } });
    const messages = run.report.errors.map((e) => `${e.item}: ${e.message}`);
    expect(messages).toContain(
      'Bombed: media/51/0-bomb.jpg: media/51/0-bomb.jpg is larger than 100 MB (the limit of a file)',
    );
    expect(messages).toContainEqual(
      expect.stringMatching(/^site settings: not restored: .*is larger than 100 MB/),
    );
    expectBounded('zip bomb', run);
  }, 120_000);

  it('an entry that 50 posts name is read once: each post gets its own copy, the budget counts it once', async () => {
    const picture = await makeImage('jpeg', 64, 48);
    const posts = Array.from({ length: 50 }, (_, i) =>
      archivePost(600 + i, `Shared picture ${i}`, `Post ${i} ![x](media:s${i})`, [
        { id: `s${i}`, type: 'image', file: 'media/shared.jpg', name: 'shared.jpg', alt: `Alt ${i}` },
      ]),
    );
    const archive = await zip({ 'blog.json': blogJson(posts), 'media/shared.jpg': picture });
    // Every read of an entry that the posts service's archive reader ends, counted where it happens.
    const reads: ArchiveEntryRead[] = [];
    const onRead = (message: unknown) => reads.push(message as ArchiveEntryRead);
    subscribe(ARCHIVE_ENTRY_READ, onRead);
    let run: Awaited<ReturnType<typeof importWhileReading>>;
    try {
      run = await importWhileReading('shared.zip', archive);
    } finally {
      unsubscribe(ARCHIVE_ENTRY_READ, onRead);
    }
    expect(run.report).toMatchObject({
      state: 'done',
      imported: 50,
      failed: 0,
      media: { downloaded: 50, failed: 0 },
    });
    expect(reads.filter((r) => r.name === 'media/shared.jpg')).toEqual([
      { name: 'media/shared.jpg', bytes: picture.length, budgetUsed: expect.any(Number) },
    ]);
    const jsonBytes = reads.filter((r) => r.name === 'blog.json').reduce((sum, r) => sum + r.bytes, 0);
    expect(Math.max(...reads.map((r) => r.budgetUsed))).toBe(jsonBytes + picture.length);
    // Each post's own item, processed from its own original.
    const list = (await api(stack, `/api/posts?limit=100&status=all`, { token: admin }))
      .json as unknown as PostView[];
    const ids = list.filter((p) => p.title.startsWith('Shared picture ')).map((p) => p.id);
    expect(ids).toHaveLength(50);
    const images = new Map<string, string>();
    for (const id of ids) {
      for (const deadline = Date.now() + 60_000; ; await new Promise((r) => setTimeout(r, 200))) {
        const post = (await api(stack, `/api/posts/${id}`, { token: admin })).json as unknown as PostView & {
          title: string;
          content: string;
          images: { id: string; path: string; status: string; alt: string | null }[];
        };
        if (post.images[0]?.status === 'ready') {
          const [image] = post.images;
          expect(post.content).toBe(`Post ${post.title.slice(15)} ![x](media:${image!.id})`);
          expect(image).toMatchObject({ alt: `Alt ${post.title.slice(15)}` });
          images.set(image!.id, image!.path);
          const served = await fetch(`${stack.baseUrl}${image!.path}`);
          expect(served.status).toBe(200);
          break;
        }
        if (Date.now() > deadline) throw new Error(`${post.title}: ${JSON.stringify(post.images)}`);
      }
    }
    expect(images.size).toBe(50);
    expect(new Set(images.values()).size).toBe(50);
    expectBounded('one entry named by 50 posts', run);
  }, 180_000);

  it('hostile notes: the bad ones skipped, a fake or oversized picture refused, scripts removed', async () => {
    const note = (id: number, content: string, more: Record<string, unknown> = {}) => ({
      id,
      content,
      inReplyTo: null,
      mention: null,
      createdAt: '2021-02-03T04:05:06.000Z',
      updatedAt: null,
      pictures: [],
      ...more,
    });
    const picture = (file: string) => ({ file, name: 'p.png', mimeType: 'image/png', alt: 'A picture' });
    const png = await makeImage('png', 40, 30);
    const archive = await zip({
      'blog.json': blogJson(
        [],
        {},
        {
          shortNotes: [
            note(
              1,
              'Scripted <script>alert(1)</script><img src=x onerror="alert(2)"> [x](javascript:alert(3))',
            ),
            note(2, 'Bad reply', { inReplyTo: 'javascript:alert(1)' }),
            note(3, 'x'.repeat(5001)),
            note(4, 'Five pictures', {
              pictures: [1, 2, 3, 4, 5].map((i) => picture(`media/notes/4/${i}.png`)),
            }),
            note(5, 'Fake, bombed and missing pictures', {
              pictures: [
                picture('media/notes/5/0-fake.png'),
                picture('media/notes/5/1-bomb.png'),
                picture('media/notes/5/2-missing.png'),
                picture('media/notes/5/3-real.png'),
              ],
            }),
            { id: 'six', content: 7 },
            // A deleted note of another blog means nothing here.
            note(7, '', { deletedAt: '2022-01-01T00:00:00.000Z' }),
          ],
        },
      ),
      'media/notes/5/0-fake.png': 'not a picture, only text',
      'media/notes/5/1-bomb.png': Buffer.alloc(101 * MB),
      'media/notes/5/3-real.png': png,
    });
    const run = await importWhileReading('notes.zip', archive);
    expect(run.report).toMatchObject({ state: 'done', notes: 2, skippedBy: { note: 4 } });
    const messages = run.report.errors.map((e) => `${e.item}: ${e.message}`);
    expect(messages).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^note 5: media\/notes\/5\/0-fake\.png: /),
        expect.stringMatching(/^note 5: media\/notes\/5\/1-bomb\.png: .*larger than 100 MB/),
        expect.stringMatching(/^note 5: media\/notes\/5\/2-missing\.png: /),
      ]),
    );
    expectBounded('hostile notes', run);
    const notes = (await api(stack, '/api/admin/fediverse/notes', { token: admin }))
      .json as unknown as NotesPage;
    const scripted = notes.items.find((n) => n.content.startsWith('Scripted'))!;
    // Rendered as the dashboard's notes are: markup shown as text, no script link.
    expect(scripted.html).not.toMatch(/<script|<img|href="javascript/i);
    expect(scripted.html).toContain('&lt;script&gt;');
    expect(scripted.published).toBe('2021-02-03T04:05:06.000Z');
    const page = await (await fetch(`${stack.baseUrl}/notes/${scripted.id}`)).text();
    expect(page).not.toMatch(/<script>alert|<img src=x|href="javascript/i);
    const pictured = notes.items.find((n) => n.content.startsWith('Fake'))!;
    expect(pictured.pictures.map((p) => p.alt)).toEqual(['A picture']);
    expect(notes.items.filter((n) => ['Bad reply', 'Five pictures', ''].includes(n.content))).toEqual([]);
  }, 120_000);

  it('an archive whose entries point outside it is refused', async () => {
    const archive = await zip({ 'blog.json': blogJson([]), 'xx/escape.txt': 'out' });
    // yazl will not write such a name: the bytes are changed afterwards (both headers).
    const evil = Buffer.from(
      archive.toString('latin1').replaceAll('xx/escape.txt', '../escape.txt'),
      'latin1',
    );
    const run = await importWhileReading('outside.zip', evil);
    expect(run.report).toMatchObject({ state: 'failed' });
    expect(run.report.reason).toMatch(
      /^The zip has an entry that points outside it \(invalid relative path: \.\.\/escape\.txt\)/,
    );
    expectBounded('entry outside', run);
  }, 120_000);
});
