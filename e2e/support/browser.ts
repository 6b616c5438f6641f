import { existsSync } from 'node:fs';
import sparticuz from '@sparticuz/chromium';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';

/** Where a Chromium comes from: CHROME_PATH, Debian's package, or the one inside @sparticuz/chromium. */
export type BrowserSource = 'CHROME_PATH' | 'system' | 'sparticuz';

const SYSTEM_CHROMIUM = '/usr/bin/chromium';

/** Background traffic that slows or flakes tests, turned off. */
const OUR_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

/** The first Chromium available: CHROME_PATH, else /usr/bin/chromium, else the bundled headless one. */
export function defaultBrowserSource(): BrowserSource {
  if (process.env.CHROME_PATH) return 'CHROME_PATH';
  return existsSync(SYSTEM_CHROMIUM) ? 'system' : 'sparticuz';
}

/**
 * Public pages arrive server-rendered and are hydrated a moment after they load: until then a
 * click follows a plain link and a form posts itself. A person waits for the page to react;
 * a test does the same. goto and reload return once the app marks the page hydrated (an
 * app page only: the JSON API, the mail pages and pages without JavaScript are left alone).
 */
function waitsForHydration(page: Page): Page {
  for (const method of ['goto', 'reload'] as const) {
    const original = page[method].bind(page) as (...args: unknown[]) => ReturnType<Page['goto']>;
    (page as unknown as Record<string, unknown>)[method] = async (...args: unknown[]) => {
      const response = await original(...args);
      if (await page.locator('#preloaded-data').count())
        await page.locator('html[data-hydrated]').waitFor({ state: 'attached', timeout: 15_000 });
      return response;
    };
  }
  return page;
}

function hydratingContexts(browser: Browser): Browser {
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (options) => {
    const context: BrowserContext = await newContext(options);
    if (options?.javaScriptEnabled === false) return context;
    const newPage = context.newPage.bind(context);
    context.newPage = async () => waitsForHydration(await newPage());
    return context;
  };
  return browser;
}

/** Starts a headless Chromium from `source` (by default the first one available). */
export async function launchBrowser(source: BrowserSource = defaultBrowserSource()): Promise<Browser> {
  return hydratingContexts(await launchUnwrapped(source));
}

async function launchUnwrapped(source: BrowserSource): Promise<Browser> {
  if (source === 'sparticuz') {
    // Unpacks once into the temp folder (about 2 s); later calls reuse the unpacked binary.
    const executablePath = await sparticuz.executablePath();
    // --single-process suits AWS Lambda, but there the browser dies once a test's context closes.
    const args = sparticuz.args.filter((arg) => arg !== '--single-process');
    return chromium.launch({ executablePath, args: [...args, ...OUR_ARGS] });
  }
  const executablePath = source === 'CHROME_PATH' ? process.env.CHROME_PATH : SYSTEM_CHROMIUM;
  if (!executablePath || !existsSync(executablePath)) {
    throw new Error(`no Chromium at ${executablePath ?? '(CHROME_PATH unset)'}`);
  }
  return chromium.launch({ executablePath, args: OUR_ARGS });
}

/**
 * An image's natural width once its bytes have arrived (0 when they fail): a page may show the
 * element before the picture has loaded, more so on a busy machine. Scrolled to first, so a
 * lazy image starts loading.
 */
export async function loadedWidth(image: Locator): Promise<number> {
  await image.scrollIntoViewIfNeeded();
  return image.evaluate((img: HTMLImageElement) =>
    img.complete && img.naturalWidth > 0
      ? img.naturalWidth
      : new Promise<number>((resolve) => {
          img.addEventListener('load', () => resolve(img.naturalWidth), { once: true });
          img.addEventListener('error', () => resolve(0), { once: true });
        }),
  );
}
