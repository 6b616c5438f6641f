import { existsSync } from 'node:fs';
import sparticuz from '@sparticuz/chromium';
import { chromium, type Browser } from 'playwright-core';

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

/** Starts a headless Chromium from `source` (by default the first one available). */
export async function launchBrowser(source: BrowserSource = defaultBrowserSource()): Promise<Browser> {
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
