/**
 * Writing a post in the admin (docs/product.md#screens, #how-the-screens-behave, #limits-and-timings, docs/api.md): files and a YouTube link, drag and
 * keyboard ordering, the main image crop, the upload with progress, then edit and delete.
 * Media are processed by the real worker of the embedded stack.
 */
import { AdminText } from '@blog/contracts/admin';
import { YOUTUBE_URL_ERROR } from '@blog/contracts/media';
import type { PostView } from '@blog/contracts/posts';
import { readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import sharp from 'sharp';
import { createPost, makeJpeg, makeMp4, waitMediaReady } from '../support/content.js';
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
let red: Buffer;
let blue: Buffer;
let clip: Buffer;

beforeAll(async () => {
  [red, blue, clip] = await Promise.all([
    makeJpeg(1200, 800, { r: 200, g: 30, b: 30 }),
    makeJpeg(900, 600, { r: 30, g: 30, b: 200 }),
    makeMp4(),
  ]);
}, 120_000);

beforeEach(async () => {
  ({ context, page } = await newAdminPage(rig()));
});
afterEach(() => context.close());

const mediaNames = (scope: Locator | Page = page) => scope.locator('.admin-media-name').allTextContents();
const handle = (name: string) => page.getByRole('button', { name: new RegExp(`^Reorder ${name}, position`) });

/** A real pointer drag: press, pass the 8 px activation distance, glide to the target, release. */
async function drag(from: Locator, to: Locator) {
  // The mouse works in the viewport: bring the list into it (the editor made the form taller).
  await from.scrollIntoViewIfNeeded();
  const a = (await from.boundingBox())!;
  const b = (await to.boundingBox())!;
  await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
  await page.mouse.down();
  await page.mouse.move(a.x + a.width / 2 + 12, a.y + a.height / 2, { steps: 3 });
  await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2, { steps: 12 });
  await page.mouse.move(b.x + b.width / 2 - 2, b.y + b.height / 2, { steps: 2 });
  await page.mouse.up();
}

/** Slows the upload so the progress is seen, and records every text of the upload banner. */
async function watchUpload() {
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: 20,
    downloadThroughput: -1,
    uploadThroughput: 400 * 1024,
  });
  await page.evaluate(() => {
    const seen: string[] = [];
    (window as unknown as { uploadTexts: string[] }).uploadTexts = seen;
    new MutationObserver(() => {
      for (const el of Array.from(
        document.querySelectorAll('.admin-upload-overlay h3, .admin-upload-banner'),
      )) {
        const text = el.textContent ?? '';
        if (seen.at(-1) !== text && !seen.includes(text)) seen.push(text);
      }
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  return async () => {
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: -1,
    });
    return page.evaluate(() => (window as unknown as { uploadTexts: string[] }).uploadTexts);
  };
}

test('create with two images, a video and a YouTube link; order by drag and keyboard; crop; upload with progress; edit; delete', async () => {
  await openAsAdmin(rig(), page);
  await page.getByRole('button', { name: 'New Post' }).click();
  const form = page.locator('.admin-form-card');
  await form.getByRole('heading', { name: 'New Post' }).waitFor();

  // Title is required, checked in the browser.
  await form.getByRole('button', { name: 'Create Post' }).click();
  await form.getByText('Title is required').waitFor();

  await form.getByLabel('Title', { exact: true }).fill('Race day at the track');
  await form.getByLabel('Content').fill('Two photos, a clip and a video link from the paddock.');
  await form.getByLabel('Tags (comma-separated)').fill('racing, f1');
  await form.getByLabel('Category').selectOption('Activities');
  await expect(form.getByLabel('Submenu', { exact: true }).inputValue()).resolves.toBe('Fishing');
  await form.getByLabel('Submenu', { exact: true }).selectOption('Racing');
  await expect(form.getByLabel('Sub-submenu').inputValue()).resolves.toBe('General');
  await form.getByLabel('Sub-submenu').selectOption('F1');
  await form.getByLabel('Date', { exact: true }).fill('2025-06-08');
  await form.getByLabel('Hour').selectOption('2');
  await form.getByLabel('Minute').selectOption('45');
  await form.getByLabel('AM/PM').selectOption('PM');

  await form.locator('input[type=file]').setInputFiles([
    { name: 'red.jpg', mimeType: 'image/jpeg', buffer: red },
    { name: 'blue.jpg', mimeType: 'image/jpeg', buffer: blue },
    { name: 'clip.mp4', mimeType: 'video/mp4', buffer: clip },
  ]);
  // New images show their local preview at once.
  await form.locator('.admin-media-item[data-key] img[src^="data:image/jpeg"]').nth(1).waitFor();
  // A new video shows its own first frame, read from the file (a blob: URL the CSP allows).
  const videoPreview = form.locator('.admin-media-item[data-key] video[src^="blob:"]');
  await videoPreview.waitFor();
  // The preview is the picked file itself (whether the browser can decode its codec is its own affair).
  const previewBytes = await videoPreview.evaluate(
    async (video: HTMLVideoElement) => (await (await fetch(video.src)).arrayBuffer()).byteLength,
  );
  expect(previewBytes).toBe(clip.length);

  await form.getByLabel('YouTube link').fill('https://vimeo.com/12345');
  await form.getByRole('button', { name: 'Add YouTube video' }).click();
  await form.getByText(YOUTUBE_URL_ERROR).waitFor();
  await form.getByLabel('YouTube link').fill('https://www.youtube.com/watch?v=dQw4w9WgXcQ');
  await form.getByRole('button', { name: 'Add YouTube video' }).click();
  expect(await mediaNames()).toEqual(['red.jpg', 'blue.jpg', 'clip.mp4', AdminText.youtubeTitle(1)]);
  await form.locator('.admin-media-item.is-main .admin-media-name').filter({ hasText: 'red.jpg' }).waitFor();
  expect(await axeProblems(page)).toEqual([]);
  await screenshot(page, 'form-new');

  // Drag the clip to the front with the mouse.
  await drag(handle('clip.mp4'), handle('red.jpg'));
  await eventually(async () =>
    expect(await mediaNames()).toEqual(['clip.mp4', 'red.jpg', 'blue.jpg', AdminText.youtubeTitle(1)]),
  );

  // Keyboard alone: Space lifts, an arrow moves, Space drops; a live region says where.
  await handle(AdminText.youtubeTitle(1)).focus();
  await page.keyboard.press('Space');
  await page.getByText(/Picked up YouTube Video 1, position 4 of 4/).waitFor({ state: 'attached' });
  // dnd-kit's keyboard sensor listens for the arrow keys from its next tick on.
  await page.waitForTimeout(300);
  await page.keyboard.press('ArrowLeft');
  await page.getByText(/YouTube Video 1 moved to position 3 of 4/).waitFor({ state: 'attached' });
  await page.keyboard.press('Space');
  await page.getByText(/YouTube Video 1 dropped at position 3 of 4/).waitFor({ state: 'attached' });
  await eventually(async () =>
    expect(await mediaNames()).toEqual(['clip.mp4', 'red.jpg', AdminText.youtubeTitle(1), 'blue.jpg']),
  );

  // The main image is still the first image: crop it.
  await form.getByRole('button', { name: 'Crop', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Adjust Main Image Crop' });
  await dialog.waitFor();
  await dialog.locator('img').waitFor();
  expect(await axeProblems(page)).toEqual([]);
  await dialog.getByLabel(/Zoom/).fill('2');
  const frame = (await dialog.locator('.admin-crop-frame').boundingBox())!;
  await page.mouse.move(frame.x + frame.width / 2, frame.y + frame.height / 2);
  await page.mouse.down();
  await page.mouse.move(frame.x + frame.width / 2 + 60, frame.y + frame.height / 2 + 20, { steps: 8 });
  await page.mouse.up();
  await screenshot(page, 'crop-dialog');
  await dialog.getByRole('button', { name: 'Apply Crop' }).click();
  await form.getByText(/Main image crop: zoom 2x, offset 60, 20\./).waitFor();

  const uploadTexts = await watchUpload();
  await form.getByRole('button', { name: 'Create Post' }).click();
  await page.getByText(AdminText.uploaded).waitFor({ timeout: 30_000 });
  const texts = await uploadTexts();
  expect(texts).toEqual(expect.arrayContaining([AdminText.uploadingPost, AdminText.starting]));
  expect(texts.some((t) => /^Uploading post\.\.\. ([1-9]\d?|100)%$/.test(t))).toBe(true);
  await form.waitFor({ state: 'detached' });

  // The list shows it with its four items in order, each with its state.
  const row = page.locator('.admin-post-row', { hasText: 'Race day at the track' });
  await eventually(async () => expect(await row.locator('.admin-thumb').count()).toBe(4));

  const [listed] = (await adminGet<PostView[]>(rig(), '/api/posts?search=race+day')) as PostView[];
  const ready = await waitMediaReady(rig().stack.baseUrl, rig().token, listed!.id);
  expect(ready.media.map((m) => m.type)).toEqual(['video', 'image', 'youtube', 'image']);
  expect(ready).toMatchObject({
    category: 'Activities',
    submenu1: 'Racing',
    submenu2: 'F1',
    tags: ['racing', 'f1'],
  });
  expect(ready.created_at).toBe(new Date('2025-06-08T14:45').toISOString());
  expect(ready.media[1]).toMatchObject({ name: 'red.jpg', cropX: 60, cropY: 20, cropScale: 2 });

  // The public post (no token) carries the cropped card picture, served at 400x128. The
  // public card itself is being built in parallel; this checks the API it will use.
  const publicPost = (await (await fetch(`${rig().stack.baseUrl}/api/posts/${ready.id}`)).json()) as PostView;
  const cropped = publicPost.images[0]!.croppedPreviewPath!;
  expect(cropped).toMatch(/^\/uploads\//);
  const picture = await fetch(`${rig().stack.baseUrl}${cropped}`);
  expect(picture.status).toBe(200);
  expect(await sharp(Buffer.from(await picture.arrayBuffer())).metadata()).toMatchObject({
    width: 400,
    height: 128,
  });

  // Edit: the processed thumbnails show; remove one item, change category and submenus.
  await page.reload();
  await row.getByRole('button', { name: 'Edit Race day at the track' }).click();
  const edit = page.locator('.admin-form-card');
  await edit.getByRole('heading', { name: /Edit Post/ }).waitFor();
  expect(await mediaNames(edit)).toEqual(['clip.mp4', 'red.jpg', AdminText.youtubeTitle(1), 'blue.jpg']);
  await edit.locator('.admin-media-item[data-status=ready] img[src^="/uploads/"]').nth(2).waitFor();
  await screenshot(page, 'form-edit');
  await edit.getByRole('button', { name: 'Remove blue.jpg' }).click();
  await edit.getByLabel('Category').selectOption('Garage');
  await expect(edit.getByLabel('Submenu', { exact: true }).inputValue()).resolves.toBe('Automobiles');
  await expect(edit.getByLabel('Sub-submenu').inputValue()).resolves.toBe('General');
  await edit.getByLabel('Submenu', { exact: true }).selectOption('Motorcycles');
  await expect(edit.getByLabel('Sub-submenu').inputValue()).resolves.toBe('General');
  await edit.getByLabel('Sub-submenu').selectOption({ index: 1 });
  const model = await edit.getByLabel('Sub-submenu').inputValue();
  await edit.getByRole('button', { name: 'Update Post' }).click();
  await page.getByText(AdminText.updated).waitFor();
  const updated = await adminGet<PostView>(rig(), `/api/posts/${ready.id}`);
  expect(updated).toMatchObject({ category: 'Garage', submenu1: 'Motorcycles', submenu2: model });
  expect(updated.media.map((m) => m.name ?? m.title)).toEqual([
    'clip.mp4',
    'red.jpg',
    AdminText.youtubeTitle(1),
  ]);

  // Delete after the confirmation.
  page.once('dialog', (d) => void d.accept());
  await page.getByRole('button', { name: 'Delete Race day at the track' }).click();
  await page.getByText(AdminText.noPosts).waitFor();
  expect((await fetch(`${rig().stack.baseUrl}/api/posts/${ready.id}`)).status).toBe(404);
});

test('saved settings drive the next upload: max size 400 scales a 1200 px photo to 400', async () => {
  await openAsAdmin(rig(), page, '/admin?tab=settings');
  await page.getByLabel(/Maximum image size/).fill('400');
  await page.getByRole('switch', { name: /Auto-optimise/ }).check();
  await page.getByRole('button', { name: 'Save Settings' }).click();
  await page.getByText(AdminText.settingsSaved).waitFor();

  await placeLink(page, 'Posts').click();
  await page.getByRole('button', { name: 'New Post' }).click();
  const form = page.locator('.admin-form-card');
  await form.getByLabel('Title', { exact: true }).fill('Small pictures');
  await form
    .locator('input[type=file]')
    .setInputFiles([{ name: 'wide.jpg', mimeType: 'image/jpeg', buffer: red }]);
  await form.locator('img[src^="data:image/jpeg"]').waitFor();
  // A second of network latency before the answer: every byte is sent and the overlay's
  // second stage shows while the answer is on its way.
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: 1000,
    downloadThroughput: -1,
    uploadThroughput: -1,
  });
  await form.getByRole('button', { name: 'Create Post' }).click();
  await page.getByRole('dialog', { name: AdminText.processingFiles }).getByRole('progressbar').waitFor();
  await page.getByText(AdminText.uploaded).waitFor();
  const [post] = await adminGet<PostView[]>(rig(), '/api/posts?search=small+pictures');
  const ready = await waitMediaReady(rig().stack.baseUrl, rig().token, post!.id);
  expect(ready.images[0]).toMatchObject({ width: 400, height: 267 });
});

test('a failed item shows its error and a placeholder; Retry queues it again and it turns ready', async () => {
  // A JPEG header over garbage: the worker fails it.
  const broken = Buffer.concat([
    Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]),
    Buffer.from('JFIF\0'),
    Buffer.alloc(3000, 0x5a),
  ]);
  const post = await createPost(rig().stack.baseUrl, rig().token, {
    title: 'Broken upload',
    category: 'Projects',
    files: [{ name: 'broken.jpg', type: 'image/jpeg', data: broken }],
  });
  await eventually(
    async () =>
      expect((await adminGet<PostView>(rig(), `/api/posts/${post.id}`)).media[0]!.status).toBe('failed'),
    30_000,
  );

  await openAsAdmin(rig(), page, '/admin?search=broken+upload');
  const row = page.locator('.admin-post-row', { hasText: 'Broken upload' });
  await row
    .locator('.admin-thumb[data-status=failed]')
    .getByRole('img', { name: /broken\.jpg, Failed/ })
    .waitFor();
  await row.getByRole('button', { name: 'Edit Broken upload' }).click();
  const item = page.locator('.admin-media-item[data-status=failed]');
  await item.locator('.admin-media-error').waitFor();
  expect(await item.locator('img').count()).toBe(0);
  expect(await axeProblems(page)).toEqual([]);

  // Mend the owner's original on disk (the stack stores files in its data folder), then retry.
  const originals = join(rig().stack.dataDir, 'uploads', 'private', 'originals');
  for (const file of await listFiles(originals)) {
    if ((await stat(file)).size === broken.length) await writeFile(file, blue);
  }
  await item.getByRole('button', { name: 'Retry broken.jpg' }).click();
  await page.getByText('broken.jpg is being processed again.').waitFor();
  await eventually(
    async () =>
      expect((await adminGet<PostView>(rig(), `/api/posts/${post.id}`)).media[0]!.status).toBe('ready'),
    30_000,
  );
});

test('the form, the list and the crop dialog work on a phone', async () => {
  await context.close();
  ({ context, page } = await newAdminPage(rig(), { width: 390, height: 844 }));
  await openAsAdmin(rig(), page);
  await page.getByRole('button', { name: 'New Post' }).click();
  const form = page.locator('.admin-form-card');
  await form
    .locator('input[type=file]')
    .setInputFiles([{ name: 'red.jpg', mimeType: 'image/jpeg', buffer: red }]);
  await form.locator('img[src^="data:image/jpeg"]').waitFor();
  await screenshot(page, 'phone-form');
  await form.getByRole('button', { name: 'Crop', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Adjust Main Image Crop' });
  await dialog.locator('img').waitFor();
  const frame = (await dialog.locator('.admin-crop-frame').boundingBox())!;
  expect(frame.width).toBeLessThanOrEqual(390);
  expect(Math.round((frame.width / frame.height) * 100)).toBe(Math.round((400 / 128) * 100));
  await screenshot(page, 'phone-crop');
  await dialog.getByRole('button', { name: 'Reset to Center' }).click();
  await dialog.getByRole('button', { name: 'Apply Crop' }).click();
  await form.getByText('Main image crop: zoom 1x, offset 0, 0.').waitFor();
});

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}
