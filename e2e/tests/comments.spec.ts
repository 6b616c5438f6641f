/**
 * Comments under a post, in Chromium against the built stack: a reader signs in
 * from the post ("Sign in to comment" comes back to it), is refused a comment over the length
 * cap, sends one, the owner approves it in the dashboard's Comments tab (status in the URL),
 * and a visitor without JavaScript reads it in the server's page; a reply sits under its
 * comment. axe checks the post with comments and the Comments tab; screenshots at desktop and
 * phone sizes (SCREENSHOTS=dir).
 */
import { COMMENT_CONTENT_MAX, COMMENTS_PER_READER_HOUR, CommentErrors, type PostView } from '@blog/contracts';
import type { BrowserContext, Page } from 'playwright-core';
import { axeProblems } from '../support/axe.js';
import { eventually, newAdminPage, openAsAdmin, screenshot, useAdminRig } from '../support/admin-rig.js';
import { createPost, signInApi } from '../support/content.js';

const rig = useAdminRig();
const reader = { username: `reader-${Date.now().toString(36)}`, password: 'a-long-enough-password' };
const PHONE = { width: 390, height: 844 };
const COMMENT_TEXT = 'The new roof looks great. <script>window.hacked = 1</script> Which felt did you use?';
const REPLY_TEXT = 'Thanks! Plain bitumen felt, two layers.';
let post: PostView;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  const base = rig().stack.baseUrl;
  post = await createPost(base, rig().token, {
    title: 'The shed gets a roof',
    content: 'The **new roof** is on.',
    category: 'Projects',
    date: '2025-05-01T12:00',
  });
  const registered = await fetch(`${base}/api/auth/register`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(reader),
  });
  if (!registered.ok) throw new Error(`register: ${registered.status} ${await registered.text()}`);
}, 60_000);

afterEach(async () => {
  await Promise.all(contexts.splice(0).map((c) => c.close()));
});

async function open(viewport = { width: 1280, height: 800 }): Promise<Page> {
  const { context, page } = await newAdminPage(rig(), viewport);
  contexts.push(context);
  return page;
}

async function noScriptPage(viewport = { width: 1280, height: 800 }): Promise<Page> {
  const context = await rig().browser.newContext({
    baseURL: rig().stack.baseUrl,
    javaScriptEnabled: false,
    viewport,
  });
  contexts.push(context);
  context.setDefaultTimeout(15_000);
  return context.newPage();
}

const hydrated = (page: Page) => page.locator('html[data-hydrated]').waitFor({ state: 'attached' });
const comments = (page: Page) => page.locator('#comments');

/** The admin's call, as the Comments tab makes it. */
async function adminPost(path: string) {
  const response = await fetch(`${rig().stack.baseUrl}${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${rig().token}` },
  });
  if (!response.ok) throw new Error(`${path}: ${response.status}`);
}

test('a reader comments, the owner approves it in the Comments tab, a visitor without JavaScript reads it', async () => {
  // A guest: the empty state and the way to sign in, which comes back to the post.
  const page = await open();
  await page.goto(post.url!);
  await hydrated(page);
  await comments(page).getByRole('heading', { name: 'No comments yet' }).waitFor();
  await comments(page).getByRole('link', { name: 'Sign in to comment' }).click();
  await page.waitForURL((url) => url.pathname === '/login');
  await page.getByLabel('Username').fill(reader.username);
  await page.getByLabel('Password').fill(reader.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL((url) => url.pathname === post.url);

  // Over the cap: the count says so, and the contract's text shows by the field; nothing is sent.
  const field = comments(page).getByLabel('Your comment');
  await field.fill('x'.repeat(COMMENT_CONTENT_MAX + 1));
  await comments(page).getByText('1 character too many').waitFor();
  const sent: string[] = [];
  page.on('request', (request) => {
    if (request.method() === 'POST' && request.url().includes('/comments')) sent.push(request.url());
  });
  await comments(page).getByRole('button', { name: 'Send comment' }).click();
  await comments(page).getByRole('alert').getByText(CommentErrors.contentTooLong).waitFor();
  expect(await field.getAttribute('aria-invalid')).toBe('true');
  expect(sent).toEqual([]);
  await screenshot(page, 'post-comment-too-long-desktop');

  await field.fill(COMMENT_TEXT);
  await comments(page).getByRole('button', { name: 'Send comment' }).click();
  await comments(page).getByText('Thanks — your comment waits for approval.').waitFor();
  expect(await field.inputValue()).toBe('');
  expect(sent).toHaveLength(1);
  await page.setViewportSize(PHONE);
  await screenshot(page, 'post-comment-sent-phone');
  await page.setViewportSize({ width: 1280, height: 800 });
  // Pending: not under the post yet.
  await page.reload();
  await hydrated(page);
  await comments(page).getByRole('heading', { name: 'No comments yet' }).waitFor();
  await screenshot(page, 'post-comment-form-desktop');

  // The owner: the pending comment in the Comments tab, approved there.
  const admin = await open();
  await openAsAdmin(rig(), admin, '/admin?tab=comments');
  const pendingTab = admin.getByRole('tab', { name: 'Pending (1)' });
  await pendingTab.waitFor();
  expect(await pendingTab.getAttribute('aria-selected')).toBe('true');
  const row = admin.locator('.admin-comment').filter({ hasText: 'Which felt did you use?' });
  await row.getByRole('link', { name: post.title }).waitFor();
  await row.getByText(reader.username, { exact: true }).waitFor();
  expect(await axeProblems(admin)).toEqual([]);
  await screenshot(admin, 'admin-comments-desktop');
  await admin.setViewportSize(PHONE);
  await screenshot(admin, 'admin-comments-phone');
  await admin.setViewportSize({ width: 1280, height: 800 });

  await row.getByRole('button', { name: /^Approve/ }).click();
  await admin.getByText('Comment approved.').waitFor();
  await admin.getByText('No comments wait for approval.').waitFor();
  await admin.getByRole('tab', { name: 'Approved (1)' }).waitFor();
  await admin.getByRole('tab', { name: 'Pending (0)' }).waitFor();

  // The status is in the URL: shareable, and a reload keeps it.
  await admin.getByRole('tab', { name: 'Approved (1)' }).click();
  await admin.waitForURL((url) => url.searchParams.get('status') === 'approved');
  await admin.reload();
  await admin.getByRole('heading', { name: 'Admin Dashboard' }).waitFor();
  expect(await admin.getByRole('tab', { name: 'Approved (1)' }).getAttribute('aria-selected')).toBe('true');
  await admin.locator('.admin-comment').filter({ hasText: 'Which felt did you use?' }).waitFor();
  await screenshot(admin, 'admin-comments-approved-desktop');

  // A visitor without JavaScript: the comment is in the server's HTML (the page cache lasts a second).
  const visitor = await noScriptPage();
  await eventually(async () => {
    await visitor.goto(post.url!);
    expect(await comments(visitor).getByRole('heading', { level: 2 }).innerText()).toBe('1 comment');
  });
  const shown = comments(visitor).getByRole('article', { name: `Comment by ${reader.username}` });
  await shown.getByText('Which felt did you use?').waitFor();
  // Sanitised on the server: the text is there, no script of it is.
  expect(await shown.locator('script').count()).toBe(0);
  expect(await shown.locator('time').getAttribute('datetime')).toMatch(/^\d{4}-\d{2}-\d{2}T/);
  await comments(visitor).getByRole('link', { name: 'Sign in to comment' }).waitFor();
});

test('a reply sits under its comment; axe finds nothing serious on the post with comments', async () => {
  // The first test left one approved comment by the reader; the reader answers it.
  const page = await open();
  await page.goto(`/login?next=${encodeURIComponent(post.url!)}`);
  await page.getByLabel('Username').fill(reader.username);
  await page.getByLabel('Password').fill(reader.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL((url) => url.pathname === post.url);
  const reply = comments(page).getByRole('button', { name: `Reply to ${reader.username}` });
  await reply.click();
  expect(await reply.getAttribute('aria-expanded')).toBe('true');
  const field = comments(page).getByLabel(`Your reply to ${reader.username}`);
  // The reply form takes the focus as it opens.
  await eventually(async () =>
    expect(await field.evaluate((el) => el === document.activeElement)).toBe(true),
  );
  await field.fill(REPLY_TEXT);
  await comments(page).getByRole('button', { name: 'Send reply' }).click();
  await comments(page).getByText('Thanks — your comment waits for approval.').waitFor();
  await page.setViewportSize(PHONE);
  await screenshot(page, 'post-reply-sent-phone');

  const pending = await fetch(`${rig().stack.baseUrl}/api/admin/comments?status=pending`, {
    headers: { Authorization: `Bearer ${rig().token}` },
  }).then((r) => r.json() as Promise<{ items: { id: number; parentId: number | null }[] }>);
  expect(pending.items).toHaveLength(1);
  expect(pending.items[0]!.parentId).not.toBeNull();
  await adminPost(`/api/admin/comments/${pending.items[0]!.id}/approve`);

  for (const [name, viewport] of [
    ['desktop', { width: 1280, height: 800 }],
    ['phone', PHONE],
  ] as const) {
    const visitor = await open(viewport);
    const problems: string[] = [];
    visitor.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') problems.push(message.text());
    });
    visitor.on('pageerror', (error) => problems.push(error.message));
    await eventually(async () => {
      await visitor.goto(post.url!);
      expect(await comments(visitor).getByRole('heading', { level: 2 }).innerText()).toBe('2 comments');
    });
    await hydrated(visitor);
    const replies = comments(visitor).getByRole('list', { name: `Replies to ${reader.username}` });
    await replies.getByText(REPLY_TEXT).waitFor();
    expect(await axeProblems(visitor)).toEqual([]);
    // Hydrated over the server's comments with no mismatch (the dates move to the reader's zone after).
    expect(problems).toEqual([]);
    await comments(visitor).scrollIntoViewIfNeeded();
    await screenshot(visitor, `post-comments-${name}`);
  }
});

test('the owner marks a comment as spam, finds it in the Spam tab, and deletes it after a confirm', async () => {
  const base = rig().stack.baseUrl;
  const token = await signInApi(base, reader.username, reader.password);
  const sent = await fetch(`${base}/api/posts/${post.id}/comments`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
    body: JSON.stringify({ content: 'Cheap roofing felt at example.invalid' }),
  });
  expect(sent.status).toBe(202);

  const admin = await open();
  await openAsAdmin(rig(), admin, '/admin?tab=comments');
  const row = () => admin.locator('.admin-comment').filter({ hasText: 'Cheap roofing felt' });
  await row()
    .getByRole('button', { name: /^Mark as spam/ })
    .click();
  await admin.getByText('Comment marked as spam.').waitFor();
  await admin.getByText('No comments wait for approval.').waitFor();
  // The last row went: the focus stays in the tab (on its heading), not lost to the page.
  expect(await admin.evaluate(() => document.activeElement?.id)).toBe('comments-tab-heading');

  // Keyboard: the arrows move between the statuses.
  await admin.getByRole('tab', { name: /^Pending/ }).focus();
  await admin.keyboard.press('ArrowLeft');
  await admin.getByRole('tab', { name: 'Spam (1)', selected: true }).waitFor();
  await admin.waitForURL((url) => url.searchParams.get('status') === 'spam');
  await row()
    .getByRole('button', { name: /^Approve/ })
    .waitFor();

  // Delete asks first: dismissed, nothing changes; accepted, the comment is gone.
  const deletes: string[] = [];
  admin.on('request', (request) => {
    if (request.method() === 'DELETE') deletes.push(request.url());
  });
  admin.once('dialog', (dialog) => void dialog.dismiss());
  await row()
    .getByRole('button', { name: /^Delete/ })
    .click();
  await row().waitFor();
  expect(deletes).toEqual([]);
  admin.once('dialog', (dialog) => void dialog.accept());
  await row()
    .getByRole('button', { name: /^Delete/ })
    .click();
  await admin.getByText('Comment deleted.').waitFor();
  expect(deletes).toHaveLength(1);
  await admin.getByText('No comments marked as spam.').waitFor();
  await admin.getByRole('tab', { name: 'Spam (0)' }).waitFor();
  const spam = await fetch(`${base}/api/admin/comments?status=spam`, {
    headers: { Authorization: `Bearer ${rig().token}` },
  }).then((r) => r.json() as Promise<{ total: number }>);
  expect(spam.total).toBe(0);
});

test("past the hour's comments, the form says when the reader may comment again", async () => {
  // Whatever the tests above sent, the rest of the hour's allowance goes through the API.
  const base = rig().stack.baseUrl;
  const token = await signInApi(base, reader.username, reader.password);
  const statuses: number[] = [];
  for (let i = 1; i <= COMMENTS_PER_READER_HOUR && statuses.at(-1) !== 429; i++) {
    const response = await fetch(`${base}/api/posts/${post.id}/comments`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
      body: JSON.stringify({ content: `Comment ${i} of the hour` }),
    });
    statuses.push(response.status);
  }
  expect(statuses.at(-1)).toBe(429);
  expect(statuses.slice(0, -1).every((status) => status === 202)).toBe(true);
  const page = await open(PHONE);
  await page.goto(`/login?next=${encodeURIComponent(post.url!)}`);
  await page.getByLabel('Username').fill(reader.username);
  await page.getByLabel('Password').fill(reader.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL((url) => url.pathname === post.url);
  const field = comments(page).getByLabel('Your comment');
  await field.fill('One more, please.');
  await comments(page).getByRole('button', { name: 'Send comment' }).click();
  // The server's words and the wait its Retry-After names, by the field; the text stays.
  await comments(page)
    .getByRole('alert')
    .getByText(new RegExp(`^${CommentErrors.tooMany}\\. You can comment again in \\d+ (minutes?|hours?)\\.$`))
    .waitFor();
  expect(await field.inputValue()).toBe('One more, please.');
  expect(await field.getAttribute('aria-describedby')).toMatch(/comment-error/);
  await screenshot(page, 'post-comment-too-many-phone');
});
