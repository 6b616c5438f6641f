/**
 * The Backup tab in Chromium against the built stack: a WordPress export imported with its
 * category mapped in the form, the progress bar and the report (kept in the URL across a
 * reload), then "Export everything" downloading the .zip; axe on the tab before and after,
 * and the tab on a phone-sized screen.
 */
import { readFile } from 'node:fs/promises';
import type { BrowserContext, Page } from 'playwright-core';
import yauzl from 'yauzl';
import {
  adminGet,
  newAdminPage,
  openAsAdmin,
  pastTheScreen,
  screenshot,
  useAdminRig,
} from '../support/admin-rig.js';
import { axeProblems } from '../support/axe.js';

const rig = useAdminRig();
let context: BrowserContext;
let page: Page;

afterEach(() => context?.close());

const wxr = `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:wp="http://wordpress.org/export/1.2/"><channel>
${[1, 2, 3]
  .map(
    (i) => `<item><title>Imported in the browser ${i}</title><guid isPermaLink="false">browser-${i}</guid>
<content:encoded><![CDATA[Paragraph ${i}.]]></content:encoded><wp:post_id>${700 + i}</wp:post_id>
<wp:post_date_gmt>2015-0${i}-01 10:00:00</wp:post_date_gmt><wp:post_name>imported-in-the-browser-${i}</wp:post_name>
<wp:status>publish</wp:status><wp:post_type>post</wp:post_type><category domain="category" nicename="cars"><![CDATA[Cars]]></category></item>`,
  )
  .join('\n')}
<item><title>A page</title><guid isPermaLink="false">browser-page</guid><wp:post_type>page</wp:post_type><wp:status>publish</wp:status></item>
</channel></rss>`;

function zipNames(path: string): Promise<string[]> {
  return new Promise((resolve, reject) =>
    yauzl.open(path, { lazyEntries: false }, (error, zip) => {
      if (error || !zip) return reject(error);
      const names: string[] = [];
      zip.on('entry', (entry: yauzl.Entry) => names.push(entry.fileName));
      zip.on('end', () => resolve(names));
      zip.on('error', reject);
    }),
  );
}

test('imports a WordPress export from the Backup tab: mapped category, progress, report kept in the URL', async () => {
  ({ context, page } = await newAdminPage(rig()));
  await openAsAdmin(rig(), page, '/admin?tab=backup');
  await page.getByRole('heading', { name: 'Import' }).waitFor();
  expect(await axeProblems(page)).toEqual([]);
  await page
    .getByLabel('Export file')
    .setInputFiles([{ name: 'wordpress.xml', mimeType: 'application/xml', buffer: Buffer.from(wxr) }]);
  await page.getByLabel('Slug 1').fill('cars');
  await page.getByLabel('Goes to').selectOption({ label: 'Garage / Automobiles / Car One' });
  await page.getByRole('button', { name: 'Import' }).click();
  await page.getByRole('heading', { name: 'Import finished' }).waitFor();
  await page
    .getByText('100% · 3 imported, 0 updated, 1 skipped, 0 failed of 3 posts', { exact: false })
    .waitFor();
  await page.getByText('Skipped: 1 page').waitFor();
  expect(await page.locator('#import-progress').getAttribute('value')).toBe('100');
  expect(new URL(page.url()).searchParams.get('import')).toMatch(/^[0-9a-f-]{36}$/);
  expect(await axeProblems(page)).toEqual([]);
  await screenshot(page, 'backup-import');
  // A reload shows the same import.
  await page.reload();
  await page.getByRole('heading', { name: 'Import finished' }).waitFor();
  const posts = await adminGet<{ title: string; url: string }[]>(
    rig(),
    '/api/posts?search=imported+in+the+browser&status=all',
  );
  expect(posts.map((p) => p.url).sort()).toEqual([
    '/garage/automobiles/car-one/imported-in-the-browser-1',
    '/garage/automobiles/car-one/imported-in-the-browser-2',
    '/garage/automobiles/car-one/imported-in-the-browser-3',
  ]);
});

test('"Export everything" downloads the archive', async () => {
  ({ context, page } = await newAdminPage(rig()));
  await openAsAdmin(rig(), page, '/admin?tab=backup');
  const downloading = page.waitForEvent('download');
  const requests: { method: string; url: string }[] = [];
  page.on('request', (request) => requests.push({ method: request.method(), url: request.url() }));
  const linkAnswer = page.waitForResponse((response) => response.url().endsWith('/api/admin/export/link'));
  await page.getByRole('button', { name: 'Export everything' }).click();
  const download = await downloading;
  // The one-time token and the session travel in a form's body, never in a URL.
  const { token } = (await (await linkAnswer).json()) as { token: string };
  expect(requests).toContainEqual({
    method: 'POST',
    url: `${rig().stack.baseUrl}/api/admin/export/download`,
  });
  expect(requests.filter((r) => r.url.includes(token) || r.url.includes('?t='))).toEqual([]);
  expect(page.url()).toContain('/admin');
  expect(download.suggestedFilename()).toMatch(/^blog-export-\d{4}-\d{2}-\d{2}\.zip$/);
  const path = await download.path();
  const names = await zipNames(path);
  expect(names).toContain('blog.json');
  expect(names.filter((n) => n.startsWith('posts/')).length).toBeGreaterThanOrEqual(3);
  const zip = await readFile(path);
  expect(zip.subarray(0, 2).toString('latin1')).toBe('PK');
  await page.getByText('The download has started').waitFor();
  expect(await axeProblems(page)).toEqual([]);
});

test('the Backup tab on a phone-sized screen', async () => {
  ({ context, page } = await newAdminPage(rig(), { width: 390, height: 844 }));
  await openAsAdmin(rig(), page, '/admin?tab=backup');
  await page.getByRole('button', { name: 'Export everything' }).waitFor();
  // Nothing wider than the screen.
  expect(await pastTheScreen(page, 390)).toEqual([]);
  expect(await axeProblems(page)).toEqual([]);
  await screenshot(page, 'backup-phone');
});
