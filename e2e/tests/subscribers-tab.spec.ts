/**
 * The dashboard's Subscribers tab in Chromium against the built stack: a CSV imported through
 * the form (the consent checkbox, the frequency) with its report, the counts, the search and
 * filters kept in the URL across a reload, a bounced address (marked by SQL: only the mail
 * transport marks one) reset with its button, the export downloaded. axe checks the screen;
 * screenshots at desktop and phone sizes (SCREENSHOTS=dir).
 */
import { freePort } from '@blog/server-kit/testing';
import type { BrowserContext, Page } from 'playwright-core';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { axeProblems } from '../support/axe.js';
import {
  eventually,
  newAdminPage,
  openAsAdmin,
  pastTheScreen,
  screenshot,
  useAdminRig,
} from '../support/admin-rig.js';

const ports = { PG_PORT: String(await freePort()) };
const rig = useAdminRig(ports);
let context: BrowserContext;
let page: Page;

afterEach(() => context?.close());

/** SQL on the stack's database (the launcher's PostgreSQL: its password is in DATA_DIR). */
async function stackSql(statement: string): Promise<void> {
  const url =
    process.env.DATABASE_URL ??
    `postgres://postgres:${(await readFile(join(rig().stack.dataDir, 'postgres-password'), 'utf8')).trim()}` +
      `@127.0.0.1:${ports.PG_PORT}/blog`;
  const sql = new pg.Client({ connectionString: url });
  await sql.connect();
  try {
    await sql.query(statement);
  } finally {
    await sql.end();
  }
}

const emails = () => page.locator('table tbody tr td:first-child').allTextContents();

test('import a CSV, count, search and filter in the URL, reset a bounce, export', async () => {
  ({ context, page } = await newAdminPage(rig()));
  await openAsAdmin(rig(), page, '/admin?tab=subscribers');
  await page.getByText('No subscribers yet.').waitFor();

  await page.getByLabel('CSV file').setInputFiles({
    name: 'mailchimp.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from(
      '\uFEFFEmail Address,First Name\nann@import.example,Ann\nbob@import.example,Bob\nANN@import.example,Again\nnot-an-address,Bad\n',
    ),
  });
  await page.getByLabel(/These people agreed to get e-mail from this blog/).check();
  await page.getByLabel('They get').selectOption('each-post');
  await page.getByRole('button', { name: 'Import' }).click();
  await page
    .getByText(
      'Import finished: 4 lines read, 2 added (2 confirmed, 0 asked to confirm), 1 duplicates, 1 invalid.',
    )
    .waitFor();
  await page.getByText('Refused lines (1)').click();
  await page.getByText('Line 5: email must be a valid e-mail address').waitFor();
  await page.getByRole('definition').first().waitFor();
  await eventually(async () =>
    expect(await emails()).toEqual(expect.arrayContaining(['ann@import.example', 'bob@import.example'])),
  );
  expect(await axeProblems(page)).toEqual([]);
  await screenshot(page, 'subscribers-desktop');

  // The search and the filters live in the URL: a reload keeps them.
  await page.getByLabel('Search addresses').fill('BOB');
  await page.getByRole('button', { name: 'Search subscribers' }).click();
  await page.waitForURL(/search=BOB/);
  await eventually(async () => expect(await emails()).toEqual(['bob@import.example']));
  await page.reload();
  await page.getByRole('heading', { name: 'Subscribers' }).waitFor();
  await page.locator('table tbody tr').first().waitFor();
  await eventually(async () => expect(await emails()).toEqual(['bob@import.example']));
  await page.getByLabel('Search addresses').fill('');
  await page.getByRole('button', { name: 'Search subscribers' }).click();
  await page.getByLabel('How often', { exact: true }).selectOption('weekly');
  await page.getByText('No subscribers match these filters.').waitFor();
  expect(new URL(page.url()).searchParams.get('frequency')).toBe('weekly');

  // A bounced address is marked, and its button resets it.
  await stackSql(
    `UPDATE mail.subscribers SET bounced_at = now(), bounce_count = 2 WHERE email = 'ann@import.example'`,
  );
  await page.getByLabel('How often', { exact: true }).selectOption('');
  await page.waitForURL((url) => !url.searchParams.has('frequency'));
  await page.getByLabel('Status').selectOption('bounced');
  await page.waitForURL(/status=bounced/);
  const reset = page.getByRole('button', { name: 'Reset the bounce of ann@import.example' });
  await reset.waitFor();
  await page.getByText('Bounced', { exact: true }).first().waitFor();
  await reset.press('Enter');
  await page.getByText('No subscribers match these filters.').waitFor();

  // The export downloads a CSV with the session.
  await page.getByLabel('Status').selectOption('');
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export CSV' }).click();
  const file = await download;
  expect(file.suggestedFilename()).toMatch(/^subscribers-\d{4}-\d\d-\d\d\.csv$/);
  const text = await readFile((await file.path())!, 'utf8');
  expect(text.split('\r\n')[0]).toBe(
    '"email","status","frequency","bounced","created_at","confirmed_at","unsubscribed_at"',
  );
  expect(text).toContain('"ann@import.example","confirmed","each-post","false"');
});

test('the tab fits a phone screen', async () => {
  ({ context, page } = await newAdminPage(rig(), { width: 390, height: 844 }));
  await openAsAdmin(rig(), page, '/admin?tab=subscribers');
  await page.locator('table tbody tr').first().waitFor();
  expect(await pastTheScreen(page, 390)).toEqual([]);
  await screenshot(page, 'subscribers-phone');
});
