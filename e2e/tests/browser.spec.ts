/** The browser the tests find by themselves (e2e/support/browser.ts), opening a real page. */
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { defaultBrowserSource, launchBrowser, type BrowserSource } from '../support/browser.js';

let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer((_req, res) => {
    res.setHeader('content-type', 'text/html');
    res.end('<!doctype html><title>Probe</title><p id="out"></p><script>out.textContent = 6 * 7</script>');
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});

afterAll(async () => {
  await new Promise((done) => server.close(done));
});

// The one this machine picks by default, and the bundled fallback used where there is no Chromium.
const sources = [...new Set<BrowserSource>([defaultBrowserSource(), 'sparticuz'])];
test.each(sources)(
  'launches the %s Chromium and runs a page in one context after another, as the suites do',
  async (source) => {
    const browser = await launchBrowser(source);
    try {
      for (let round = 0; round < 2; round++) {
        const context = await browser.newContext();
        const page = await context.newPage();
        await page.goto(url);
        expect(await page.title()).toBe('Probe');
        expect(await page.textContent('#out')).toBe('42');
        await context.close();
      }
    } finally {
      await browser.close();
    }
  },
  60_000,
);

test('CHROME_PATH wins over the system Chromium, which wins over the bundled one', () => {
  const saved = process.env.CHROME_PATH;
  try {
    process.env.CHROME_PATH = '/opt/some/chrome';
    expect(defaultBrowserSource()).toBe('CHROME_PATH');
    delete process.env.CHROME_PATH;
    expect(defaultBrowserSource()).toBe(existsSync('/usr/bin/chromium') ? 'system' : 'sparticuz');
  } finally {
    if (saved === undefined) delete process.env.CHROME_PATH;
    else process.env.CHROME_PATH = saved;
  }
});
