/**
 * The Admin Dashboard's navigation (docs/product.md, the Admin Dashboard), in Chromium against the
 * built stack: every place at 1280 px (a side column) and at 390 px (a menu behind a button), each
 * with its own ?tab= address that a reload keeps, the open place marked current, the group headings,
 * the keyboard (Tab and Enter, the menu's Enter, Space and Escape), a badge read out with its meaning,
 * and axe. Screenshots at both widths (SCREENSHOTS=dir).
 */
import type { PostView } from '@blog/contracts';
import type { BrowserContext, Page } from 'playwright-core';
import { axeProblems } from '../support/axe.js';
import {
  currentPlace,
  dashboardNav,
  newAdminPage,
  openAsAdmin,
  pastTheScreen,
  placeLink,
  screenshot,
  useAdminRig,
} from '../support/admin-rig.js';
import { createPost, signInApi } from '../support/content.js';

const rig = useAdminRig();
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

/**
 * The places this test knows, in the navigation's order: name, ?tab= value, the group heading over
 * it. The dashboard may hold more (a place is one line in its registry); the walks below take
 * every place the navigation lists.
 */
const KNOWN = [
  ['Posts', 'posts', 'Content'],
  ['Comments', 'comments', 'Content'],
  ['Followers', 'fediverse', 'Fediverse'],
  ['Subscribers', 'subscribers', 'Audience'],
  ['Messages', 'messages', 'Audience'],
  ['Site', 'site', 'Site'],
  ['Settings', 'settings', 'Site'],
  ['Users', 'users', 'Site'],
  ['Backup', 'backup', 'Site'],
  ['Stats', 'stats', null],
  ['Account', 'account', null],
] as const;

interface Place {
  name: string;
  id: string;
  group: string | null;
}

/** The places as the navigation lists them (also while the phone's menu is closed). */
function listedPlaces(page: Page): Promise<Place[]> {
  return dashboardNav(page).evaluate((nav) =>
    [...nav.querySelectorAll('a')].map((a) => {
      const heading = a.closest('ul')!.getAttribute('aria-labelledby');
      return {
        name: a.querySelector('.admin-nav-label')!.textContent!,
        id: new URL(a.href).searchParams.get('tab') ?? 'posts',
        group: heading ? document.getElementById(heading)!.textContent : null,
      };
    }),
  );
}

/** A place's accessible name, with or without a badge's ", 3 unread". */
const named = (name: string) => new RegExp(`^${name}(, .+)?$`);
const linkTo = (page: Page, name: string) => placeLink(page, named(name));

const contexts: BrowserContext[] = [];
let post: PostView;
afterEach(async () => {
  await Promise.all(contexts.splice(0).map((c) => c.close()));
});

beforeAll(async () => {
  post = await createPost(rig().stack.baseUrl, rig().token, {
    title: 'A post to comment on',
    content: 'Words.',
    category: 'Projects',
    date: '2025-05-01T12:00',
  });
}, 60_000);

async function open(viewport: { width: number; height: number }): Promise<Page> {
  const { context, page } = await newAdminPage(rig(), viewport);
  contexts.push(context);
  return page;
}

/** The place's content has loaded: no "Loading…" status is left. */
async function settled(page: Page) {
  await page.waitForFunction(
    () => ![...document.querySelectorAll('[role=status]')].some((el) => /Loading/.test(el.textContent ?? '')),
  );
}

/** The address's place: the tab parameter, or none for Posts (a bare /admin). */
function tabOf(page: Page): string | null {
  const url = new URL(page.url());
  expect(url.pathname).toBe('/admin');
  return url.searchParams.get('tab');
}

/** The one place marked current (also behind the closed menu), its content shown, the address naming it. */
async function expectAt(page: Page, name: string, id: string) {
  const current = dashboardNav(page).locator('a[aria-current="page"]');
  await current
    .filter({ has: page.locator('.admin-nav-label', { hasText: new RegExp(`^${name}$`) }) })
    .waitFor({ state: 'attached' });
  expect(await current.count()).toBe(1);
  await page.locator('.admin-panel > *').first().waitFor();
  expect(tabOf(page)).toBe(id === 'posts' ? null : id);
}

const focused = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement;
    return el ? `${el.tagName.toLowerCase()}${el.className ? `.${el.className.split(' ')[0]}` : ''}` : null;
  });

test('at 1280 px every place is a link in one side column, with its own address that a reload keeps', async () => {
  const page = await open(DESKTOP);
  await openAsAdmin(rig(), page);
  const nav = dashboardNav(page);
  await expectAt(page, 'Posts', 'posts');
  const places = await listedPlaces(page);
  expect(places).toEqual(expect.arrayContaining(KNOWN.map(([name, id, group]) => ({ name, id, group }))));
  const ids = new Set<string>(KNOWN.map((p) => p[1]));
  expect(places.filter((p) => ids.has(p.id)).map((p) => p.id)).toEqual(KNOWN.map((p) => p[1]));
  // The groups with several places have headings; each list is named by its heading.
  expect(await nav.getByRole('heading', { level: 2 }).allTextContents()).toEqual([
    'Content',
    'Fediverse',
    'Audience',
    'Site',
  ]);
  for (const group of ['Content', 'Fediverse', 'Audience', 'Site']) {
    const list = nav.getByRole('list', { name: group, exact: true });
    expect(await list.locator('.admin-nav-label').allInnerTexts()).toEqual(
      places.filter((p) => p.group === group).map((p) => p.name),
    );
  }
  // Every link is on screen, one under another; no menu button.
  expect(await nav.getByRole('link').count()).toBe(places.length);
  const lefts = await nav
    .getByRole('link')
    .evaluateAll((links) => links.map((a) => Math.round(a.getBoundingClientRect().left)));
  expect(new Set(lefts).size).toBe(1);
  expect(await nav.getByRole('button').isVisible()).toBe(false);

  for (const { name, id } of places) {
    await linkTo(page, name).click();
    await expectAt(page, name, id);
    await settled(page);
    expect(await axeProblems(page)).toEqual([]);
    await screenshot(page, `admin-nav-${id}-desktop`);
    // Reload keeps the place; so does opening its address afresh.
    await page.reload();
    await expectAt(page, name, id);
    await page.goto(id === 'posts' ? '/admin' : `/admin?tab=${id}`);
    await expectAt(page, name, id);
  }

  // The back and forward buttons walk through the places.
  const last = places.at(-1)!;
  await linkTo(page, 'Users').click();
  await expectAt(page, 'Users', 'users');
  await page.goBack();
  await expectAt(page, last.name, last.id);
  await page.goForward();
  await expectAt(page, 'Users', 'users');

  // Older links keep working: a place with its own parameters, and an unknown place opens Posts.
  await page.goto('/admin?tab=stats&range=7');
  await expectAt(page, 'Stats', 'stats');
  expect(new URL(page.url()).searchParams.get('range')).toBe('7');
  await page.goto('/admin?tab=no-such-place');
  await currentPlace(page, 'Posts').waitFor();
  await page.locator('#posts-heading').waitFor();
}, 240_000);

test('at 1280 px the keyboard walks the links in order and Enter opens a place', async () => {
  const page = await open(DESKTOP);
  await openAsAdmin(rig(), page, '/admin?tab=comments');
  await settled(page);
  const places = await listedPlaces(page);
  await linkTo(page, 'Posts').focus();
  for (const { name } of places.slice(1)) {
    await page.keyboard.press('Tab');
    expect(await linkTo(page, name).evaluate((el) => el === document.activeElement)).toBe(true);
  }
  // Back from the last place to Subscribers by Shift+Tab; Enter opens it and the focus stays on its link.
  const steps = places.length - 1 - places.findIndex((p) => p.id === 'subscribers');
  for (let i = 0; i < steps; i++) await page.keyboard.press('Shift+Tab');
  expect(await linkTo(page, 'Subscribers').evaluate((el) => el === document.activeElement)).toBe(true);
  await page.keyboard.press('Enter');
  await expectAt(page, 'Subscribers', 'subscribers');
  expect(await linkTo(page, 'Subscribers').evaluate((el) => el === document.activeElement)).toBe(true);
  // The focus ring shows on the link.
  const outline = await linkTo(page, 'Subscribers').evaluate((el) => getComputedStyle(el).outlineStyle);
  expect(outline).not.toBe('none');
}, 60_000);

test('at 390 px a menu button opens the places; Escape closes it; every place opens from it and a reload keeps it', async () => {
  const page = await open(PHONE);
  await openAsAdmin(rig(), page);
  await settled(page);
  const nav = dashboardNav(page);
  const menu = (place: string) => nav.getByRole('button', { name: `Dashboard menu: ${place}` });
  await menu('Posts').waitFor();
  expect(await menu('Posts').getAttribute('aria-expanded')).toBe('false');
  // Closed: no place's link is on screen, nor reachable by Tab.
  expect(await nav.getByRole('link').count()).toBe(0);
  expect(await pastTheScreen(page, PHONE.width)).toEqual([]);
  expect(await axeProblems(page)).toEqual([]);
  await screenshot(page, 'admin-nav-menu-closed-phone');

  // Enter opens it; the first Tab reaches the first place; Escape closes it and gives the button the focus.
  await menu('Posts').focus();
  await page.keyboard.press('Enter');
  expect(await menu('Posts').getAttribute('aria-expanded')).toBe('true');
  const places = await listedPlaces(page);
  expect(await nav.getByRole('link').count()).toBe(places.length);
  await page.keyboard.press('Tab');
  expect(await linkTo(page, 'Posts').evaluate((el) => el === document.activeElement)).toBe(true);
  expect(await pastTheScreen(page, PHONE.width)).toEqual([]);
  expect(await axeProblems(page)).toEqual([]);
  await screenshot(page, 'admin-nav-menu-open-phone');
  await page.keyboard.press('Escape');
  expect(await menu('Posts').getAttribute('aria-expanded')).toBe('false');
  expect(await menu('Posts').evaluate((el) => el === document.activeElement)).toBe(true);
  expect(await nav.getByRole('link').count()).toBe(0);
  // Space opens it too, and again closes it.
  await page.keyboard.press('Space');
  expect(await menu('Posts').getAttribute('aria-expanded')).toBe('true');
  await page.keyboard.press('Space');
  expect(await menu('Posts').getAttribute('aria-expanded')).toBe('false');

  let at = 'Posts';
  for (const { name, id } of places) {
    await menu(at).click();
    await linkTo(page, name).click();
    // The menu closes, names the new place, and the focus is on that place's content.
    await expectAt(page, name, id);
    await menu(name).waitFor();
    expect(await menu(name).getAttribute('aria-expanded')).toBe('false');
    expect(await focused(page)).toBe('div.admin-panel');
    at = name;
    await settled(page);
    expect(await pastTheScreen(page, PHONE.width)).toEqual([]);
    expect(await axeProblems(page)).toEqual([]);
    await screenshot(page, `admin-nav-${id}-phone`);
    await page.reload();
    await expectAt(page, name, id);
    await menu(name).waitFor();
  }
}, 240_000);

test('a badge counts the comments waiting, reads "Comments, 1 pending", and follows the approval', async () => {
  const base = rig().stack.baseUrl;
  const reader = { username: `badge-${Date.now().toString(36)}`, password: 'a-long-enough-password' };
  const registered = await fetch(`${base}/api/auth/register`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(reader),
  });
  expect(registered.ok).toBe(true);
  const page = await open(DESKTOP);
  await openAsAdmin(rig(), page, '/admin?tab=stats');
  await settled(page);
  // Nothing waits: the link is just its name.
  expect(await placeLink(page, /^Comments/).innerText()).toBe('Comments');

  const token = await signInApi(base, reader.username, reader.password);
  const sent = await fetch(`${base}/api/posts/${post.id}/comments`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
    body: JSON.stringify({ content: 'Waiting for the owner.' }),
  });
  expect(sent.status).toBe(202);

  // The count is read again at the next change of place.
  await placeLink(page, 'Users').click();
  const badged = placeLink(page, 'Comments, 1 pending');
  await badged.waitFor();
  expect(await badged.locator('.admin-nav-badge').innerText()).toBe('1');
  expect(await badged.locator('.admin-nav-badge').getAttribute('aria-hidden')).toBe('true');
  expect(await axeProblems(page)).toEqual([]);
  await screenshot(page, 'admin-nav-badge-desktop');

  // On the phone the badge is in the menu's list too.
  await page.setViewportSize(PHONE);
  await dashboardNav(page).getByRole('button', { name: 'Dashboard menu: Users' }).click();
  await badged.waitFor();
  expect(await pastTheScreen(page, PHONE.width)).toEqual([]);
  await screenshot(page, 'admin-nav-badge-phone');
  await badged.click();
  await page.setViewportSize(DESKTOP);

  // Approving it in the Comments tab takes the badge away at once.
  await expectAt(page, 'Comments', 'comments');
  await currentPlace(page, 'Comments, 1 pending').waitFor();
  const row = page.locator('.admin-comment').filter({ hasText: 'Waiting for the owner.' });
  await row.getByRole('button', { name: /^Approve/ }).click();
  await currentPlace(page, /^Comments$/).waitFor();
  expect(await placeLink(page, /^Comments/).innerText()).toBe('Comments');
  expect(await placeLink(page, 'Comments, 1 pending').count()).toBe(0);
}, 90_000);
