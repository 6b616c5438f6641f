/**
 * What the import specs (import.*.http.spec.ts) share: WXR files written from the format's
 * documentation, a local picture server (and one standing for the inside of the network), a
 * stack whose pages have an app shell, and the upload, the wait for the report and the read
 * of a post by its title.
 */
import type { ImportReport, PostView } from '@blog/contracts';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeImage, multipart, type Part } from './media-fixtures.js';
import { ADMIN, api, loginAs, startTestStack, type TestStack } from './test-stack.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export function wxr(items: string[]): string {
  return `<?xml version="1.0" encoding="UTF-8" ?>
<rss version="2.0" xmlns:excerpt="http://wordpress.org/export/1.2/excerpt/" xmlns:content="http://purl.org/rss/1.0/modules/content/"
  xmlns:wfw="http://wellformedweb.org/CommentAPI/" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:wp="http://wordpress.org/export/1.2/">
<channel>
  <title>Old garage blog</title>
  <link>http://old.example</link>
  <wp:wxr_version>1.2</wp:wxr_version>
  <wp:base_site_url>http://old.example</wp:base_site_url>
  <wp:category><wp:term_id>3</wp:term_id><wp:category_nicename>cars</wp:category_nicename><wp:cat_name><![CDATA[Cars]]></wp:cat_name></wp:category>
  ${items.join('\n')}
</channel>
</rss>`;
}

export function item(o: {
  id: number;
  title: string;
  name: string;
  type?: string;
  status?: string;
  gmt?: string;
  local?: string;
  content?: string;
  categories?: [string, string, string][];
  meta?: Record<string, string>;
  attachmentUrl?: string;
}): string {
  return `<item>
    <title>${o.title}</title>
    <link>http://old.example/${(o.gmt ?? o.local ?? '2020-01-01').slice(0, 10).replace(/-/g, '/')}/${o.name}/</link>
    <pubDate>Sun, 12 May 2019 10:00:00 +0000</pubDate>
    <dc:creator><![CDATA[anna]]></dc:creator>
    <guid isPermaLink="false">http://old.example/?p=${o.id}</guid>
    <description></description>
    <content:encoded><![CDATA[${o.content ?? ''}]]></content:encoded>
    <excerpt:encoded><![CDATA[]]></excerpt:encoded>
    <wp:post_id>${o.id}</wp:post_id>
    <wp:post_date><![CDATA[${o.local ?? o.gmt ?? ''}]]></wp:post_date>
    <wp:post_date_gmt><![CDATA[${o.gmt ?? '0000-00-00 00:00:00'}]]></wp:post_date_gmt>
    <wp:post_name><![CDATA[${o.name}]]></wp:post_name>
    <wp:status><![CDATA[${o.status ?? 'publish'}]]></wp:status>
    <wp:post_type><![CDATA[${o.type ?? 'post'}]]></wp:post_type>
    ${o.attachmentUrl ? `<wp:attachment_url><![CDATA[${o.attachmentUrl}]]></wp:attachment_url>` : ''}
    ${(o.categories ?? []).map(([domain, nicename, name]) => `<category domain="${domain}" nicename="${nicename}"><![CDATA[${name}]]></category>`).join('\n')}
    ${Object.entries(o.meta ?? {})
      .map(
        ([k, v]) =>
          `<wp:postmeta><wp:meta_key><![CDATA[${k}]]></wp:meta_key><wp:meta_value><![CDATA[${v}]]></wp:meta_value></wp:postmeta>`,
      )
      .join('\n')}
  </item>`;
}

/** The old blog's export: posts, a draft, a scheduled post, a page, an attachment, pictures good and bad. */
function oldBlog(filesUrl: string): string {
  return wxr([
    item({
      id: 11,
      title: 'Red car',
      name: 'red-car',
      gmt: '2019-05-12 10:00:00',
      local: '2019-05-12 12:00:00',
      content: `First line of the post
second line, same paragraph

[caption id="attachment_5" align="alignnone" width="300"]<a href="${filesUrl}/uploads/car.jpg"><img src="${filesUrl}/uploads/car-300x200.jpg" alt="The red car" /></a> At the track[/caption]

https://www.youtube.com/watch?v=dQw4w9WgXcQ

[contact-form-7 id="12" title="Contact"]

<img src="${filesUrl}/moved.jpg" alt="Moved picture">

Last paragraph.`,
      categories: [
        ['category', 'cars', 'Cars'],
        ['post_tag', 'tyres', 'Tyres'],
        ['post_tag', 'track-day', 'Track day'],
      ],
      meta: { _thumbnail_id: '100' },
    }),
    item({
      id: 12,
      title: 'Half written',
      name: 'half-written',
      status: 'draft',
      gmt: '2020-02-02 08:00:00',
      content: 'Not yet.',
      categories: [['category', 'misc', 'Misc']],
    }),
    item({
      id: 13,
      title: 'Coming soon',
      name: 'coming-soon',
      status: 'future',
      gmt: '2099-01-01 09:00:00',
      content: 'Later.',
    }),
    item({
      id: 14,
      title: 'About me',
      name: 'about-me',
      type: 'page',
      gmt: '2018-01-01 00:00:00',
      content: 'A page.',
    }),
    item({
      id: 100,
      title: 'featured',
      name: 'featured',
      type: 'attachment',
      gmt: '2019-05-12 09:00:00',
      attachmentUrl: `${filesUrl}/uploads/featured.jpg`,
      meta: { _wp_attachment_image_alt: 'Featured alt' },
    }),
    item({
      id: 16,
      title: 'Download rules',
      name: 'download-rules',
      gmt: '2018-06-01 10:00:00',
      content: `<p><img src="${filesUrl}/photo.heic" alt="heic"></p><p><img src="${filesUrl}/flaky.jpg" alt="flaky"></p><p><img src="${filesUrl}/hangs.jpg" alt="hangs"></p>${Array.from({ length: 8 }, (_, i) => `<p><img src="${filesUrl}/many/${i}.png" alt="many ${i}"></p>`).join('')}`,
    }),
    item({
      id: 15,
      title: 'Broken pictures',
      name: 'broken-pictures',
      local: '2018-03-04 05:06:07',
      content: `<p>One is gone: <img src="${filesUrl}/gone.jpg" alt="gone"></p><p><img src="${filesUrl}/to-file.jpg"></p><p><img src="${filesUrl}/not-an-image.jpg"></p>`,
    }),
  ]);
}

export interface ImportStack {
  stack: TestStack;
  admin: string;
  /** The picture server, on 127.0.0.1 (in the stack's OUTBOUND_ALLOW). */
  filesUrl: string;
  /** Stands for the inside of the network (127.0.0.3: not in the stack's OUTBOUND_ALLOW). */
  insideUrl: string;
  /** Every path asked of the picture server, and of the inside one, in order. */
  served: string[];
  servedInside: string[];
  /** The picture server's downloads at once: now, and the most seen. */
  inFlight: { now: number; max: number };
  /** The old blog's export (see oldBlog). */
  wxrFile: string;
  upload(
    name: string,
    data: string | Buffer,
    extra?: Record<string, string>,
    token?: string,
  ): Promise<{ status: number; json: Json }>;
  finished(id: string): Promise<ImportReport>;
  byTitle(title: string): Promise<PostView & Json>;
}

/**
 * The file's import stack, started before its tests and stopped after them. The answer is
 * filled in by the time the first test (or a beforeAll declared after this call) runs; its
 * functions may be taken out of it at once.
 */
export function useImportStack(): ImportStack {
  let files: Server | undefined;
  let inside: Server | undefined;
  const rig: ImportStack = {
    served: [],
    servedInside: [],
    inFlight: { now: 0, max: 0 },
    async upload(name, data, extra = {}, token = rig.admin) {
      const parts: Part[] = [
        ...Object.entries(extra).map(([n, value]) => ({ name: n, value })),
        { name: 'file', file: { filename: name, type: 'application/octet-stream', data: Buffer.from(data) } },
      ];
      const { body, contentType } = multipart(parts);
      const response = await fetch(`${rig.stack.baseUrl}/api/admin/import`, {
        method: 'POST',
        headers: { 'content-type': contentType, ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body,
      });
      return { status: response.status, json: (await response.json()) as Json };
    },
    async finished(id) {
      for (const deadline = Date.now() + 60_000; ;) {
        const report = (await api(rig.stack, `/api/admin/import/${id}`, { token: rig.admin }))
          .json as unknown as ImportReport;
        if (report.state === 'done' || report.state === 'failed') return report;
        if (Date.now() > deadline) throw new Error(`import still ${report.state}: ${JSON.stringify(report)}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    },
    async byTitle(title) {
      const list = (await api(rig.stack, `/api/posts?limit=100&status=all`, { token: rig.admin }))
        .json as unknown as PostView[];
      const found = list.find((p) => p.title === title);
      if (!found) throw new Error(`no post "${title}"`);
      return (await api(rig.stack, `/api/posts/${found.id}`, { token: rig.admin }))
        .json as unknown as PostView & Json;
    },
  } as Partial<ImportStack> as ImportStack;

  beforeAll(async () => {
    const { served, servedInside, inFlight } = rig;
    const jpeg = await makeImage('jpeg', 320, 200);
    const png = await makeImage('png', 200, 100);
    files = createServer((req, res) => {
      served.push(req.url ?? '');
      inFlight.now++;
      inFlight.max = Math.max(inFlight.max, inFlight.now);
      res.on('close', () => inFlight.now--);
      if (req.url === '/uploads/car.jpg' || req.url === '/uploads/featured.jpg') {
        res.writeHead(200, { 'content-type': 'image/jpeg' }).end(jpeg);
      } else if (req.url === '/uploads/gallery.png')
        res.writeHead(200, { 'content-type': 'image/png' }).end(png);
      else if (req.url === '/moved.jpg') res.writeHead(302, { location: '/uploads/car.jpg' }).end();
      else if (req.url === '/to-file.jpg') res.writeHead(302, { location: 'file:///etc/passwd' }).end();
      // The import's hostile-input finding: an outside host sending the fetcher to an inside address.
      else if (req.url === '/pic.jpg')
        res.writeHead(302, { location: `${rig.insideUrl}/admin/secret.jpg` }).end();
      else if (req.url === '/not-an-image.jpg')
        res.writeHead(200, { 'content-type': 'image/jpeg' }).end('<html>hi</html>');
      else if (req.url === '/photo.heic') res.writeHead(200, { 'content-type': 'image/heic' }).end(jpeg);
      // Answers 500 twice, then the picture: the third try brings it.
      else if (req.url === '/flaky.jpg' && served.filter((u) => u === '/flaky.jpg').length <= 2)
        res.writeHead(500).end('busy');
      else if (req.url === '/flaky.jpg') res.writeHead(200, { 'content-type': 'image/jpeg' }).end(jpeg);
      // Never answers: each try ends at IMPORT_MEDIA_TIMEOUT_MS.
      else if (req.url === '/hangs.jpg') req.on('close', () => res.destroy());
      // Eight pictures that take 150 ms each: at most four are fetched at once.
      else if (req.url?.startsWith('/many/'))
        setTimeout(() => res.writeHead(200, { 'content-type': 'image/png' }).end(png), 150);
      else res.writeHead(404).end('missing');
    });
    await new Promise<void>((r) => files!.listen(0, '127.0.0.1', r));
    inside = createServer((req, res) => {
      servedInside.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'image/jpeg' }).end(jpeg);
    });
    await new Promise<void>((r) => inside!.listen(0, '127.0.0.3', r));
    rig.insideUrl = `http://127.0.0.3:${(inside.address() as AddressInfo).port}`;
    rig.filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
    // Pages need an app shell: old URLs are answered there.
    const dist = await mkdtemp(join(tmpdir(), 'import-dist-'));
    await writeFile(
      join(dist, 'index.html'),
      '<!doctype html><html><head><title>x</title></head><body><div id="root"></div></body></html>',
    );
    rig.stack = await startTestStack({ IMPORT_MEDIA_TIMEOUT_MS: '1500', WEB_DIST: dist });
    rig.admin = await loginAs(rig.stack, ADMIN.username, ADMIN.password);
    rig.wxrFile = oldBlog(rig.filesUrl);
  }, 120_000);
  afterAll(async () => {
    await rig.stack?.stop();
    files?.close();
    inside?.close();
  });
  return rig;
}
