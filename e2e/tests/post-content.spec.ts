/**
 * What a visitor reads in a real Chromium against the whole built stack: a post
 * written in Markdown with every kind of block and its own media placed in the text, alt text
 * and captions, the cross-site-scripting corpus under the site's real CSP, and drafts that
 * the admin previews while a guest gets "not found".
 */
import { SessionKeys, type PostView } from '@blog/contracts';
import type { BrowserContext, Page } from 'playwright-core';
import { XSS_CORPUS } from '../../services/posts/test/xss-corpus.js';
import { axeProblems } from '../support/axe.js';
import { useAdminRig } from '../support/admin-rig.js';
import { createPost, makeJpeg, makeMp4, waitMediaReady } from '../support/content.js';

const rig = useAdminRig();
let article: PostView;
let hostile: PostView;
let draft: PostView;
const contexts: BrowserContext[] = [];

const ARTICLE = `Two weekends with the **roadster**: the [garage](/garage) did the rest.

## Tyres and wheels

![](media:front)

- [x] new tyres
- [ ] wheel alignment

1. jack it up
2. swap the wheels

> Check the pressure after 50 km.

| Tyre | Pressure |
|:-----|---------:|
| Front | 2.2 bar |
| Rear | 2.4 bar |

\`\`\`
torque: 110 Nm
\`\`\`

## On the road

![Rolling out of the garage](media:drive)

![](media:lap)

Read more at https://example.com/roadsters or ~~never~~ later.`;

beforeAll(async () => {
  const base = rig().stack.baseUrl;
  const { token } = rig();
  const created = await createPost(base, token, {
    title: 'Roadster weekend',
    content: ARTICLE,
    category: 'Garage',
    submenu1: 'Automobiles',
    date: '2025-04-05T10:00',
    files: [
      { name: 'front.jpg', type: 'image/jpeg', data: await makeJpeg(1600, 1000, { r: 200, g: 40, b: 40 }) },
      { name: 'drive.mp4', type: 'video/mp4', data: await makeMp4() },
    ],
    fields: {
      unifiedMedia: JSON.stringify([
        {
          type: 'image',
          order: 0,
          fileIndex: 0,
          ref: 'front',
          alt: 'Red roadster on new tyres',
          caption: 'Fresh tyres, front left',
        },
        { type: 'video', order: 1, fileIndex: 1, ref: 'drive', alt: 'Driving out', caption: 'First drive' },
        {
          type: 'youtube',
          order: 2,
          url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
          title: 'A lap',
          ref: 'lap',
        },
      ]),
    },
  });
  article = await waitMediaReady(base, token, created.id);
  hostile = await createPost(base, token, {
    title: 'Every trick in the book',
    content: XSS_CORPUS.join('\n\n'),
    category: 'More',
    date: '2025-04-01T10:00',
  });
  draft = await createPost(base, token, {
    title: 'Half-written thoughts',
    content: 'A **draft** for later.',
    category: 'More',
    date: '2025-04-02T10:00',
    fields: { status: 'draft' },
  });
}, 180_000);

afterEach(async () => {
  await Promise.all(contexts.splice(0).map((c) => c.close()));
});

/** A guest's page; `axe` lets axe-core in (the CSP forbids injected scripts otherwise). */
async function newPage(options: { axe?: boolean; admin?: boolean } = {}): Promise<Page> {
  const context = await rig().browser.newContext({ baseURL: rig().stack.baseUrl, bypassCSP: !!options.axe });
  contexts.push(context);
  context.setDefaultTimeout(10_000);
  if (options.admin) {
    await context.addInitScript(
      ({ keys, value, username }) => {
        localStorage.setItem(keys.token, value);
        localStorage.setItem(keys.username, username);
        localStorage.setItem(keys.role, 'admin');
      },
      { keys: SessionKeys, value: rig().token, username: rig().stack.admin.username },
    );
  }
  return context.newPage();
}

/** Console errors other than the outside hosts this machine cannot reach (YouTube). */
function consoleErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const where = message.location().url ?? '';
    if (/youtube|ytimg/.test(where) || /youtube|ytimg/.test(message.text())) return;
    errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  return errors;
}

describe('a post written in Markdown', () => {
  test('shows every kind of block, with its media placed in the text', async () => {
    const page = await newPage({ axe: true });
    const errors = consoleErrors(page);
    await page.goto(article.url!);
    const content = page.locator('.post-content');
    await content.waitFor();
    await expect(content.locator('h2#tyres-and-wheels').textContent()).resolves.toBe('Tyres and wheels');
    await expect(content.locator('strong').first().textContent()).resolves.toBe('roadster');
    await expect(content.locator('a[href="/garage"]').textContent()).resolves.toBe('garage');
    expect(await content.locator('input[type=checkbox][disabled]').count()).toBe(2);
    expect(await content.locator('input[type=checkbox]:checked').count()).toBe(1);
    expect(await content.locator('ol > li').count()).toBe(2);
    await expect(content.locator('blockquote').textContent()).resolves.toContain('Check the pressure');
    await expect(content.locator('td.align-right').first().textContent()).resolves.toBe('2.2 bar');
    await expect(content.locator('pre code').textContent()).resolves.toContain('torque: 110 Nm');
    await expect(content.locator('s').textContent()).resolves.toBe('never');
    await expect(
      content.locator('a[href="https://example.com/roadsters"]').getAttribute('rel'),
    ).resolves.toBe('noopener');

    // The picture: the carousel's <picture>, its alt text and caption, loaded at its size.
    const figure = content.locator('figure.post-media-image');
    const img = figure.locator('picture img');
    await expect(img.getAttribute('alt')).resolves.toBe('Red roadster on new tyres');
    await expect(figure.locator('figcaption').textContent()).resolves.toBe('Fresh tyres, front left');
    expect(await figure.locator('source[type="image/avif"]').count()).toBe(1);
    await img.scrollIntoViewIfNeeded();
    await page.waitForFunction(
      () =>
        ((document.querySelector('.post-content figure img') as HTMLImageElement | null)?.naturalWidth ?? 0) >
        0,
    );
    // The video with its poster, and YouTube through the privacy-enhanced player.
    const video = content.locator('figure.post-media-video video');
    await expect(video.getAttribute('poster')).resolves.toMatch(/^\/uploads\//);
    await expect(video.getAttribute('aria-label')).resolves.toBe('Rolling out of the garage');
    await expect(content.locator('figure.post-media-video figcaption').textContent()).resolves.toBe(
      'First drive',
    );
    await expect(content.locator('figure.post-media-youtube iframe').getAttribute('src')).resolves.toBe(
      'https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ',
    );

    // Items placed in the text stay in the carousel, which now says what each picture shows.
    const carousel = page.getByRole('region', { name: 'Roadster weekend media' });
    await expect(carousel.locator('.carousel-slide:not([hidden]) img').getAttribute('alt')).resolves.toBe(
      'Red roadster on new tyres',
    );
    await expect(carousel.locator('.carousel-caption').textContent()).resolves.toBe(
      'Fresh tyres, front left',
    );

    expect(await axeProblems(page)).toEqual([]);
    expect(errors).toEqual([]);
  });

  test('shows the plain excerpt on cards, never Markdown signs', async () => {
    const page = await newPage();
    await page.goto('/garage/automobiles');
    const card = page.locator('article.post-card', { hasText: 'Roadster weekend' });
    const preview = await card.locator('.post-preview').textContent();
    expect(preview).toMatch(/^Two weekends with the roadster: the garage did the rest\. Tyres and wheels/);
    expect(preview).not.toMatch(/[*#|`[\]]/);
  });
});

describe('the cross-site-scripting corpus under the real CSP', () => {
  test('runs nothing: no dialog, no handler, no script URL in the page', async () => {
    const page = await newPage();
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await page.goto(hostile.url!);
    const content = page.locator('.post-content');
    await content.waitFor();
    // Every element and link a reader could hover or click.
    for (const link of await content.locator('a').all()) await link.hover({ trial: false }).catch(() => {});
    await page.mouse.move(5, 5);
    const found = await page.evaluate(() => {
      const root = document.querySelector('.post-content')!;
      const problems: string[] = [];
      for (const element of Array.from(root.querySelectorAll('*'))) {
        for (const attribute of Array.from(element.attributes)) {
          if (attribute.name.startsWith('on') || attribute.name === 'style')
            problems.push(`${element.tagName}[${attribute.name}]`);
          if (/^\s*(javascript|vbscript|data):/i.test(attribute.value))
            problems.push(`${element.tagName}[${attribute.name}=${attribute.value}]`);
        }
        if (
          /^(SCRIPT|IFRAME|OBJECT|EMBED|SVG|MATH|FORM|BASE|META|LINK|STYLE|BUTTON|DETAILS)$/i.test(
            element.tagName,
          )
        )
          problems.push(element.tagName);
      }
      return problems;
    });
    expect(found).toEqual([]);
    expect(dialogs).toEqual([]);
    // The attempts show as text the writer can read.
    await expect(content.textContent()).resolves.toContain('<script>alert(1)</script>');
  });
});

describe('drafts', () => {
  test('the admin previews a draft with the visitor layout and a Draft banner', async () => {
    const page = await newPage({ admin: true, axe: true });
    await page.goto(draft.url!);
    await page.getByRole('note').filter({ hasText: 'Draft' }).waitFor();
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(
      'Half-written thoughts',
    );
    await expect(page.locator('.post-content strong').textContent()).resolves.toBe('draft');
    expect(await axeProblems(page)).toEqual([]);
  });

  test('a guest gets not found for the draft, and never sees it listed', async () => {
    const page = await newPage();
    const response = await page.goto(draft.url!);
    expect(response?.status()).toBe(404);
    await page.getByRole('heading', { name: 'No posts yet' }).waitFor();
    expect(await page.getByText('Half-written thoughts').count()).toBe(0);
    await page.goto('/more');
    await page.locator('article.post-card').first().waitFor();
    expect(await page.getByText('Half-written thoughts').count()).toBe(0);
  });
});
