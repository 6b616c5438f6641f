/**
 * The Admin Dashboard's places, post list filters and paging, settings, the mail lists and the
 * digest, and its guards (docs/product.md#screens, #how-the-screens-behave, #error-texts), in Chromium against the whole built stack.
 */
import { AdminText, SETTINGS_MESSAGE_MS } from '@blog/contracts/admin';
import type { ImageSettings } from '@blog/contracts/image-settings';
import type { BrowserContext, Page } from 'playwright-core';
import { createPost } from '../support/content.js';
import {
  eventually,
  adminGet,
  currentPlace,
  newAdminPage,
  openAsAdmin,
  placeLink,
  screenshot,
  useAdminRig,
} from '../support/admin-rig.js';
import { axeProblems } from '../support/axe.js';

const rig = useAdminRig();
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  // 25 posts: 15 in Garage (10 Automobiles/Car One, 5 Motorcycles), 10 in Projects; one a day.
  for (let i = 1; i <= 25; i++) {
    const garage = i <= 15;
    await createPost(rig().stack.baseUrl, rig().token, {
      title: `Seeded post ${String(i).padStart(2, '0')}`,
      content: `${'Body text '.repeat(20)}number ${i}`,
      category: garage ? 'Garage' : 'Projects',
      submenu1: garage ? (i <= 10 ? 'Automobiles' : 'Motorcycles') : 'General',
      submenu2: garage ? (i <= 10 ? 'Car One' : 'General') : undefined,
      tags: i % 5 === 0 ? ['milestone'] : ['log'],
      date: `2025-01-${String(i).padStart(2, '0')}T10:00`,
    });
  }
}, 180_000);

beforeEach(async () => {
  ({ context, page } = await newAdminPage(rig()));
});
afterEach(() => context.close());

const countLine = () => page.locator('.admin-count');
const rowTitles = () => page.locator('.admin-post-title').allTextContents();

test('the dashboard greets the owner; each place passes axe and stays open across reload and back', async () => {
  await openAsAdmin(rig(), page);
  await page.getByText(`Welcome, ${rig().stack.admin.username}`, { exact: true }).waitFor();
  await page.getByRole('button', { name: 'New Post' }).waitFor();
  await countLine().waitFor();
  expect(await axeProblems(page)).toEqual([]);
  await screenshot(page, 'dashboard-posts');

  for (const [place, heading, id] of [
    ['Users', 'Users', 'users'],
    ['Settings', 'Image Settings', 'settings'],
    ['Messages', 'Messages', 'messages'],
    ['Subscribers', 'Subscribers', 'subscribers'],
  ] as const) {
    await placeLink(page, place).click();
    await page.getByRole('heading', { name: heading }).waitFor();
    await page.locator('[role=status]:has-text("Loading")').waitFor({ state: 'detached' });
    expect(new URL(page.url()).searchParams.get('tab')).toBe(id);
    await currentPlace(page, place).waitFor();
    expect(await axeProblems(page)).toEqual([]);
    await screenshot(page, `dashboard-${id}`);
  }
  await placeLink(page, 'Users').click();
  // Username, role and created date.
  await page
    .getByRole('row', { name: new RegExp(`^${rig().stack.admin.username} admin \\w{3} \\d{1,2}, \\d{4}$`) })
    .waitFor();

  await page.reload();
  await currentPlace(page, 'Users').waitFor();
  await page.goBack();
  await currentPlace(page, 'Subscribers').waitFor();

  // Keyboard: Tab moves on to the next place's link (Messages, after Subscribers), Enter opens it.
  await placeLink(page, 'Subscribers').focus();
  await page.keyboard.press('Tab');
  expect(await placeLink(page, 'Messages').evaluate((el) => el === document.activeElement)).toBe(true);
  await page.keyboard.press('Enter');
  await currentPlace(page, 'Messages').waitFor();
  expect(new URL(page.url()).searchParams.get('tab')).toBe('messages');
});

test('filters, count line and paging run in the API over 25 posts; the URL keeps them', async () => {
  await openAsAdmin(rig(), page);
  await expect(countLine().textContent()).resolves.toBe(AdminText.showing(1, 10, 25, 25));
  expect(await rowTitles()).toHaveLength(10);
  expect((await rowTitles())[0]).toBe('Seeded post 25');
  // Rows show the first 100 characters of content.
  const preview = await page.locator('.admin-post-preview').first().textContent();
  expect(preview!.length).toBeLessThanOrEqual(103);
  expect(preview).toMatch(/^Body text/);

  const pager = page.getByRole('navigation', { name: 'Post list pages' });
  await pager.getByRole('link', { name: 'Page 3' }).click();
  await page.getByText(AdminText.showing(21, 25, 25, 25)).waitFor();
  await eventually(async () =>
    expect(await rowTitles()).toEqual([5, 4, 3, 2, 1].map((n) => `Seeded post 0${n}`)),
  );
  await pager.getByText('Page 3 of 3 (25 total results)').waitFor();
  // Pagination brings the section header back into view.
  await page.waitForFunction(
    () => Math.abs(document.getElementById('posts-heading')!.getBoundingClientRect().top) < 4,
  );

  // A filter change returns to page 1; the category resets the submenus and dates.
  await page.getByLabel('Category').selectOption('Garage');
  await page.getByText(AdminText.showing(1, 10, 15, 25)).waitFor();
  expect(new URL(page.url()).searchParams.get('page')).toBeNull();
  await page.getByLabel('Submenu', { exact: true }).selectOption('Automobiles');
  await page.getByLabel('Sub-submenu').selectOption('Car One');
  await page.getByText(AdminText.showing(1, 10, 10, 25)).waitFor();
  await page.getByLabel('Start date').fill('2025-01-03');
  await page.getByLabel('End date').fill('2025-01-04');
  await page.getByText(AdminText.showing(1, 2, 2, 25)).waitFor();
  await page.reload();
  await page.getByText(AdminText.showing(1, 2, 2, 25)).waitFor();
  await expect(page.getByLabel('Sub-submenu').inputValue()).resolves.toBe('Car One');
  await page.getByLabel('Category').selectOption('Projects');
  await page.getByText(AdminText.showing(1, 10, 10, 25)).waitFor();
  for (const key of ['submenu1', 'submenu2', 'from', 'to'])
    expect(new URL(page.url()).searchParams.get(key)).toBeNull();
  await expect(page.getByLabel('Start date').inputValue()).resolves.toBe('');

  // Search over title, content and tags, in the API.
  await page.getByRole('button', { name: 'Clear All Filters' }).click();
  await page.getByLabel('Search text').fill('milestone');
  await page.getByText(AdminText.showing(1, 5, 5, 25)).waitFor();
  await page.getByLabel('Search text').fill('zzzz-nothing');
  await page.getByText(AdminText.noMatches).waitFor();
  expect(await axeProblems(page)).toEqual([]);
  await page.getByRole('button', { name: 'Clear Filters', exact: true }).click();
  await page.getByText(AdminText.showing(1, 10, 25, 25)).waitFor();
  await expect(page.getByLabel('Search text').inputValue()).resolves.toBe('');
});

test('settings: the sliders and the switch save, the message clears after a while (3 s); a refusal shows the server error', async () => {
  await openAsAdmin(rig(), page, '/admin?tab=settings');
  const size = page.getByLabel(/Maximum image size/);
  await size.waitFor();
  await expect(size.getAttribute('min')).resolves.toBe('400');
  await expect(size.getAttribute('max')).resolves.toBe('2000');
  await expect(size.getAttribute('step')).resolves.toBe('100');
  await size.fill('1200');
  await page.getByLabel(/Image quality/).fill('70');
  await page.getByRole('switch', { name: /Auto-optimise/ }).uncheck();
  await page.getByText('1200px').waitFor();
  await page.getByRole('button', { name: 'Save Settings' }).click();
  await page.getByText(AdminText.settingsSaved).waitFor();
  expect(await adminGet<ImageSettings>(rig(), '/api/settings')).toEqual({
    image_max_size: 1200,
    image_quality: 70,
    image_auto_optimize: false,
  });
  // Gone after SETTINGS_MESSAGE_MS (3 s on an idle machine); the wait is 10 times that, so a
  // message that stays fails and a loaded machine does not.
  await page
    .getByText(AdminText.settingsSaved)
    .waitFor({ state: 'detached', timeout: 10 * SETTINGS_MESSAGE_MS });

  // The gateway's own refusal, made by a route so the stored settings stay valid.
  await page.route('**/api/settings', (route) =>
    route.request().method() === 'PUT'
      ? route.fulfill({
          status: 400,
          contentType: 'application/json',
          body: '{"error":"image_quality is off"}',
        })
      : route.continue(),
  );
  await page.getByRole('button', { name: 'Save Settings' }).click();
  await page.getByText('Error: image_quality is off').waitFor();
  await page.unroute('**/api/settings');
  await page.route('**/api/settings', (route) =>
    route.request().method() === 'PUT' ? route.abort('connectionreset') : route.continue(),
  );
  await page.getByRole('button', { name: 'Save Settings' }).click();
  await page.getByText(AdminText.settingsFailed).waitFor();
}, 90_000);

test('Send digest now shows the answer; the messages list shows a contact message', async () => {
  const sent = await fetch(`${rig().stack.baseUrl}/api/contact`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      name: 'Ada',
      email: 'ada@example.com',
      subject: 'Hello there',
      message: 'Nice blog.',
    }),
  });
  expect(sent.status).toBeLessThan(300);
  await openAsAdmin(rig(), page, '/admin?tab=messages');
  await page.getByRole('cell', { name: 'Hello there' }).waitFor();
  await page.getByRole('button', { name: 'Send digest now' }).click();
  await page
    .locator('.admin-digest-result')
    .filter({ hasText: /sent 0, posts \d+/ })
    .waitFor();
});

test('Delete asks first, removes the post and reloads; a failed delete says so', async () => {
  await openAsAdmin(rig(), page, '/admin?search=Seeded+post+07');
  await page.getByText(AdminText.showing(1, 1, 1, 25)).waitFor();
  page.once('dialog', (dialog) => void dialog.dismiss());
  await page.getByRole('button', { name: 'Delete Seeded post 07' }).click();
  await page.getByRole('button', { name: 'Delete Seeded post 07' }).waitFor();

  await page.route('**/api/posts/*', (route) =>
    route.request().method() === 'DELETE' ? route.fulfill({ status: 500, body: '' }) : route.continue(),
  );
  page.once('dialog', (dialog) => void dialog.accept());
  await page.getByRole('button', { name: 'Delete Seeded post 07' }).click();
  await page.getByText(AdminText.deleteFailed).waitFor();
  await page.unroute('**/api/posts/*');

  page.once('dialog', (dialog) => void dialog.accept());
  await page.getByRole('button', { name: 'Delete Seeded post 07' }).click();
  // The search then forgives a typo and lists similar titles: the count names 24 posts in all.
  await countLine().filter({ hasText: '(filtered from 24 total)' }).waitFor();
  await expect(page.getByRole('button', { name: 'Delete Seeded post 07' }).count()).resolves.toBe(0);
});

test('a non-admin and an expired session are sent to /login', async () => {
  await fetch(`${rig().stack.baseUrl}/api/auth/register`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ username: 'reader', password: 'reader-password-1' }),
  });
  await page.goto('/login');
  await page.getByLabel('Username').fill('reader');
  await page.getByLabel('Password').fill('reader-password-1');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => url.pathname === '/');
  await page.goto('/admin');
  await page.waitForURL((url) => url.pathname === '/login');

  // The admin's token expires while the dashboard is open: session cleared, /login.
  await page.clock.install();
  await openAsAdmin(rig(), page);
  const exp = JSON.parse(Buffer.from(rig().token.split('.')[1]!, 'base64url').toString()).exp as number;
  await page.clock.fastForward(exp * 1000 - Date.now() + 1000);
  await page.waitForURL((url) => url.pathname === '/login');
  expect(await page.evaluate(() => localStorage.getItem('token'))).toBeNull();
});
