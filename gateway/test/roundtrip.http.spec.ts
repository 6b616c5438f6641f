/**
 * Take the blog out and bring it back: a blog with posts (published, draft, scheduled),
 * pictures with alt texts, captions and a crop, a video, a YouTube item, tags, changed site
 * settings, subscribers and notes (one with a picture, one deleted) is exported; the archive is
 * imported into a fresh, empty stack; its own export then holds every post, every media item and
 * note picture (originals compared byte for byte), every note and every setting as they were.
 * Importing the archive again changes nothing.
 */
import { blogArchiveSchema, type BlogArchive, type ImportReport, type SiteConfig } from '@blog/contracts';
import { simpleParser } from 'mailparser';
import pg from 'pg';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { fields, makeImage, makeVideo, multipart, type Part } from './support/media-fixtures.js';
import { ADMIN, api, loginAs, startTestStack, type TestStack } from './support/test-stack.js';
import { exportArchive } from './support/export.js';
import { unzip } from './support/zip.js';

describe('export, then import into an empty blog', () => {
  let source: TestStack;
  let target: TestStack;
  const tokens = new Map<TestStack, string>();

  const exportOf = async (stack: TestStack) => {
    const response = await exportArchive(stack.baseUrl, tokens.get(stack)!);
    expect(response.status).toBe(200);
    const zip = Buffer.from(await response.arrayBuffer());
    const files = await unzip(zip);
    return {
      zip,
      files,
      archive: blogArchiveSchema.parse(JSON.parse(files.get('blog.json')!.toString())) as BlogArchive,
    };
  };
  const importInto = async (stack: TestStack, zip: Buffer): Promise<ImportReport> => {
    const { body, contentType } = multipart([
      { name: 'file', file: { filename: 'blog.zip', type: 'application/zip', data: zip } },
    ]);
    const started = await fetch(`${stack.baseUrl}/api/admin/import`, {
      method: 'POST',
      headers: { 'content-type': contentType, authorization: `Bearer ${tokens.get(stack)}` },
      body,
    });
    const first = (await started.json()) as ImportReport;
    expect([started.status, first.format]).toEqual([202, 'blog']);
    for (const deadline = Date.now() + 60_000; ;) {
      const report = (await api(stack, `/api/admin/import/${first.id}`, { token: tokens.get(stack) }))
        .json as unknown as ImportReport;
      if (report.state === 'done' || report.state === 'failed') return report;
      if (Date.now() > deadline) throw new Error(`import not finished: ${JSON.stringify(report)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  };
  const create = async (stack: TestStack, values: Record<string, string>, files: Part[] = []) => {
    const { body, contentType } = multipart([...fields(values), ...files]);
    const response = await fetch(`${stack.baseUrl}/api/posts`, {
      method: 'POST',
      headers: { 'content-type': contentType, authorization: `Bearer ${tokens.get(stack)}` },
      body,
    });
    if (response.status !== 201)
      throw new Error(`create answered ${response.status}: ${await response.text()}`);
  };

  beforeAll(async () => {
    // One blog moved to a new server: a new database, the same public address (so its
    // subscribers keep their confirmations; import.fidelity covers another blog's archive).
    const address = { SITE_URL: 'http://blog.test' };
    [source, target] = await Promise.all([startTestStack(address), startTestStack(address)]);
    for (const stack of [source, target])
      tokens.set(stack, await loginAs(stack, ADMIN.username, ADMIN.password));
  }, 120_000);
  afterAll(async () => {
    await Promise.all([source?.stop(), target?.stop()]);
  });

  it('brings back every post, media item and setting', async () => {
    // The source blog: its settings changed, a model renamed, posts of every kind.
    const site = (await api(source, '/api/site')).json as unknown as SiteConfig;
    const renamed = structuredClone(site);
    renamed.title = 'Round trip blog';
    renamed.welcome = { title: 'Welcome back', text: 'Restored from an archive.' };
    renamed.categories[0]!.subcategories[1]!.entries[0]!.label = 'Red Roadster';
    renamed.categories[0]!.subcategories[1]!.entries[0]!.segment = 'roadster';
    expect(
      (await api(source, '/api/admin/site', { method: 'PUT', body: renamed, token: tokens.get(source) }))
        .status,
    ).toBe(200);
    // An uploaded banner: its files travel in the archive too.
    const banner = multipart([
      {
        name: 'file',
        file: { filename: 'banner.jpg', type: 'image/jpeg', data: await makeImage('jpeg', 1200, 200) },
      },
    ]);
    const uploaded = await fetch(`${source.baseUrl}/api/admin/site/banner`, {
      method: 'POST',
      headers: { 'content-type': banner.contentType, authorization: `Bearer ${tokens.get(source)}` },
      body: banner.body,
    });
    expect(uploaded.status).toBe(200);
    const saved = (await api(source, '/api/site')).json as unknown as SiteConfig;
    expect(saved.bannerImage).toMatch(/^\/uploads\/media\/site\/banner-/);
    const [category, sub, entry] = [
      saved.categories[0]!,
      saved.categories[0]!.subcategories[1]!,
      saved.categories[0]!.subcategories[1]!.entries[0]!,
    ];
    const photo = await sharp({ create: { width: 80, height: 60, channels: 3, background: '#2050a0' } })
      .jpeg()
      .toBuffer();
    await create(
      source,
      {
        title: 'Everything at once',
        content: 'A picture:\n\n![](media:pic)\n\nAnd a film:\n\n![](media:film)',
        tags: 'roadster, summer',
        category: category.label,
        submenu1: sub.label,
        submenu2: entry.label,
        date: '2023-08-09T10:11:12.000Z',
        cropSettings: JSON.stringify({ x: 5, y: -3, scale: 1.25 }),
        unifiedMedia: JSON.stringify([
          { type: 'image', order: 0, fileIndex: 0, ref: 'pic', alt: 'The roadster', caption: 'Summer' },
          { type: 'image', order: 1, fileIndex: 1, alt: 'A sketch' },
          { type: 'video', order: 2, fileIndex: 2, ref: 'film' },
          {
            type: 'youtube',
            order: 3,
            url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
            caption: 'On YouTube',
          },
        ]),
      },
      [
        { name: 'files', file: { filename: 'roadster.jpg', type: 'image/jpeg', data: photo } },
        { name: 'files', file: { filename: 'sketch.png', type: 'image/png', data: await makeImage('png') } },
        { name: 'files', file: { filename: 'film.mp4', type: 'video/mp4', data: await makeVideo() } },
      ],
    );
    await create(source, {
      title: 'Not finished',
      content: 'A draft.',
      status: 'draft',
      category: 'More',
      submenu1: 'General',
      tags: 'later',
    });
    await create(source, {
      title: 'In the future',
      content: 'Scheduled.',
      date: '2099-02-03T04:05:06.000Z',
      category: 'More',
      submenu1: 'General',
    });
    // A confirmed subscriber (its link from the outbox) and a pending one.
    await api(source, '/api/subscribe', { body: { email: 'confirmed@example.com' } });
    await api(source, '/api/subscribe', { body: { email: 'pending@example.com' } });
    let link = '';
    for (const deadline = Date.now() + 10_000; !link;) {
      const outbox = join(source.env.DATA_DIR!, 'outbox');
      for (const file of await readdir(outbox).catch(() => [] as string[])) {
        const mail = await simpleParser(await readFile(join(outbox, file)));
        if (JSON.stringify(mail.to).includes('confirmed@example.com'))
          link = /\/api\/subscribe\/confirm\?token=[A-Za-z0-9_-]+/.exec(mail.text ?? '')?.[0] ?? '';
      }
      if (!link && Date.now() > deadline) throw new Error('no confirmation e-mail');
      if (!link) await new Promise((r) => setTimeout(r, 200));
    }
    expect((await fetch(`${source.baseUrl}${link}`)).status).toBe(200);

    // Notes: one with a picture (processed before the export), one with a link, one deleted.
    const notePhoto = await makeImage('png', 320, 240);
    const pictured = multipart([
      ...fields({ content: 'The **beds** this morning.', alts: JSON.stringify(['Garlic rows']) }),
      { name: 'pictures', file: { filename: 'garlic.png', type: 'image/png', data: notePhoto } },
    ]);
    const sent = await fetch(`${source.baseUrl}/api/admin/fediverse/notes`, {
      method: 'POST',
      headers: { 'content-type': pictured.contentType, authorization: `Bearer ${tokens.get(source)}` },
      body: pictured.body,
    });
    expect(sent.status).toBe(201);
    const withPicture = (await sent.json()) as { id: number };
    const note = async (content: string) =>
      (await api(source, '/api/admin/fediverse/notes', { body: { content }, token: tokens.get(source) }))
        .json as unknown as { id: number };
    const linked = await note('Read [this](https://example.com/a).');
    const gone = await note('Soon gone.');
    expect(
      (
        await api(source, `/api/admin/fediverse/notes/${gone.id}`, {
          method: 'DELETE',
          token: tokens.get(source),
        })
      ).status,
    ).toBe(200);
    for (const deadline = Date.now() + 30_000; ;) {
      const page = (await api(source, '/api/admin/fediverse/notes', { token: tokens.get(source) }))
        .json as unknown as {
        items: { id: number; pictures: { status: string }[] }[];
      };
      if (page.items.find((n) => n.id === withPicture.id)?.pictures.every((p) => p.status === 'ready')) break;
      if (Date.now() > deadline) throw new Error(`note picture not processed: ${JSON.stringify(page)}`);
      await new Promise((r) => setTimeout(r, 200));
    }

    const before = await exportOf(source);
    // The deleted one as its id and date only (its address stays taken).
    expect(before.archive.shortNotes!.map((n) => [n.id, n.content, !!n.deletedAt])).toEqual([
      [withPicture.id, 'The **beds** this morning.', false],
      [linked.id, 'Read [this](https://example.com/a).', false],
      [gone.id, '', true],
    ]);
    const [notePicture] = before.archive.shortNotes![0]!.pictures;
    expect(notePicture).toMatchObject({ alt: 'Garlic rows', name: 'garlic.png' });
    expect(before.files.get(notePicture!.file)!.equals(notePhoto)).toBe(true);
    const report = await importInto(target, before.zip);
    expect(report).toMatchObject({
      state: 'done',
      imported: 3,
      updated: 0,
      failed: 0,
      notes: 2,
      media: { downloaded: 3, failed: 0 },
    });
    expect(report.errors).toEqual([
      {
        item: 'users',
        message: '1 account(s) not restored: an export holds no passwords (register them again)',
      },
    ]);
    const after = await exportOf(target);
    expect(after.archive.blog).toEqual({ id: expect.any(String), url: 'http://blog.test' });
    expect(after.archive.blog!.id).not.toBe(before.archive.blog!.id);

    // Every setting, the tree's ids included, and the banner's file.
    expect(after.archive.site).toEqual(before.archive.site);
    const bannerBytes = async (stack: TestStack) =>
      Buffer.from(await (await fetch(`${stack.baseUrl}${saved.bannerImage}`)).arrayBuffer());
    expect((await fetch(`${target.baseUrl}${saved.bannerImage}`)).status).toBe(200);
    expect((await bannerBytes(target)).equals(await bannerBytes(source))).toBe(true);
    // Every post: its fields, and its media in order with their originals' bytes.
    const key = (p: BlogArchive['posts'][number]) => p.slug;
    expect(after.archive.posts.map(key).sort()).toEqual(before.archive.posts.map(key).sort());
    for (const old of before.archive.posts) {
      const now = after.archive.posts.find((p) => p.slug === old.slug)!;
      const comparable = (p: BlogArchive['posts'][number]) => ({
        title: p.title,
        status: p.status,
        createdAt: p.createdAt,
        category: p.category,
        submenu1: p.submenu1,
        submenu2: p.submenu2,
        placeId: p.placeId,
        tags: p.tags,
        oldPaths: p.oldPaths,
        media: p.media.map(({ id: _id, file: _file, ...m }) => m),
        // The text's references point at the same items, by position.
        content: p.media.reduce((text, m, i) => text.replaceAll(`media:${m.id}`, `media:#${i}`), p.content),
      });
      expect(comparable(now)).toEqual(comparable(old));
      old.media.forEach((m, i) => {
        if (!m.file) return;
        expect([
          old.slug,
          i,
          after.files.get(now.media[i]!.file!)!.equals(before.files.get(m.file)!),
        ]).toEqual([old.slug, i, true]);
      });
    }
    expect(after.archive.subscribers.map((s) => [s.email, s.status, s.createdAt, s.confirmedAt])).toEqual(
      before.archive.subscribers.map((s) => [s.email, s.status, s.createdAt, s.confirmedAt]),
    );
    expect(after.archive.subscribers.find((s) => s.email === 'confirmed@example.com')).toMatchObject({
      status: 'confirmed',
    });
    // The restored blog serves the renamed model's page with the post.
    expect((await fetch(`${target.baseUrl}/api/posts?search=everything`)).status).toBe(200);
    // Every note as it was, at the address it had (the archive is this blog's), its picture's
    // original the same bytes; none was sent to followers again.
    expect(after.archive.shortNotes!.map(({ pictures: _p, ...n }) => n)).toEqual(
      before.archive.shortNotes!.map(({ pictures: _p, ...n }) => n),
    );
    const restoredPicture = after.archive.shortNotes![0]!.pictures[0]!;
    expect(restoredPicture).toMatchObject({ alt: 'Garlic rows', name: 'garlic.png' });
    expect(after.files.get(restoredPicture.file)!.equals(notePhoto)).toBe(true);
    const notePage = await fetch(`${target.baseUrl}/notes/${linked.id}`);
    expect(notePage.status).toBe(200);
    expect(await notePage.text()).toContain('href="https://example.com/a"');
    expect((await fetch(`${target.baseUrl}/notes/${gone.id}`)).status).toBe(410);
    const db = new pg.Client({ connectionString: target.env.DATABASE_URL });
    await db.connect();
    try {
      expect(
        (await db.query(`SELECT count(*)::int AS n FROM posts.federation_events WHERE note_id IS NOT NULL`))
          .rows,
      ).toEqual([{ n: 0 }]);
      // The next note written takes an id past the kept ones.
      const next = (
        await api(target, '/api/admin/fediverse/notes', {
          body: { content: 'New here.' },
          token: tokens.get(target),
        })
      ).json as unknown as { id: number };
      expect(next.id).toBeGreaterThan(gone.id);
    } finally {
      await db.end();
    }

    // Importing the same archive again updates, adds nothing.
    const again = await importInto(target, before.zip);
    expect(again).toMatchObject({
      state: 'done',
      imported: 0,
      updated: 3,
      failed: 0,
      media: { downloaded: 0 },
    });
    expect(again.notes).toBeUndefined();
    const third = (await exportOf(target)).archive;
    // The notes: the three restored and the one written since.
    expect([third.posts.length, third.shortNotes!.length]).toEqual([3, 4]);
  }, 120_000);

  it('refuses a zip that is not an export of this blog', async () => {
    const { body, contentType } = multipart([
      {
        name: 'file',
        file: {
          filename: 'other.zip',
          type: 'application/zip',
          data: Buffer.from('PK\x03\x04not really a zip at all, only its first bytes'),
        },
      },
    ]);
    const started = await fetch(`${target.baseUrl}/api/admin/import`, {
      method: 'POST',
      headers: { 'content-type': contentType, authorization: `Bearer ${tokens.get(target)}` },
      body,
    });
    const { id } = (await started.json()) as ImportReport;
    for (const deadline = Date.now() + 20_000; ;) {
      const report = (await api(target, `/api/admin/import/${id}`, { token: tokens.get(target) }))
        .json as unknown as ImportReport;
      if (report.state === 'failed') {
        expect(report.reason).toMatch(/zip/);
        break;
      }
      if (Date.now() > deadline) throw new Error(`not failed: ${JSON.stringify(report)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  });
});
