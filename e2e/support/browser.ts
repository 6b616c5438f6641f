import { chromium, type Browser } from 'playwright-core';

/**
 * Starts the system Chromium (CHROME_PATH, else Debian's /usr/bin/chromium) headless,
 * with the background traffic that slows or flakes tests turned off.
 */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROME_PATH ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
    ],
  });
}
