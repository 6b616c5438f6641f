/**
 * Notes and the owner's replies in Chromium against the built stack: the owner writes a note in
 * the dashboard's Notes place (its character count, the note's link; pictures with alt texts), reads it on /notes and
 * /notes/{id}, edits it in place and deletes it (its page then answers 410). Then the owner
 * answers a reader's approved comment from the Comments place, and a visitor without JavaScript
 * reads the reply under the post with its "Author" badge. Desktop (1280x800) and phone (390x844),
 * axe finds nothing serious; screenshots with SCREENSHOTS=dir.
 */
import type { PostView } from '@blog/contracts';
import type { BrowserContext, Page } from 'playwright-core';
import sharp from 'sharp';
import { axeProblems } from '../support/axe.js';
import { loadedWidth } from '../support/browser.js';
import {
  eventually,
  newAdminPage,
  openAsAdmin,
  pastTheScreen,
  screenshot,
  useAdminRig,
} from '../support/admin-rig.js';
import { createPost, signInApi } from '../support/content.js';

const rig = useAdminRig();
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const reader = { username: `reader-${Date.now().toString(36)}`, password: 'a-long-enough-password' };
const contexts: BrowserContext[] = [];
let post: PostView;

beforeAll(async () => {
  const base = rig().stack.baseUrl;
  post = await createPost(base, rig().token, {
    title: 'Sowing broad beans',
    content: 'In **November**, two inches deep.',
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

async function open(viewport = DESKTOP): Promise<Page> {
  const { context, page } = await newAdminPage(rig(), viewport);
  contexts.push(context);
  return page;
}

async function noScriptPage(viewport = DESKTOP): Promise<Page> {
  const context = await rig().browser.newContext({
    baseURL: rig().stack.baseUrl,
    javaScriptEnabled: false,
    viewport,
  });
  contexts.push(context);
  context.setDefaultTimeout(15_000);
  return context.newPage();
}

const notesPlace = (page: Page) => page.locator('section.admin-notes');

test('the owner writes a note, reads it on its pages, edits it and deletes it (410)', async () => {
  const admin = await open();
  await openAsAdmin(rig(), admin, '/admin?tab=notes');
  const place = notesPlace(admin);
  await place.getByText('No notes yet: write the first one above.').waitFor();
  expect(await axeProblems(admin)).toEqual([]);

  // Empty: refused in the form, nothing sent.
  await place.getByRole('button', { name: 'Publish note' }).click();
  await place.getByRole('alert').getByText('Write the note first.').waitFor();

  const field = place.getByLabel('New note');
  await field.fill('Planted **garlic** today.');
  await place.getByText('25 / 5,000 characters').waitFor();
  await screenshot(admin, 'notes-compose-desktop');
  await place.getByRole('button', { name: 'Publish note' }).click();
  const list = place.getByRole('list', { name: 'Notes, newest first' });
  const entry = list.getByRole('article').first();
  await entry.locator('strong', { hasText: 'garlic' }).waitFor();
  expect(await field.inputValue()).toBe('');
  const href = await entry.getByRole('link', { name: /open the note's page/ }).getAttribute('href');
  expect(href).toMatch(/^\/notes\/[1-9]\d*$/);
  expect(await axeProblems(admin)).toEqual([]);
  await screenshot(admin, 'notes-list-desktop');

  // Its page and the list, server-rendered (they carry no script; axe runs as a script here).
  const visitor = await open();
  const answer = await visitor.goto(href!);
  expect(answer?.status()).toBe(200);
  await visitor.getByRole('heading', { name: 'Note', level: 1 }).waitFor();
  await visitor.locator('article strong', { hasText: 'garlic' }).waitFor();
  expect(await axeProblems(visitor)).toEqual([]);
  await screenshot(visitor, 'note-page-desktop');
  await visitor.goto('/notes');
  await visitor.locator(`a[href="${href}"]`).waitFor();
  expect(await axeProblems(visitor)).toEqual([]);

  // Edited in place: the form closes, the page shows the new text.
  await entry.getByRole('button', { name: /^Edit/ }).click();
  const edit = entry.getByLabel('Edit the note');
  await edit.fill('Planted *onions* instead.');
  await entry.getByRole('button', { name: 'Save' }).click();
  await list.getByRole('article').first().locator('em', { hasText: 'onions' }).waitFor();
  await list.getByText('edited', { exact: false }).first().waitFor();
  await eventually(async () => {
    await visitor.goto(href!);
    expect(await visitor.locator('article em').innerText()).toBe('onions');
  });

  // The phone: no sideways scroll, axe clean.
  await admin.setViewportSize(PHONE);
  expect(await pastTheScreen(admin, PHONE.width)).toEqual([]);
  expect(await axeProblems(admin)).toEqual([]);
  await screenshot(admin, 'notes-list-phone');
  await admin.setViewportSize(DESKTOP);

  // Deleted after a confirm: the list is empty again, the page answers 410.
  admin.once('dialog', (dialog) => void dialog.accept());
  await list
    .getByRole('article')
    .first()
    .getByRole('button', { name: /^Delete/ })
    .click();
  await place.getByText('No notes yet: write the first one above.').waitFor();
  const gone = await visitor.goto(href!);
  expect(gone?.status()).toBe(410);
  await visitor.getByRole('heading', { name: 'Note deleted' }).waitFor();
});

test('the owner attaches pictures with alt texts, removes one, the note’s page shows the other; an edit removes it', async () => {
  const photo = (r: number) =>
    sharp({ create: { width: 480, height: 320, channels: 3, background: { r, g: 120, b: 60 } } })
      .jpeg()
      .toBuffer();
  const admin = await open();
  await openAsAdmin(rig(), admin, '/admin?tab=notes');
  const place = notesPlace(admin);
  await place.getByLabel('New note').fill('The beds this morning.');
  await place.getByLabel('Add pictures').setInputFiles([
    { name: 'beds.jpg', mimeType: 'image/jpeg', buffer: await photo(40) },
    { name: 'shed.jpg', mimeType: 'image/jpeg', buffer: await photo(200) },
  ]);
  const chosen = place.getByRole('list', { name: 'Chosen pictures' });
  await chosen.getByRole('listitem').nth(1).waitFor();
  await place.getByLabel('Alt text for picture 1').fill('Raised beds with young garlic');
  await place.getByLabel('Alt text for picture 2').fill('The shed');
  expect(await axeProblems(admin)).toEqual([]);
  await screenshot(admin, 'notes-pictures-desktop');
  await place.getByRole('button', { name: 'Remove picture 2 (shed.jpg)' }).click();
  expect(await chosen.getByRole('listitem').count()).toBe(1);
  await place.getByRole('button', { name: 'Publish note' }).click();
  const entry = place.getByRole('list', { name: 'Notes, newest first' }).getByRole('article').first();
  await entry.getByText('The beds this morning.').waitFor();
  expect(await place.getByRole('list', { name: 'Chosen pictures' }).count()).toBe(0);
  const href = await entry.getByRole('link', { name: /open the note's page/ }).getAttribute('href');

  // Once processed, its page draws it (with its alt text and size); the other was never sent.
  const visitor = await open();
  await eventually(async () => {
    await visitor.goto(href!);
    expect(await visitor.locator('article img').count()).toBe(1);
  }, 30_000);
  const img = visitor.locator('article img');
  expect(await img.getAttribute('alt')).toBe('Raised beds with young garlic');
  expect(await img.getAttribute('width')).toBe('480');
  expect(await loadedWidth(img)).toBeGreaterThan(0);
  expect(await axeProblems(visitor)).toEqual([]);
  await screenshot(visitor, 'note-page-picture-desktop');
  await visitor.setViewportSize(PHONE);
  expect(await pastTheScreen(visitor, PHONE.width)).toEqual([]);
  await screenshot(visitor, 'note-page-picture-phone');

  // The list draws the picture once it is processed, with no reload (it was read again while
  // the picture was being processed). Then, edited in place: the picture removed (Undo offered
  // until Save), the page then has none.
  await entry.getByRole('img', { name: 'Raised beds with young garlic' }).waitFor();
  await entry.getByRole('button', { name: /^Edit/ }).click();
  const kept = entry.getByRole('list', { name: 'Pictures of the note' });
  await kept.getByRole('button', { name: 'Remove picture 1 (Raised beds with young garlic)' }).click();
  await kept.getByRole('button', { name: /^Undo remove/ }).waitFor();
  expect(await axeProblems(admin)).toEqual([]);
  await screenshot(admin, 'notes-edit-pictures-desktop');
  await entry.getByRole('button', { name: 'Save' }).click();
  await entry.getByRole('button', { name: /^Edit/ }).waitFor();
  expect(await entry.getByRole('img').count()).toBe(0);
  await eventually(async () => {
    await visitor.goto(href!);
    expect(await visitor.locator('article img').count()).toBe(0);
  });
}, 90_000);

test('notes page by page, the cursor in the URL', async () => {
  const base = rig().stack.baseUrl;
  for (let i = 1; i <= 21; i++) {
    const made = await fetch(`${base}/api/admin/fediverse/notes`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${rig().token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ content: `Note number ${i}.` }),
    });
    expect(made.status).toBe(201);
  }
  const admin = await open(PHONE);
  await openAsAdmin(rig(), admin, '/admin?tab=notes');
  const place = notesPlace(admin);
  await place.getByText('Note number 21.').waitFor();
  expect(await place.getByText('Note number 1.', { exact: true }).count()).toBe(0);
  await place.getByRole('button', { name: 'Older notes' }).click();
  await admin.waitForURL((url) => url.searchParams.has('cursor'));
  await place.getByText('Note number 1.', { exact: true }).waitFor();
  // Shareable: a reload keeps the page.
  await admin.reload();
  await place.getByText('Note number 1.', { exact: true }).waitFor();
  expect(await axeProblems(admin)).toEqual([]);
  await screenshot(admin, 'notes-older-page-phone');
  await place.getByRole('button', { name: 'Newest' }).click();
  await place.getByText('Note number 21.').waitFor();
  expect(new URL(admin.url()).searchParams.has('cursor')).toBe(false);
});

test("the owner replies to a comment from the Comments place; the reply shows under the post as the author's", async () => {
  const base = rig().stack.baseUrl;
  const token = await signInApi(base, reader.username, reader.password);
  const written = await fetch(`${base}/api/posts/${post.id}/comments`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ content: 'Do they need netting?' }),
  });
  expect(written.ok).toBe(true);
  const { id } = (await written.json()) as { id: number };
  const approved = await fetch(`${base}/api/admin/comments/${id}/approve`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${rig().token}` },
  });
  expect(approved.ok).toBe(true);

  for (const [viewport, name] of [
    [DESKTOP, 'desktop'],
    [PHONE, 'phone'],
  ] as const) {
    const admin = await open(viewport);
    await openAsAdmin(rig(), admin, '/admin?tab=comments&status=approved');
    const row = admin.locator('.admin-comment').filter({ hasText: 'Do they need netting?' });
    await row.waitFor();
    expect(await axeProblems(admin)).toEqual([]);
    if (name === 'phone') {
      await row.getByRole('button', { name: `Reply to ${reader.username}` }).click();
      await screenshot(admin, 'comment-reply-form-phone');
      expect(await pastTheScreen(admin, PHONE.width)).toEqual([]);
      continue;
    }
    const toggle = row.getByRole('button', { name: `Reply to ${reader.username}` });
    await toggle.click();
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    // Cancel closes it, nothing sent.
    await row.getByRole('button', { name: 'Cancel' }).click();
    expect(await row.getByLabel(`Your reply to ${reader.username}`).count()).toBe(0);
    await toggle.click();
    await row.getByLabel(`Your reply to ${reader.username}`).fill('Yes, against the *pigeons*.');
    expect(await axeProblems(admin)).toEqual([]);
    await screenshot(admin, 'comment-reply-form-desktop');
    await row.getByRole('button', { name: 'Send' }).click();
    await admin.getByText('Reply published under the post.').waitFor();
    const mine = admin.locator('.admin-comment').filter({ hasText: 'against the' });
    await mine.getByText("your reply (shown as the author's)").waitFor();
    // The owner's own reply has no Reply button.
    expect(await mine.getByRole('button', { name: /^Reply/ }).count()).toBe(0);
  }

  // A visitor without JavaScript: the reply under the comment, marked "Author" in words.
  const visitor = await noScriptPage();
  await eventually(async () => {
    await visitor.goto(post.url!);
    expect(await visitor.locator('#comments .comment-badge').count()).toBe(1);
  });
  const replies = visitor.locator('#comments').getByRole('list', { name: `Replies to ${reader.username}` });
  const reply = replies.getByRole('article');
  await reply.locator('em', { hasText: 'pigeons' }).waitFor();
  expect(await reply.locator('.comment-badge').innerText()).toBe('Author');
  expect(await reply.getAttribute('aria-label')).toMatch(/, the author$/);

  // The same page with its scripts (axe is one): hydrated, the badge stays.
  for (const [viewport, name] of [
    [DESKTOP, 'desktop'],
    [PHONE, 'phone'],
  ] as const) {
    const page = await open(viewport);
    await page.goto(post.url!);
    await page.locator('html[data-hydrated]').waitFor({ state: 'attached' });
    await page.locator('#comments .comment-badge', { hasText: 'Author' }).waitFor();
    expect(await axeProblems(page)).toEqual([]);
    expect(await pastTheScreen(page, viewport.width)).toEqual([]);
    await page.locator('#comments').scrollIntoViewIfNeeded();
    await screenshot(page, `post-owner-reply-${name}`);
  }
});
