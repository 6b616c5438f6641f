import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { CompressibleText, pickEncoding } from './compression.js';

describe('compressing generated text', () => {
  const page = `<!doctype html><html><body>${'<p>A day in the garage.</p>'.repeat(400)}</body></html>`;

  test('a kept page is compressed once per encoding, and each twin unpacks to the page', () => {
    const text = new CompressibleText(page);
    const br = text.as('br');
    expect(text.as('br')).toBe(br);
    expect(br.length).toBeLessThan(text.size / 10);
    expect(brotliDecompressSync(br).toString()).toBe(page);
    expect(gunzipSync(text.as('gzip')).toString()).toBe(page);
  });

  test('brotli before gzip whatever the header order, never an encoding refused with q=0', () => {
    expect(pickEncoding('gzip, deflate, br')).toBe('br');
    expect(pickEncoding('br;q=0, gzip')).toBe('gzip');
    expect(pickEncoding('identity')).toBeNull();
  });
});
