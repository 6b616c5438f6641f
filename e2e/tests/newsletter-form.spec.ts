/**
 * Every post by e-mail in the dashboard (docs/product.md#every-post-by-e-mail), in Chromium
 * against the built stack: the post form's "Send by e-mail to N subscribers" ticked by the
 * keyboard and saved with the post; a post whose e-mail is being sent shows its progress and a
 * locked box that says why, in the form and in the posts list; "Send a test to me" says where it
 * went. axe checks each state. The send's state is the mail service's: the browser is given a
 * send in progress so the test does not wait on one.
 */
import type { NewsletterStatus } from '@blog/contracts/newsletter';
import type { PostView } from '@blog/contracts/posts';
import type { BrowserContext, Page } from 'playwright-core';
import { axeProblems } from '../support/axe.js';
import { adminGet, newAdminPage, openAsAdmin, screenshot, useAdminRig } from '../support/admin-rig.js';
import { createPost } from '../support/content.js';

const rig = useAdminRig();
let context: BrowserContext;
let page: Page;

beforeEach(async () => {
  ({ context, page } = await newAdminPage(rig()));
});
afterEach(() => context.close());

const form = () => page.locator('.admin-form-card');
const SENDING: NewsletterStatus = {
  status: 'sending',
  total: 100,
  sent: 38,
  failed: 1,
  bounced: 1,
  startedAt: '2026-01-01T10:00:00.000Z',
  finishedAt: null,
};

test('a new post: the box says how many would get it, is ticked by the keyboard and saved with the post', async () => {
  await openAsAdmin(rig(), page);
  await page.getByRole('button', { name: 'New Post' }).click();
  await form().getByRole('heading', { name: 'New Post' }).waitFor();
  const box = form().getByRole('checkbox', { name: /^Send by e-mail to \d+ subscribers?$/ });
  await box.waitFor();
  // The Site setting is off by default.
  expect(await box.isChecked()).toBe(false);
  const described = (await box.getAttribute('aria-describedby'))!.split(' ');
  const hints = await Promise.all(described.map((id) => page.locator(`[id="${id}"]`).innerText()));
  expect(hints.join(' ')).toMatch(/Sent once, when the post is published/);
  // A new post has nothing to test yet.
  expect(await form().getByRole('button', { name: 'Send a test to me' }).count()).toBe(0);
  expect(await axeProblems(page)).toEqual([]);

  await box.focus();
  await page.keyboard.press('Space');
  expect(await box.isChecked()).toBe(true);
  await form().getByLabel('Title', { exact: true }).fill('Tyres by e-mail');
  await form().getByRole('button', { name: 'Create Post' }).click();
  await page.locator('.admin-post-row', { hasText: 'Tyres by e-mail' }).waitFor();
  const [saved] = (await (
    await fetch(`${rig().stack.baseUrl}/api/posts?search=${encodeURIComponent('Tyres by e-mail')}`, {
      headers: { Authorization: `Bearer ${rig().token}` },
    })
  ).json()) as PostView[];
  expect((await adminGet<PostView>(rig(), `/api/posts/${saved!.id}`)).sendByEmail).toBe(true);
  await screenshot(page, 'newsletter-new-post');
});

test('a post being sent: progress in the list and the form, the box locked with why; a test to the owner', async () => {
  const post = await createPost(rig().stack.baseUrl, rig().token, {
    title: 'Brakes by e-mail',
    content: 'New pads.',
    category: 'Projects',
    fields: { sendByEmail: 'true' },
  });
  await page.route(`**/api/admin/posts/${post.id}/email`, (route) =>
    route.fulfill({ json: SENDING, headers: { 'cache-control': 'no-store' } }),
  );
  await page.route(`**/api/admin/posts/${post.id}/email/test`, (route) =>
    route.fulfill({ json: { sentTo: 'owner@blog.example' } }),
  );
  await openAsAdmin(rig(), page);
  const row = page.locator('.admin-post-row', { hasText: 'Brakes by e-mail' });
  await row.getByText('Sending by e-mail: 40 of 100').waitFor();
  expect(await row.getByRole('progressbar').getAttribute('value')).toBe('40');
  expect(await axeProblems(page)).toEqual([]);
  await screenshot(page, 'newsletter-list-sending');

  await row.getByRole('button', { name: 'Edit Brakes by e-mail' }).click();
  await form()
    .getByRole('heading', { name: /Edit Post/ })
    .waitFor();
  await form().getByText('Sending by e-mail: 40 of 100 subscribers, 2 addresses failed.').waitFor();
  const box = form().getByRole('checkbox', { name: /^Send by e-mail to/ });
  expect(await box.isDisabled()).toBe(true);
  expect(await box.isChecked()).toBe(true);
  const described = (await box.getAttribute('aria-describedby'))!.split(' ');
  const hints = await Promise.all(described.map((id) => page.locator(`[id="${id}"]`).innerText()));
  expect(hints.join(' ')).toMatch(/e-mailed already: a post is sent once/);
  expect(await form().getByRole('progressbar').getAttribute('value')).toBe('40');

  await form().getByRole('button', { name: 'Send a test to me' }).click();
  await form().getByRole('status').getByText('Test sent to owner@blog.example.').waitFor();
  expect(await axeProblems(page)).toEqual([]);
  await screenshot(page, 'newsletter-form-sending');
});
