/**
 * Visit statistics in Chromium against the built stack: a guest reads three pages (each sends
 * its beacon), and the admin's Stats tab shows them in the chart, its table alternative and
 * the top posts; the admin's own visits count nothing. axe on the tab; a phone-sized screen.
 */
import type { BrowserContext, Page } from 'playwright-core';
import {
  adminGet,
  eventually,
  newAdminPage,
  openAsAdmin,
  pastTheScreen,
  screenshot,
  useAdminRig,
} from '../support/admin-rig.js';
import { axeProblems } from '../support/axe.js';
import { createPost } from '../support/content.js';

/** A reader's browser (HeadlessChrome's own name is on the bot list). */
const READER =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';

const rig = useAdminRig({ VIEW_FLUSH_MS: '100' });
let context: BrowserContext;
let page: Page;

afterEach(() => context?.close());

const today = () => new Date().toISOString().slice(0, 10);

test('a guest reading three pages moves the chart and the top posts; the admin counts nothing', async () => {
  const post = await createPost(rig().stack.baseUrl, rig().token, {
    title: 'Read by a guest',
    content: 'Worth reading.',
    category: 'Garage',
    submenu1: 'Automobiles',
    submenu2: 'Car One',
  });
  const before = await adminGet<{ days: { views: number }[] }>(
    rig(),
    `/api/admin/stats?from=${today()}&to=${today()}`,
  );
  const guest = await rig().browser.newContext({ baseURL: rig().stack.baseUrl, userAgent: READER });
  const reader = await guest.newPage();
  // Each page's beacon goes when the browser is idle, so they may leave in any order: the page
  // stays open until all three have gone.
  let beacons = 0;
  reader.on('request', (request) => {
    if (request.url().endsWith('/api/views')) beacons++;
  });
  await reader.goto('/');
  await reader.getByRole('link', { name: 'Read by a guest' }).first().click();
  await reader.getByRole('heading', { level: 1, name: 'Read by a guest' }).waitFor();
  await reader.getByRole('link', { name: 'About' }).first().click();
  await reader.getByText('counts page views without cookies').waitFor();
  await eventually(async () => expect(beacons).toBe(3));
  await guest.close();
  await eventually(async () => {
    const now = await adminGet<{ days: { views: number }[] }>(
      rig(),
      `/api/admin/stats?from=${today()}&to=${today()}`,
    );
    expect(now.days[0]!.views).toBe(before.days[0]!.views + 3);
  });

  ({ context, page } = await newAdminPage(rig()));
  await openAsAdmin(rig(), page, '/admin?tab=stats&range=7');
  await page.getByRole('img', { name: /Views \(bars\) and visitors \(line\) per day/ }).waitFor();
  const top = page.getByRole('table', { name: 'Top posts' });
  await top.getByRole('link', { name: 'Read by a guest', exact: true }).waitFor();
  expect(
    await top.getByRole('row').filter({ hasText: 'Read by a guest' }).getByRole('cell').first().textContent(),
  ).toBe('1');
  await page.getByRole('button', { name: 'Show the chart as a table' }).click();
  const days = page.getByRole('table', { name: /Views and visitors per day/ });
  expect(
    await days.getByRole('row').filter({ hasText: today() }).getByRole('cell').first().textContent(),
  ).toBe(String(before.days[0]!.views + 3));
  expect(await axeProblems(page)).toEqual([]);
  await screenshot(page, 'stats-tab');
  // The range is in the URL; the post's own figures open from its row.
  expect(new URL(page.url()).searchParams.get('range')).toBe('7');
  await page.getByRole('link', { name: 'statistics of Read by a guest', exact: true }).click();
  await page.getByRole('heading', { name: 'Statistics: Read by a guest' }).waitFor();
  expect(new URL(page.url()).searchParams.get('post')).toBe(String(post.id));

  // The admin's own reading sends no beacon.
  const counted = await adminGet<{ days: { views: number }[] }>(
    rig(),
    `/api/admin/stats?from=${today()}&to=${today()}`,
  );
  await page.goto(post.url!);
  await page.getByRole('heading', { level: 1, name: 'Read by a guest' }).waitFor();
  await page.waitForTimeout(500);
  const after = await adminGet<{ days: { views: number }[] }>(
    rig(),
    `/api/admin/stats?from=${today()}&to=${today()}`,
  );
  expect(after.days[0]!.views).toBe(counted.days[0]!.views);
}, 90_000);

test('the Stats tab on a phone-sized screen, with axe', async () => {
  ({ context, page } = await newAdminPage(rig(), { width: 390, height: 844 }));
  await openAsAdmin(rig(), page, '/admin?tab=stats');
  await page.getByText(/by \d+ visitors? in/).waitFor();
  expect(await pastTheScreen(page, 390)).toEqual([]);
  expect(await axeProblems(page)).toEqual([]);
  await screenshot(page, 'stats-phone');
});
