/**
 * The post form's safety nets (docs/product.md#how-the-screens-behave, #limits-and-timings, #error-texts): the local draft, the browser-side file
 * checks, the save failure banners, Retry after the gateway went away, the leave-page warning.
 */
import { AdminText, DRAFT_KEY, FormSaveText, SaveBannerText, SUBMISSION_KEY } from '@blog/contracts/admin';
import { FileErrors } from '@blog/contracts/media';
import type { PostView } from '@blog/contracts/posts';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { makeJpeg } from '../support/content.js';
import {
  adminGet,
  eventually,
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
let photo: Buffer;

beforeAll(async () => {
  photo = await makeJpeg(1600, 1000, { r: 40, g: 160, b: 60 });
}, 120_000);

beforeEach(async () => {
  ({ context, page } = await newAdminPage(rig()));
});
afterEach(() => context.close());

const form = () => page.locator('.admin-form-card');
const storedDraft = () => page.evaluate((key) => localStorage.getItem(key), DRAFT_KEY);

async function openNewPost() {
  await page.getByRole('button', { name: 'New Post' }).click();
  await form().getByRole('heading', { name: 'New Post' }).waitFor();
}

test('the draft autosaves 2 s after a change, is restored after a reload without its files, and expires after 24 hours', async () => {
  await page.clock.install();
  await openAsAdmin(rig(), page);
  await openNewPost();
  await form().getByLabel('Title', { exact: true }).fill('Half-written');
  await form().getByLabel('Tags (comma-separated)').fill('draft, later');
  await form().getByLabel('YouTube link').fill('youtu.be/dQw4w9WgXcQ');
  await form().getByRole('button', { name: 'Add YouTube video' }).click();
  await form()
    .locator('input[type=file]')
    .setInputFiles([{ name: 'p.jpg', mimeType: 'image/jpeg', buffer: photo }]);
  await form().getByText('Saving...').waitFor();
  expect(await storedDraft()).toBeNull();
  await page.clock.runFor(2000);
  await form().getByText(AdminText.savedLocally).waitFor();
  const draft = JSON.parse((await storedDraft())!);
  expect(draft).toMatchObject({ title: 'Half-written', tags: 'draft, later', fileCount: 1 });
  expect(draft.youtubeVideos).toHaveLength(1);
  await page.clock.runFor(3000);
  await form().getByText(AdminText.savedLocally).waitFor({ state: 'detached' });

  await page.reload();
  await openNewPost();
  await expect(form().getByLabel('Title', { exact: true }).inputValue()).resolves.toBe('Half-written');
  await form().getByText(AdminText.draftFilesDropped).waitFor();
  expect(await form().locator('.admin-media-name').allTextContents()).toEqual([AdminText.youtubeTitle(1)]);
  expect(await axeProblems(page)).toEqual([]);

  // Save Draft writes at once; 24 hours later the draft is gone.
  await form().getByLabel('Content').fill('More words');
  await form().getByRole('button', { name: 'Save Draft' }).click();
  await form().getByText(AdminText.savedLocally).waitFor();
  expect(JSON.parse((await storedDraft())!).content).toBe('More words');
  await form().getByRole('button', { name: 'Cancel' }).click();
  await page.clock.fastForward('24:00:01');
  await openNewPost();
  await expect(form().getByLabel('Title', { exact: true }).inputValue()).resolves.toBe('');
  expect(await storedDraft()).toBeNull();
});

test('HEIC files are refused with the modal, singular and plural; a 101 MB file never leaves the browser', async () => {
  await openAsAdmin(rig(), page);
  await openNewPost();
  const uploads: string[] = [];
  // Writes only: the editor's preview (a POST that stores nothing) is not an upload.
  page.on(
    'request',
    (r) => r.method() !== 'GET' && !r.url().endsWith('/api/posts/preview') && uploads.push(r.url()),
  );
  await form()
    .locator('input[type=file]')
    .setInputFiles([
      { name: 'IMG_0001.HEIC', mimeType: 'image/heic', buffer: Buffer.from('heic') },
      { name: 'fine.jpg', mimeType: 'image/jpeg', buffer: photo },
    ]);
  const modal = page.getByRole('dialog', { name: AdminText.unsupportedTitle });
  await modal.getByText(FileErrors.heic('IMG_0001.HEIC') + FileErrors.othersProcessed).waitFor();
  expect(await axeProblems(page)).toEqual([]);
  await screenshot(page, 'heic-modal');
  await modal.getByRole('button', { name: 'OK' }).click();
  await modal.waitFor({ state: 'detached' });
  expect(await form().locator('.admin-media-name').allTextContents()).toEqual(['fine.jpg']);

  await form()
    .locator('input[type=file]')
    .setInputFiles([
      { name: 'a.heic', mimeType: 'image/heic', buffer: Buffer.from('a') },
      { name: 'b.HEIF', mimeType: '', buffer: Buffer.from('b') },
      { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') },
    ]);
  await modal.getByText(FileErrors.heicPlural(['a.heic', 'b.HEIF'])).waitFor();
  await page.keyboard.press('Escape');
  await form().getByText(FileErrors.unsupported('notes.txt')).waitFor();

  // 101 MB, as a sparse file on disk so the test stays light.
  const dir = await mkdtemp(join(tmpdir(), 'admin-big-'));
  const big = join(dir, 'huge.mp4');
  const handle = await open(big, 'w');
  await handle.truncate(101 * 1024 * 1024);
  await handle.close();
  try {
    await form().locator('input[type=file]').setInputFiles(big);
    await form().getByText(FileErrors.tooLarge('huge.mp4')).waitFor();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  expect(await form().locator('.admin-media-name').allTextContents()).toEqual(['fine.jpg']);
  expect(uploads).toEqual([]);
});

test('a 413 and a 5xx answer show their banners and notifications', async () => {
  await openAsAdmin(rig(), page);
  await openNewPost();
  await form().getByLabel('Title', { exact: true }).fill('Refused');
  // The gateway's real 413 needs a 100 MB body; a route answers it (and the 500) instead.
  await page.route('**/api/posts', (route) =>
    route.request().method() === 'POST'
      ? route.fulfill({ status: 413, contentType: 'application/json', body: '{"error":"File too large"}' })
      : route.continue(),
  );
  await form().getByRole('button', { name: 'Create Post' }).click();
  await form().getByText(SaveBannerText.tooLarge).waitFor();
  await page.getByText('Upload failed: File too large').waitFor();
  expect(await axeProblems(page)).toEqual([]);
  await screenshot(page, 'banner-413');

  await page.unroute('**/api/posts');
  await page.route('**/api/posts', (route) =>
    route.request().method() === 'POST'
      ? route.fulfill({ status: 502, contentType: 'application/json', body: '{"error":"Bad gateway"}' })
      : route.continue(),
  );
  await form().getByRole('button', { name: 'Create Post' }).click();
  await form().getByText(SaveBannerText.server).waitFor();
  await page.getByText('Upload failed: Bad gateway').waitFor();
  // Neither is a network error: no Retry.
  expect(await form().getByRole('button', { name: 'Retry', exact: true }).count()).toBe(0);
});

test('with the gateway gone the form keeps everything and offers Retry; Retry succeeds once it is back', async () => {
  await openAsAdmin(rig(), page);
  await openNewPost();
  await form().getByLabel('Title', { exact: true }).fill('Sent twice');
  await form()
    .locator('input[type=file]')
    .setInputFiles([{ name: 'p.jpg', mimeType: 'image/jpeg', buffer: photo }]);
  await form().locator('img[src^="data:image/jpeg"]').waitFor();

  // Kill the gateway; the launcher restarts it after a short delay.
  const { children } = await rig().stack.state();
  process.kill(children.gateway!, 'SIGKILL');
  await eventually(async () => {
    await expect(fetch(`${rig().stack.baseUrl}/api/health`)).rejects.toThrow();
  }, 5000);
  await form().getByRole('button', { name: 'Create Post' }).click();
  await form().getByText(FormSaveText.network).waitFor();
  await form().getByText(SaveBannerText.network).waitFor();
  expect(JSON.parse((await storedDraft())!).title).toBe('Sent twice');

  // A retry that fails again (the route refuses the connection) says so.
  await page.route('**/api/posts', (route) =>
    route.request().method() === 'POST' ? route.abort('connectionrefused') : route.continue(),
  );
  await form().getByRole('button', { name: 'Retry', exact: true }).click();
  await form().getByText(FormSaveText.retryFailed).waitFor();
  await page.unroute('**/api/posts');

  await rig().stack.waitHealthy(30_000);
  await form().getByRole('button', { name: 'Retry', exact: true }).click();
  await page.getByText(AdminText.uploaded).waitFor();
  const [post] = await adminGet<PostView[]>(rig(), '/api/posts?search=sent+twice');
  expect(post).toMatchObject({ title: 'Sent twice' });
  expect(post!.media).toHaveLength(1);
  expect(await storedDraft()).toBeNull();
});

test('an answer lost on the way after the post was stored, then Retry: one post, one file', async () => {
  await openAsAdmin(rig(), page);
  await openNewPost();
  await form().getByLabel('Title', { exact: true }).fill('Answer lost');
  await form()
    .locator('input[type=file]')
    .setInputFiles([{ name: 'lost.jpg', mimeType: 'image/jpeg', buffer: photo }]);
  await form().locator('img[src^="data:image/jpeg"]').waitFor();

  // The first create reaches the server and is stored; its answer never reaches the page.
  const keys: string[] = [];
  let stored: PostView | undefined;
  await page.route('**/api/posts', async (route) => {
    if (route.request().method() !== 'POST') return route.continue();
    keys.push((await route.request().headerValue('idempotency-key')) ?? '');
    if (stored) return route.continue();
    stored = (await (await route.fetch()).json()) as PostView;
    await route.abort('connectionreset');
  });
  await form().getByRole('button', { name: 'Create Post' }).click();
  await form().getByText(FormSaveText.network).waitFor();
  expect(stored).toMatchObject({ title: 'Answer lost' });
  // The key waits beside the draft, for a Retry after a reload too.
  const kept = await page.evaluate((key) => localStorage.getItem(key), SUBMISSION_KEY);
  expect(JSON.parse(kept!).key).toBe(keys[0]);

  await form().getByRole('button', { name: 'Retry', exact: true }).click();
  await page.getByText(AdminText.uploaded).waitFor();
  await page.unroute('**/api/posts');
  expect(keys).toHaveLength(2);
  expect(keys[1]).toBe(keys[0]);
  expect(keys[0]).toMatch(/^[0-9a-f]{32}$/);
  const posts = await adminGet<PostView[]>(rig(), '/api/posts?search=answer+lost');
  expect(posts.map((p) => p.id)).toEqual([stored!.id]);
  expect(posts[0]!.media).toHaveLength(1);
  expect(await page.evaluate((key) => localStorage.getItem(key), SUBMISSION_KEY)).toBeNull();
  // The dashboard's list shows it once.
  await placeLink(page, 'Posts').click();
  const rows = page.locator('.admin-post-row', { hasText: 'Answer lost' });
  await rows.first().waitFor();
  expect(await rows.count()).toBe(1);
});

test('leaving during an upload warns; staying lets the upload finish', async () => {
  await openAsAdmin(rig(), page);
  await openNewPost();
  await form().getByLabel('Title', { exact: true }).fill('Slow upload');
  await form()
    .locator('input[type=file]')
    .setInputFiles([{ name: 'big.jpg', mimeType: 'image/jpeg', buffer: photo }]);
  await form().locator('img[src^="data:image/jpeg"]').waitFor();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  const kbps = Math.max(8, Math.round(photo.length / 1024 / 6));
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: 0,
    downloadThroughput: -1,
    uploadThroughput: kbps * 1024,
  });
  await form().getByRole('button', { name: 'Create Post' }).click();
  await page.getByRole('dialog', { name: AdminText.uploadingPost }).waitFor();

  // A link inside the app asks with the documented words (docs/product.md#the-post-form); staying keeps the page.
  const asked = new Promise<string>((resolve) =>
    page.once('dialog', (dialog) => {
      resolve(dialog.message());
      void dialog.dismiss();
    }),
  );
  await page.evaluate(() => {
    const link = Array.from(document.querySelectorAll('a')).find((a) => a.textContent === 'About')!;
    link.click();
  });
  expect(await asked).toBe(AdminText.leaveWarning);
  expect(new URL(page.url()).pathname).toBe('/admin');

  // Closing the tab runs the browser's own beforeunload prompt.
  const unload = new Promise<string>((resolve) =>
    page.once('dialog', (dialog) => {
      resolve(dialog.type());
      void dialog.dismiss();
    }),
  );
  await page.close({ runBeforeUnload: true });
  expect(await unload).toBe('beforeunload');
  expect(page.isClosed()).toBe(false);

  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: 0,
    downloadThroughput: -1,
    uploadThroughput: -1,
  });
  await page.getByText(AdminText.uploaded).waitFor({ timeout: 30_000 });
  // The upload is throttled to about 6 s on purpose; on a loaded machine the rest adds up too.
}, 60_000);
