/**
 * Compression through the gateway (real services): the build's brotli and gzip twins of an
 * asset (or the file itself) with their caching, and generated pages and feeds compressed for
 * clients that take it.
 */
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { raw, SCRIPT, useSeoStack, type Json } from './support/seo-stack.js';
import type { TestStack } from './support/test-stack.js';

describe('compression through the gateway (real services)', () => {
  const rig = useSeoStack();
  let stack: TestStack;
  let post: Json;
  beforeAll(() => ({ stack, post } = rig));

  it('serves the build’s brotli and gzip twins of an asset, or the file itself', async () => {
    const path = '/assets/index-Ab12Cd34.js';
    const br = await raw(stack, path, { 'accept-encoding': 'gzip, deflate, br' });
    expect(br.status).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['content-type']).toMatch(/^(application|text)\/javascript/);
    expect(br.headers.vary).toMatch(/Accept-Encoding/i);
    expect(br.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(brotliDecompressSync(br.body).toString()).toBe(SCRIPT);
    expect(br.body.length).toBeLessThan(SCRIPT.length / 4);

    const gz = await raw(stack, path, { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.body).toString()).toBe(SCRIPT);

    const refused = await raw(stack, path, { 'accept-encoding': 'br;q=0, gzip' });
    expect(refused.headers['content-encoding']).toBe('gzip');

    const plain = await raw(stack, path);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.text).toBe(SCRIPT);
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');

    const shell = await raw(stack, '/index.html');
    expect([shell.status, shell.headers.location]).toEqual([301, '/']);

    const svg = await raw(stack, '/banner.svg');
    expect([svg.status, svg.headers['cache-control']]).toEqual([200, 'no-cache']);
  });

  it('compresses generated pages and feeds for clients that take it', async () => {
    const page = await raw(stack, post.url, { 'accept-encoding': 'br' });
    expect(page.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(page.body).toString()).toContain('<link rel="canonical"');
    const feed = await raw(stack, '/rss.xml', { 'accept-encoding': 'gzip' });
    expect(feed.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(feed.body).toString()).toContain('<rss');
    const sitemap = await raw(stack, '/sitemap.xml', { 'accept-encoding': 'gzip' });
    expect(sitemap.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(sitemap.body).toString()).toContain('<urlset');
  });
});
