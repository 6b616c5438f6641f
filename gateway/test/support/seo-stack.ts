/**
 * What the SEO specs (seo.*.http.spec.ts) share: an app shell and an asset as the Vite build
 * writes them (with their brotli and gzip twins), a stack serving them for https://blog.example,
 * one post with a YouTube link, a request that leaves compression and redirects alone, and
 * readers for the tags and XML the gateway answers.
 */
import xml from 'fast-xml-parser';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { precompressDir } from '../../../web/precompress.js';
import { fields, multipart } from './media-fixtures.js';
import { ADMIN, loginAs, startTestStack, type TestStack } from './test-stack.js';

/** Parses after checking the document is well-formed XML (the root's fast-xml-parser is v3, CommonJS). */
export const parseXml = (text: string): Json =>
  xml.parse(
    text,
    { ignoreAttributes: false, tagValueProcessor: unescape, attrValueProcessor: unescape },
    true,
  );

export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export const SITE = 'https://blog.example';
/** What Vite writes: a title, a description, the entry script and stylesheet. */
const SHELL = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="UTF-8" />
    <meta name="description" content="A personal blog and journal." />
    <title>My Personal Blog</title>
    <script type="module" crossorigin src="/assets/index-Ab12Cd34.js"></script>
  </head>
  <body>
    <div id="root"></div>
  </body>
</html>
`;
export const SCRIPT = `export const words = ${JSON.stringify(Array.from({ length: 800 }, (_, i) => `word${i % 50}`))};\n`;
export const LONG_TEXT =
  'Fitted four new tyres today and balanced them at the shop down the road. The roadster now tracks ' +
  'straight at speed, the steering is lighter, and the old tyres went to the recycler.';

export interface Raw {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  text: string;
}

/** Without fetch: it would ask for compression itself, decompress, and follow redirects. */
export function raw(stack: TestStack, path: string, headers: Record<string, string> = {}): Promise<Raw> {
  return new Promise((answer, reject) => {
    request(`${stack.baseUrl}${path}`, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        answer({ status: res.statusCode!, headers: res.headers, body, text: body.toString() });
      });
      res.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

/** XML and HTML text as the servers escape it (contracts' escapeHtml), read back. */
const ENTITIES: Record<string, string> = { quot: '"', '#39': "'", lt: '<', gt: '>', amp: '&' };
export const unescape = (text: string) =>
  text.replace(/&(quot|#39|lt|gt|amp);/g, (_, name: string) => ENTITIES[name]!);

/** The content of `<meta {key}="{name}" content="...">` (unescaped), or undefined. */
export function meta(html: string, name: string, key = 'property'): string | undefined {
  const found = new RegExp(`<meta ${key}="${name}" content="([^"]*)"`).exec(html);
  return found ? unescape(found[1]!) : undefined;
}
export const title = (html: string) => /<title>([^<]*)<\/title>/.exec(html)?.[1];
export const canonical = (html: string) => /<link rel="canonical" href="([^"]*)"/.exec(html)?.[1];

export interface SeoStack {
  stack: TestStack;
  admin: string;
  /** "New tyres & "grip" <fast>" in Garage / Automobiles / Car One, with a YouTube link. */
  post: Json;
  /** A post made through POST /api/posts with these form fields (201, or the test fails). */
  createPost(values: Record<string, string>): Promise<Json>;
}

/**
 * The file's stack, started before its tests (and before any beforeAll declared after this
 * call) and stopped after them, its shell folder removed; its functions may be taken out of the
 * answer at once.
 */
export function useSeoStack(): SeoStack {
  let dist: string | undefined;
  const rig: SeoStack = {
    async createPost(values) {
      const { body, contentType } = multipart(fields(values));
      const response = await fetch(`${rig.stack.baseUrl}/api/posts`, {
        method: 'POST',
        headers: { 'content-type': contentType, authorization: `Bearer ${rig.admin}` },
        body,
      });
      expect(response.status).toBe(201);
      return (await response.json()) as Json;
    },
  } as Partial<SeoStack> as SeoStack;

  beforeAll(async () => {
    dist = await mkdtemp(join(tmpdir(), 'seo-dist-'));
    await mkdir(join(dist, 'assets'));
    await writeFile(join(dist, 'index.html'), SHELL);
    await writeFile(join(dist, 'assets/index-Ab12Cd34.js'), SCRIPT);
    await writeFile(join(dist, 'banner.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    await precompressDir(dist); // what the Vite build does
    rig.stack = await startTestStack({ WEB_DIST: dist, SITE_URL: `${SITE}/` });
    rig.admin = await loginAs(rig.stack, ADMIN.username, ADMIN.password);
    rig.post = await rig.createPost({
      title: 'New tyres & "grip" <fast>',
      content: LONG_TEXT,
      date: '2025-03-04T14:30:00Z',
      category: 'Garage',
      submenu1: 'Automobiles',
      submenu2: 'Car One',
      youtubeUrls: JSON.stringify(['https://www.youtube.com/watch?v=dQw4w9WgXcQ']),
    });
  });
  afterAll(async () => {
    await rig.stack?.stop();
    if (dist) await rm(dist, { recursive: true, force: true });
  });
  return rig;
}
