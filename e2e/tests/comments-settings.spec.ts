/**
 * The comments' moderation switches, in Chromium against the built stack: the
 * owner turns on "approve comments from known commenters automatically" in the Comments tab by
 * the keyboard, a known reader's next comment then shows under the post at once while a new
 * reader's still waits; a failed save says so and puts the box back; the post form's own switch
 * acts on its post only, and a new post says it comes after the first save. The dashboard's
 * navigation is a column beside the tab at 1280 px and a menu button at 390 px. axe checks the tab;
 * screenshots at desktop and phone sizes (SCREENSHOTS=dir).
 */
import type { CommentSettings, CommentView, PostCommentSettings, PostView } from '@blog/contracts';
import type { BrowserContext, Page } from 'playwright-core';
import { axeProblems } from '../support/axe.js';
import {
  adminGet,
  eventually,
  dashboardNav,
  newAdminPage,
  openAsAdmin,
  placeLink,
  screenshot,
  useAdminRig,
} from '../support/admin-rig.js';
import { createPost, signInApi } from '../support/content.js';

const rig = useAdminRig();
const stamp = Date.now().toString(36);
const known = { username: `known-${stamp}`, password: 'a-long-enough-password' };
const stranger = { username: `new-${stamp}`, password: 'a-long-enough-password' };
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const SITE_SWITCH = 'Approve comments from known commenters automatically';
const POST_SWITCH = 'Approve comments from known commenters automatically on this post';
let shed: PostView;
let garden: PostView;
const contexts: BrowserContext[] = [];

async function register(user: { username: string; password: string }) {
  const response = await fetch(`${rig().stack.baseUrl}/api/auth/register`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(user),
  });
  if (!response.ok) throw new Error(`register: ${response.status} ${await response.text()}`);
}

/** A reader's comment through the API, as the post's form sends it: the 202's comment. */
async function comment(user: { username: string; password: string }, post: PostView, content: string) {
  const base = rig().stack.baseUrl;
  const token = await signInApi(base, user.username, user.password);
  const response = await fetch(`${base}/api/posts/${post.id}/comments`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
    body: JSON.stringify({ content }),
  });
  expect(response.status).toBe(202);
  return (await response.json()) as CommentView;
}

async function adminSend(method: 'POST' | 'PUT', path: string, body?: unknown) {
  const response = await fetch(`${rig().stack.baseUrl}${path}`, {
    method,
    headers: { Authorization: `Bearer ${rig().token}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${path}: ${response.status}`);
}

beforeAll(async () => {
  const base = rig().stack.baseUrl;
  shed = await createPost(base, rig().token, {
    title: 'The shed gets a door',
    content: 'A **door** at last.',
    category: 'Projects',
    date: '2025-05-02T12:00',
  });
  garden = await createPost(base, rig().token, {
    title: 'Beans in the garden',
    content: 'The beans are up.',
    category: 'Projects',
    date: '2025-05-03T12:00',
  });
  await register(known);
  await register(stranger);
  // The known reader: one comment, approved by the owner.
  const first = await comment(known, shed, 'Nice hinges.');
  expect(first.status).toBe('pending');
  await adminSend('POST', `/api/admin/comments/${first.id}/approve`);
}, 60_000);

afterEach(async () => {
  await Promise.all(contexts.splice(0).map((c) => c.close()));
});

async function open(viewport = DESKTOP): Promise<Page> {
  const { context, page } = await newAdminPage(rig(), viewport);
  contexts.push(context);
  return page;
}

/** The dashboard's navigation: its links on screen, their left edges, where it sits by the open place. */
async function navLayout(page: Page) {
  return dashboardNav(page).evaluate((nav) => {
    const links = [...nav.querySelectorAll('a')];
    const shown = links.filter((a) => a.getClientRects().length > 0);
    const box = nav.getBoundingClientRect();
    const panel = document.querySelector('.admin-panel')!.getBoundingClientRect();
    return {
      links: links.length,
      shown: shown.length,
      lefts: new Set(shown.map((a) => Math.round(a.getBoundingClientRect().left))).size,
      // A column to the left of the open place, which keeps most of the width.
      beside: box.right <= panel.left && panel.width >= 900,
      pageOverflows: document.documentElement.scrollWidth > window.innerWidth,
    };
  });
}

test("the site-wide switch, turned on by the keyboard, lets a known reader's next comment show at once", async () => {
  const admin = await open();
  await openAsAdmin(rig(), admin, '/admin?tab=comments');
  const box = admin.getByRole('checkbox', { name: SITE_SWITCH });
  await box.waitFor();
  expect(await box.isChecked()).toBe(false);
  // The one-line explanation is the box's description.
  const described = await box.getAttribute('aria-describedby');
  expect(await admin.locator(`[id="${described}"]`).innerText()).toMatch(
    /^Known: someone with an approved comment before\./,
  );

  // The navigation at 1280 px: every place in one column beside the tab, no menu button.
  const wide = await navLayout(admin);
  expect(wide.shown).toBe(wide.links);
  expect(wide.links).toBeGreaterThanOrEqual(11);
  expect(wide.lefts).toBe(1);
  expect(wide.beside).toBe(true);
  expect(wide.pageOverflows).toBe(false);
  expect(await dashboardNav(admin).getByRole('button').isVisible()).toBe(false);
  expect(await axeProblems(admin)).toEqual([]);
  await screenshot(admin, 'comments-settings-off-desktop');

  // Keyboard: Tab reaches the box, Space turns it on; the server's answer confirms it.
  await admin.getByRole('heading', { name: 'Comments', level: 2 }).focus();
  await admin.keyboard.press('Tab');
  expect(await box.evaluate((el) => el === document.activeElement)).toBe(true);
  await admin.keyboard.press('Space');
  await admin
    .getByRole('status')
    .getByText('Saved: comments from known commenters now show at once.')
    .waitFor();
  expect(await box.isChecked()).toBe(true);
  expect(await box.evaluate((el) => el === document.activeElement)).toBe(true);
  expect(await adminGet<CommentSettings>(rig(), '/api/admin/comments/settings')).toEqual({
    autoApproveKnown: true,
  });
  expect(await axeProblems(admin)).toEqual([]);
  await screenshot(admin, 'comments-settings-on-desktop');

  // On a phone the places wait behind the menu button, which names the open one; the page does not overflow.
  await admin.setViewportSize(PHONE);
  await admin.reload();
  await box.waitFor();
  expect(await box.isChecked()).toBe(true);
  const menu = dashboardNav(admin).getByRole('button', { name: 'Dashboard menu: Comments' });
  expect(await menu.getAttribute('aria-expanded')).toBe('false');
  const narrow = await navLayout(admin);
  expect(narrow.shown).toBe(0);
  expect(narrow.pageOverflows).toBe(false);
  expect(await axeProblems(admin)).toEqual([]);
  await screenshot(admin, 'comments-settings-on-phone');
  // Opening the last place by the keyboard: the menu opens, Enter on Account opens it, the menu closes.
  await menu.focus();
  await admin.keyboard.press('Enter');
  expect(await menu.getAttribute('aria-expanded')).toBe('true');
  expect((await navLayout(admin)).shown).toBe(narrow.links);
  await placeLink(admin, 'Account').focus();
  await admin.keyboard.press('Enter');
  await dashboardNav(admin)
    .getByRole('button', { name: 'Dashboard menu: Account', expanded: false })
    .waitFor();
  expect(new URL(admin.url()).searchParams.get('tab')).toBe('account');
  expect((await navLayout(admin)).shown).toBe(0);
  // Behind the closed menu, Account is the place marked current.
  expect(
    await dashboardNav(admin)
      .locator('a[aria-current="page"]')
      .evaluateAll((links) => links.map((a) => a.textContent)),
  ).toEqual(['Account']);
  await screenshot(admin, 'dashboard-menu-account-phone');

  // The known reader, in the browser: the comment is published and shows under the post at once.
  const reader = await open();
  await reader.goto(`/login?next=${encodeURIComponent(shed.url!)}`);
  await reader.getByLabel('Username').fill(known.username);
  await reader.getByLabel('Password').fill(known.password);
  await reader.getByRole('button', { name: 'Sign in', exact: true }).click();
  await reader.waitForURL((url) => url.pathname === shed.url);
  const comments = reader.locator('#comments');
  await comments.getByRole('heading', { name: '1 comment' }).waitFor();
  await comments.getByLabel('Your comment').fill('The door swings both ways now.');
  await comments.getByRole('button', { name: 'Send comment' }).click();
  await comments.getByText('Thanks — your comment is published.').waitFor();
  await comments.getByRole('heading', { name: '2 comments' }).waitFor();
  await comments.getByText('The door swings both ways now.').waitFor();
  await screenshot(reader, 'comments-settings-published-desktop');

  // A reader with no approved comment still waits for the owner.
  expect((await comment(stranger, shed, 'First time here.')).status).toBe('pending');
});

test('a save that fails says so and puts the box back; nothing changes on the server', async () => {
  const admin = await open(PHONE);
  await openAsAdmin(rig(), admin, '/admin?tab=comments');
  const box = admin.getByRole('checkbox', { name: SITE_SWITCH });
  await box.waitFor();
  expect(await box.isChecked()).toBe(true);
  // The connection drops under the save (the only failure the owner can meet with a good request).
  await admin.route('**/api/admin/comments/settings', (route) =>
    route.request().method() === 'PUT' ? route.abort('connectionfailed') : route.fallback(),
  );
  await box.click();
  await admin.getByRole('alert').getByText('The setting could not be saved. Please try again.').waitFor();
  expect(await box.isChecked()).toBe(true);
  expect(await adminGet<CommentSettings>(rig(), '/api/admin/comments/settings')).toEqual({
    autoApproveKnown: true,
  });
  await screenshot(admin, 'comments-settings-failed-phone');

  // Without the fault the same click turns it off.
  await admin.unrouteAll();
  await box.click();
  await admin.getByText('Saved: new comments wait for your approval').waitFor();
  expect(await box.isChecked()).toBe(false);
  expect(await adminGet<CommentSettings>(rig(), '/api/admin/comments/settings')).toEqual({
    autoApproveKnown: false,
  });
  expect((await comment(known, shed, 'Back to waiting.')).status).toBe('pending');
});

test("the post form's switch acts on its own post; a new post gets it after the first save", async () => {
  expect(await adminGet<CommentSettings>(rig(), '/api/admin/comments/settings')).toEqual({
    autoApproveKnown: false,
  });
  const admin = await open();
  await openAsAdmin(rig(), admin);

  // A new post: no switch yet, a note says when it comes.
  await admin.getByRole('button', { name: 'New Post' }).click();
  const newForm = admin.locator('.admin-form-card').filter({ hasText: 'New Post' });
  const newComments = newForm.getByRole('group', { name: 'Comments' });
  await newComments.getByText('The comment settings of this post can be set after its first save.').waitFor();
  expect(await newComments.getByRole('checkbox').count()).toBe(0);
  await newForm.getByRole('button', { name: 'Cancel' }).click();

  // An existing post: its own switch, off until set, saved at once.
  await admin.getByRole('button', { name: `Edit ${garden.title}` }).click();
  const form = admin.locator('.admin-form-card').filter({ hasText: `Edit Post: ${garden.title}` });
  const group = form.getByRole('group', { name: 'Comments' });
  const box = group.getByRole('checkbox', { name: POST_SWITCH });
  await box.waitFor();
  expect(await box.isChecked()).toBe(false);
  const updates: string[] = [];
  admin.on('request', (request) => {
    if (request.method() === 'PUT') updates.push(new URL(request.url()).pathname);
  });
  await box.focus();
  await admin.keyboard.press('Space');
  await group.getByText('Saved: on this post, comments from known commenters show at once.').waitFor();
  expect(await box.isChecked()).toBe(true);
  // Only the switch went to the server; the post itself was not sent.
  expect(updates).toEqual([`/api/admin/posts/${garden.id}/comments/settings`]);
  // Enter on the box does not send the post form.
  await admin.keyboard.press('Enter');
  await form.getByRole('button', { name: 'Update Post' }).waitFor();
  expect(updates).toHaveLength(1);
  expect(await axeProblems(admin)).toEqual([]);
  await group.scrollIntoViewIfNeeded();
  await screenshot(admin, 'post-form-comments-desktop');
  await admin.setViewportSize(PHONE);
  await group.scrollIntoViewIfNeeded();
  await screenshot(admin, 'post-form-comments-phone');

  expect(
    await adminGet<PostCommentSettings>(rig(), `/api/admin/posts/${garden.id}/comments/settings`),
  ).toEqual({ postId: garden.id, autoApproveKnown: true });
  // The known reader: at once on this post, still waiting on the other; a new reader waits here too.
  expect((await comment(known, garden, 'Runner beans?')).status).toBe('approved');
  expect((await comment(known, shed, 'Still waiting here.')).status).toBe('pending');
  expect((await comment(stranger, garden, 'Which beans?')).status).toBe('pending');

  // Opened again, the form loads the stored value.
  await form.getByRole('button', { name: 'Cancel' }).click();
  await admin.getByRole('button', { name: `Edit ${garden.title}` }).click();
  await eventually(async () => expect(await box.isChecked()).toBe(true));
});
