/**
 * Writing in the admin in a real Chromium against the whole built stack: the
 * Markdown editor's toolbar and shortcuts, the preview from the server's renderer, a picture
 * dropped into the text that a visitor then sees in place, alt text reaching the visitor's
 * page, drafts and the Scheduled note, the keyboard, and axe on the form.
 */
import type { PostView } from '@blog/contracts/posts';
import type { BrowserContext, Page } from 'playwright-core';
import { makeJpeg } from '../support/content.js';
import {
  adminGet,
  eventually,
  newAdminPage,
  openAsAdmin,
  screenshot,
  useAdminRig,
} from '../support/admin-rig.js';
import { axeProblems } from '../support/axe.js';

const rig = useAdminRig();
let context: BrowserContext;
let page: Page;
let photo: Buffer;

beforeAll(async () => {
  photo = await makeJpeg(1400, 900, { r: 200, g: 40, b: 40 });
}, 120_000);

beforeEach(async () => {
  ({ context, page } = await newAdminPage(rig()));
});
afterEach(() => context.close());

const form = () => page.locator('.admin-form-card');
const editor = () => form().getByRole('textbox', { name: 'Content' });
/** The editor's text, line by line as CodeMirror holds it. */
const text = () =>
  editor().evaluate((element) =>
    [...element.querySelectorAll('.cm-line')].map((line) => line.textContent ?? '').join('\n'),
  );
const modifier = process.platform === 'darwin' ? 'Meta' : 'Control';

async function openNewPost() {
  await openAsAdmin(rig(), page);
  await page.getByRole('button', { name: 'New Post' }).click();
  await form().getByRole('heading', { name: 'New Post' }).waitFor();
  await editor().waitFor();
}

/** Drops a picture on the editor as a person dragging it from their files would. */
async function dropPicture(name: string, data: Buffer) {
  const box = (await editor().boundingBox())!;
  const transfer = await page.evaluateHandle(
    ({ name, bytes }) => {
      const dt = new DataTransfer();
      dt.items.add(new File([new Uint8Array(bytes)], name, { type: 'image/jpeg' }));
      return dt;
    },
    { name, bytes: [...data] },
  );
  const at = { clientX: box.x + 20, clientY: box.y + box.height - 10 };
  await editor().dispatchEvent('dragover', { dataTransfer: transfer, ...at });
  await editor().dispatchEvent('drop', { dataTransfer: transfer, ...at });
}

async function save() {
  await form().getByRole('button', { name: 'Create Post' }).click();
  await page.getByText('Post uploaded successfully!').waitFor({ timeout: 60_000 });
}

test('the toolbar and shortcuts format the text; the preview is the server’s HTML', async () => {
  await openNewPost();
  await form().getByLabel('Title', { exact: true }).fill('Formatting test');
  await editor().click();
  await page.keyboard.type('Fitted new tyres');
  // Select "tyres" and make it bold with the toolbar, then italic with the shortcut.
  for (let i = 0; i < 5; i++) await page.keyboard.press('Shift+ArrowLeft');
  await form().getByRole('button', { name: 'Bold' }).click();
  expect(await text()).toBe('Fitted new **tyres**');
  await page.keyboard.press(`${modifier}+b`); // and off again
  expect(await text()).toBe('Fitted new tyres');
  await page.keyboard.press('End');
  await page.keyboard.press('Enter');
  await page.keyboard.press('Enter');
  await form().getByRole('button', { name: 'Heading' }).click();
  await page.keyboard.type('Steps');
  await page.keyboard.press('Enter');
  await form().getByRole('button', { name: 'Bulleted list' }).click();
  await page.keyboard.type('jack it up');
  await page.keyboard.press('Enter'); // the list continues
  await page.keyboard.type('swap the wheels');
  await page.keyboard.press('Enter');
  await page.keyboard.press('Enter'); // an empty item ends the list
  await page.keyboard.press('Enter');
  await page.keyboard.type('the shop');
  for (let i = 0; i < 4; i++) await page.keyboard.press('Shift+ArrowLeft');
  // A URL pasted over a selection makes a link.
  await page.evaluate(() => {
    const data = new DataTransfer();
    data.setData('text/plain', 'https://example.com/shop');
    document
      .querySelector('.cm-content')!
      .dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
  });
  await page.keyboard.type(' or ');
  await page.keyboard.press(`${modifier}+k`);
  await page.keyboard.type('call');
  expect(await text()).toBe(
    'Fitted new tyres\n\n## Steps\n- jack it up\n- swap the wheels\n\nthe [shop](https://example.com/shop) or [call](https://)',
  );
  await expect(
    form()
      .getByText(/^14 words · 1 min read$/)
      .isVisible(),
  ).resolves.toBe(true);

  // Side by side at this width; the Preview tab shows the preview alone.
  const preview = form().getByRole('region', { name: 'Preview' });
  await eventually(async () => expect(await preview.locator('h2#steps').textContent()).toBe('Steps'));
  await form().getByRole('tab', { name: 'Preview' }).click();
  await expect(preview.locator('ul li').allTextContents()).resolves.toEqual([
    'jack it up',
    'swap the wheels',
  ]);
  await expect(preview.locator('a[href="https://example.com/shop"]').getAttribute('rel')).resolves.toBe(
    'noopener',
  );
  expect(await editor().isVisible()).toBe(false);
  await form().getByRole('tab', { name: 'Write' }).click();
  await editor().waitFor();
  await screenshot(page, 'admin-editor');
  expect(await axeProblems(page)).toEqual([]);
});

test('Tab moves into and out of the editor like any field', async () => {
  await openNewPost();
  await form().getByLabel('Title', { exact: true }).focus();
  // Title → the tabs and toolbar → the text; then Tab leaves the text for the next field.
  for (let i = 0; i < 20; i++) {
    await page.keyboard.press('Tab');
    if (await editor().evaluate((element) => element === document.activeElement)) break;
  }
  expect(await editor().evaluate((element) => element === document.activeElement)).toBe(true);
  await page.keyboard.type('typed here');
  await page.keyboard.press('Tab');
  expect(await text()).toBe('typed here');
  expect(await editor().evaluate((element) => element === document.activeElement)).toBe(false);
  const focused = await page.evaluate(() => document.activeElement?.closest('.admin-form-card') !== null);
  expect(focused).toBe(true);
});

test('a picture dropped into the text joins the media, uploads with the post and shows in place for a visitor, with its alt text', async () => {
  await openNewPost();
  await form().getByLabel('Title', { exact: true }).fill('Dropped picture');
  await editor().click();
  await page.keyboard.type('Before the picture.');
  await dropPicture('dropped.jpg', photo);
  await eventually(async () =>
    expect(await form().locator('.admin-media-name').allTextContents()).toEqual(['dropped.jpg']),
  );
  expect(await text()).toMatch(/^Before the picture\.\n\n!\[\]\(media:new-[a-z0-9]+\)$/);
  await editor().press('End');
  await page.keyboard.press('Enter');
  await page.keyboard.press('Enter');
  await page.keyboard.type('After the picture.');
  await form().getByLabel('Alt text for dropped.jpg').fill('A red test card');
  await form().getByLabel('Caption for dropped.jpg').fill('Dropped in place');
  expect(await axeProblems(page)).toEqual([]);
  await save();

  const [post] = await adminGet<PostView[]>(rig(), '/api/posts?search=Dropped+picture');
  const item = post!.media[0]!;
  expect(post!.content).toBe(`Before the picture.\n\n![](media:${item.id})\n\nAfter the picture.`);
  await eventually(
    async () => expect((await adminGet<PostView>(rig(), `/api/posts/${post!.id}`)).mediaReady).toBe(true),
    60_000,
  );

  // A visitor's page: the picture between the paragraphs and in the carousel, with its alt text.
  const visitor = await rig().browser.newContext({ baseURL: rig().stack.baseUrl });
  try {
    const reader = await visitor.newPage();
    await reader.goto(post!.url!);
    const figure = reader.locator('.post-content figure');
    await figure.waitFor();
    await expect(figure.locator('img').getAttribute('alt')).resolves.toBe('A red test card');
    await expect(figure.locator('figcaption').textContent()).resolves.toBe('Dropped in place');
    await expect(reader.locator('.post-content p').allTextContents()).resolves.toEqual([
      'Before the picture.',
      'After the picture.',
    ]);
    await expect(reader.locator('.carousel-slide:not([hidden]) img').getAttribute('alt')).resolves.toBe(
      'A red test card',
    );
  } finally {
    await visitor.close();
  }
});

test('a draft is marked in the list and is nowhere for a guest; a date ahead says Scheduled', async () => {
  await openNewPost();
  await form().getByLabel('Title', { exact: true }).fill('Quiet draft');
  await editor().click();
  await page.keyboard.type('Not for readers yet.');
  const status = form().getByLabel('Status');
  await status.selectOption('draft');
  await expect(form().getByText('Only you can see a draft.').isVisible()).resolves.toBe(true);
  await status.selectOption('published');
  await form()
    .getByLabel('Date', { exact: true })
    .fill(`${new Date().getFullYear() + 1}-06-01`);
  await expect(
    form()
      .getByText(/^Scheduled for /)
      .isVisible(),
  ).resolves.toBe(true);
  await status.selectOption('draft');
  await save();

  const row = page.locator('.admin-post-row', { hasText: 'Quiet draft' });
  await expect(row.locator('.admin-status').first().textContent()).resolves.toBe('Draft');
  // The status filter lives in the URL.
  await page.locator('#filter-status').selectOption('draft');
  await eventually(async () => expect(new URL(page.url()).searchParams.get('status')).toBe('draft'));
  await eventually(async () =>
    expect(await page.locator('.admin-post-row .admin-post-title').allTextContents()).toEqual([
      'Quiet draft',
    ]),
  );
  await page.reload();
  await eventually(async () =>
    expect(await page.locator('.admin-post-row .admin-post-title').allTextContents()).toEqual([
      'Quiet draft',
    ]),
  );
  await expect(page.locator('#filter-status').inputValue()).resolves.toBe('draft');

  const [post] = await adminGet<PostView[]>(rig(), '/api/posts?status=draft');
  expect((await fetch(`${rig().stack.baseUrl}/api/posts/by-slug/${post!.slug}`)).status).toBe(404);
  expect((await fetch(`${rig().stack.baseUrl}${post!.url}`)).status).toBe(404);
});
