/**
 * The owner's backups in Chromium against the built stack (`npm start`, whose schedule is on):
 * the front page warns that no backup exists yet; the Backup tab shows the empty state, the
 * next run and the notice that backups are not encrypted; "Back up now" shows its progress in
 * a status region and ends in the list with its size and target; the warning is then gone.
 * axe on the tab, and the tab on a phone-sized screen.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { newAdminPage, openAsAdmin, pastTheScreen, screenshot, useAdminRig } from '../support/admin-rig.js';
import { axeProblems } from '../support/axe.js';

const rig = useAdminRig();
let context: BrowserContext;
let page: Page;

afterEach(() => context?.close());

test('backs up from the Backup tab; the front page warns until a backup exists', async () => {
  ({ context, page } = await newAdminPage(rig()));
  await openAsAdmin(rig(), page, '/admin');
  await page.getByText('No backup has been made yet').waitFor();

  await openAsAdmin(rig(), page, '/admin?tab=backup');
  const panel = page.getByRole('region', { name: 'Backups' });
  await panel.getByText('No backup yet').waitFor();
  await panel.getByText(/Backups are not encrypted/).waitFor();
  await panel.getByText(/Next scheduled backup: /).waitFor();
  expect(await axeProblems(page)).toEqual([]);
  await screenshot(page, 'backups-empty');

  await panel.getByRole('button', { name: 'Back up now' }).click();
  await panel
    .getByRole('status')
    .getByText(/Backup done/)
    .waitFor({ timeout: 60_000 });
  const row = panel.getByRole('row').filter({ hasText: /Done|OK/ });
  await row.first().waitFor();
  expect(await row.first().textContent()).toMatch(/\d+(\.\d+)? (B|kB|KB|MB)/);
  expect(await axeProblems(page)).toEqual([]);
  await screenshot(page, 'backups-done');

  await openAsAdmin(rig(), page, '/admin');
  await page.waitForLoadState('networkidle');
  expect(await page.getByText('No backup has been made yet').count()).toBe(0);
});

test('the Backup tab fits a phone-sized screen', async () => {
  ({ context, page } = await newAdminPage(rig(), { width: 390, height: 844 }));
  await openAsAdmin(rig(), page, '/admin?tab=backup');
  await page.getByRole('region', { name: 'Backups' }).waitFor();
  expect(await pastTheScreen(page, 390)).toEqual([]);
  await screenshot(page, 'backups-phone');
});
