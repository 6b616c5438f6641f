// Import benchmark: a 10,000-post WordPress export (WXR, written here) imported into an empty
// stack through the API, without pictures and with one picture per post served by a local
// HTTP server; posts a second, and the posts process's memory (RSS sampled from /proc every
// 100 ms, its peak) against the file's size, then the same for a file ten times larger
// (BENCH_IMPORT_LARGE=0 skips that one; BENCH_IMPORT_POSTS sets the base count).
import { createWriteStream, openAsBlob } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { rssKb, sampleRss, signInToken, stackPids } from './measure.mjs';
import { startSeedableStack } from './stack.mjs';

const ADMIN = { username: 'benchadmin', password: 'bench-password-123' };
const POSTS = Number(process.env.BENCH_IMPORT_POSTS ?? 10_000);
const LARGE = process.env.BENCH_IMPORT_LARGE !== '0';

/** Writes a WXR file of `count` posts (and their picture tags when `pictures` is an address). */
export async function writeWxr(file, count, pictures) {
  const out = createWriteStream(file);
  const write = (text) => (out.write(text) ? undefined : new Promise((r) => out.once('drain', r)));
  await write(
    `<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:wp="http://wordpress.org/export/1.2/"><channel><title>Bench</title><wp:wxr_version>1.2</wp:wxr_version>\n`,
  );
  for (let i = 0; i < count; i++) {
    const day = new Date(Date.UTC(2010, 0, 1) + i * 3_600_000).toISOString().replace('T', ' ').slice(0, 19);
    const picture = pictures ? `\n\n<img src="${pictures}/p${i}.jpg" alt="Picture ${i}">` : '';
    await write(`<item><title>Imported post ${i}</title><link>http://old.example/?p=${i + 1}</link>
<guid isPermaLink="false">http://old.example/?p=${i + 1}</guid>
<content:encoded><![CDATA[The first paragraph of post ${i}, about the <strong>garage</strong> and a <a href="https://example.com/${i}">link</a>.
A second line.

Another paragraph with more words to read: engine, wheel, tyre, chain, brake, road, trip, coffee.${picture}

<ul><li>one</li><li>two</li></ul>]]></content:encoded>
<wp:post_id>${i + 1}</wp:post_id><wp:post_date>${day}</wp:post_date><wp:post_date_gmt>${day}</wp:post_date_gmt>
<wp:post_name>imported-post-${i}</wp:post_name><wp:status>publish</wp:status><wp:post_type>post</wp:post_type>
<category domain="category" nicename="cars"><![CDATA[Cars]]></category><category domain="post_tag" nicename="bench"><![CDATA[Bench]]></category>
</item>\n`);
  }
  await write('</channel></rss>\n');
  await new Promise((r) => out.end(r));
  return (await stat(file)).size;
}

/** One import on a fresh stack: posts a second and the posts process's peak RSS. */
async function importOnce(name, count, pictures) {
  const dir = await mkdtemp(join(tmpdir(), 'blog-bench-import-'));
  const file = join(dir, 'export.xml');
  const bytes = await writeWxr(file, count, pictures);
  const stack = await startSeedableStack(name, {
    ADMIN_USERNAME: ADMIN.username,
    ADMIN_PASSWORD: ADMIN.password,
    // The pictures come from a server on 127.0.0.1, refused unless allowed.
    OUTBOUND_ALLOW: '127.0.0.1',
  });
  try {
    const pid = (await stackPids(stack)).posts;
    const token = await signInToken(stack.baseUrl, ADMIN);
    const idleRssMb = Math.round((await rssKb(pid)) / 1024);
    const sampler = sampleRss(pid);
    const form = new FormData();
    form.append('categoryMap', JSON.stringify({ cars: 'Garage / Automobiles / Car One' }));
    form.append('file', await openAsBlob(file), 'export.xml');
    const started = performance.now();
    const headers = { authorization: `Bearer ${token}` };
    let report = await (
      await fetch(`${stack.baseUrl}/api/admin/import`, { method: 'POST', headers, body: form })
    ).json();
    const uploadedMs = performance.now() - started;
    while (report.state === 'queued' || report.state === 'running') {
      await new Promise((r) => setTimeout(r, 250));
      report = await (await fetch(`${stack.baseUrl}/api/admin/import/${report.id}`, { headers })).json();
    }
    const seconds = (performance.now() - started) / 1000;
    const peak = sampler.stop();
    return {
      posts: count,
      fileMb: Math.round((bytes / 1024 / 1024) * 10) / 10,
      state: report.state,
      imported: report.imported,
      failed: report.failed,
      media: report.media,
      uploadSeconds: Math.round(uploadedMs / 100) / 10,
      seconds: Math.round(seconds * 10) / 10,
      postsPerSecond: Math.round((count / seconds) * 10) / 10,
      postsProcessIdleRssMb: idleRssMb,
      postsProcessPeakRssMb: Math.round(peak / 1024),
    };
  } finally {
    await stack.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

export async function benchImport() {
  const jpeg = await sharp({ create: { width: 800, height: 600, channels: 3, background: '#3060a0' } })
    .jpeg({ quality: 80 })
    .toBuffer();
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/jpeg' }).end(jpeg));
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const pictures = `http://127.0.0.1:${server.address().port}`;
  try {
    const results = {
      withoutPictures: await importOnce('import-text', POSTS, null),
      withPictures: await importOnce('import-pictures', POSTS, pictures),
    };
    if (LARGE) results.tenTimesLarger = await importOnce('import-large', POSTS * 10, null);
    return results;
  } finally {
    server.close();
  }
}
