/**
 * The public site (docs/product.md#screens, #how-the-screens-behave, #error-texts, #limits-and-timings) in a real Chromium against the whole built
 * stack: seeded posts and media processed by the real worker. The About page's forms are in
 * about-forms.spec.ts.
 */
import type { PostView } from '@blog/contracts';
import type { BrowserContext, Page } from 'playwright-core';
import { axeProblems } from '../support/axe.js';
import { loadedWidth } from '../support/browser.js';
import { useAdminRig } from '../support/admin-rig.js';
import { createPost, makeJpeg, makeMp4, waitMediaReady } from '../support/content.js';

const rig = useAdminRig();
let context: BrowserContext;
let page: Page;
let showcase: PostView;
const SOURDOUGH_POSTS = 32;

beforeAll(async () => {
  const base = rig().stack.baseUrl;
  const { token } = rig();
  for (let i = 1; i <= SOURDOUGH_POSTS; i++) {
    await createPost(base, token, {
      title: `Sourdough diary day ${i}`,
      content: `Day ${i}: fed the starter and baked a loaf. `.repeat(10),
      category: 'Food & Bev',
      submenu1: 'Cooking',
      tags: ['bread', 'sourdough'],
      date: `2025-01-${String(i % 28 || 28).padStart(2, '0')}T08:00`,
    });
  }
  const created = await createPost(base, token, {
    title: 'Rebuilt the carburettor',
    content: 'Took the carburettor apart.\nCleaned every jet.\n\nIt idles like new now.',
    category: 'Garage',
    submenu1: 'Motorcycles',
    submenu2: 'Bike One',
    tags: ['engine', 'repair'],
    date: '2025-03-05T15:04',
    files: [
      { name: 'carb.jpg', type: 'image/jpeg', data: await makeJpeg(1600, 1000, { r: 40, g: 110, b: 160 }) },
      { name: 'bench.jpg', type: 'image/jpeg', data: await makeJpeg(1200, 900, { r: 160, g: 80, b: 40 }) },
      { name: 'run.mp4', type: 'video/mp4', data: await makeMp4() },
    ],
    youtubeUrls: ['https://www.youtube.com/watch?v=dQw4w9WgXcQ'],
    cropSettings: { x: 0, y: 0, scale: 1.2 },
  });
  showcase = await waitMediaReady(base, token, created.id);
}, 180_000);

beforeEach(async () => {
  context = await rig().browser.newContext({ baseURL: rig().stack.baseUrl, bypassCSP: true });
  context.setDefaultTimeout(10_000);
  page = await context.newPage();
});

afterEach(async () => {
  await context.close();
});

const pathOf = (p: Page) => new URL(p.url()).pathname;
const searchOf = (p: Page) => new URL(p.url()).search;
const cards = (p: Page) => p.locator('article.post-card');
/**
 * Waits for the focused element to be the one named (a menu opens in the same key press):
 * milliseconds on an idle machine, 10 s allowed.
 */
const expectFocus = (name: string) =>
  page.waitForFunction((text) => document.activeElement?.textContent === text, name, { timeout: 10_000 });
const mainNav = (p: Page) => p.getByRole('navigation', { name: 'Main' });

async function expectAccessible(p: Page) {
  expect(await axeProblems(p)).toEqual([]);
}

describe('home', () => {
  test('welcome card and Latest Posts, 15 a page, with the page in the URL', async () => {
    await page.goto('/');
    await page.getByRole('heading', { name: 'Welcome!' }).waitFor();
    await page.getByRole('heading', { name: 'Latest Posts' }).waitFor();
    await cards(page).first().waitFor(); // the heading comes first, the list once its page loads
    expect(await cards(page).count()).toBe(15);
    const total = SOURDOUGH_POSTS + 1;
    expect(await page.getByText(`Page 1 of 3 (${total} total results)`).count()).toBe(2);
    // Newest first: the carburettor post (March 2025) leads.
    await expect(cards(page).first().getByRole('heading').textContent()).resolves.toBe(
      'Rebuilt the carburettor',
    );
    // 'Read more...' on screen; its hidden words name the post for screen readers and crawlers.
    const shown = (link: Element) =>
      Array.from(link.childNodes)
        .filter((node) => node.nodeType === Node.TEXT_NODE)
        .map((node) => node.textContent)
        .join('');
    await expect(cards(page).first().locator('.read-more').evaluate(shown)).resolves.toBe('Read more...');
    await cards(page)
      .first()
      .getByRole('link', { name: /^Read more of Rebuilt the carburettor/ })
      .waitFor();
    await expect(cards(page).first().locator('.badge').textContent()).resolves.toBe('Garage');
    expect(await page.title()).toBe('My Personal Blog');

    await page
      .getByRole('navigation', { name: 'Latest posts, pages (bottom)' })
      .getByRole('link', { name: 'Next' })
      .click();
    await page.getByText(`Page 2 of 3 (${total} total results)`).first().waitFor();
    expect(searchOf(page)).toBe('?page=2');
    const secondPageFirst = await cards(page).first().getByRole('heading').textContent();
    await page.reload();
    await page.getByText('Page 2 of 3').first().waitFor();
    expect(await cards(page).first().getByRole('heading').textContent()).toBe(secondPageFirst);
    await page.getByRole('link', { name: 'Page 3' }).first().click();
    await page.getByText('Page 3 of 3').first().waitFor();
    expect(await cards(page).count()).toBe(total - 30);
    await page.goBack();
    await page.getByText('Page 2 of 3').first().waitFor();
    await expectAccessible(page);
  });

  test('a click shows the next page loading, then its list; a failed list shows the empty state', async () => {
    // The first page arrives rendered; after that each page's data is fetched as it is opened.
    await page.goto('/about');
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/api/posts?*', async (route) => {
      await held;
      await route.continue();
    });
    await mainNav(page).getByRole('link', { name: 'Home', exact: true }).click();
    await page.getByText('Loading posts...').waitFor();
    release();
    await cards(page).first().waitFor();

    const failing = await context.newPage();
    await failing.goto('/about');
    await failing.route('**/api/posts?*', (route) => route.abort('connectionfailed'));
    await mainNav(failing).getByRole('link', { name: 'Home', exact: true }).click();
    await failing.getByText('No posts yet.').waitFor();
  });
});

describe('navigation', () => {
  test('by mouse: dropdown and nested sub-dropdown to a model page', async () => {
    await page.goto('/');
    await page.getByRole('link', { name: 'Garage', exact: true }).hover();
    await page.getByRole('link', { name: 'Motorcycles', exact: true }).hover();
    await page.getByRole('link', { name: 'Bike One', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Bike One' }).waitFor();
    expect(pathOf(page)).toBe('/garage/motorcycles/bike-one');
    await page.getByRole('heading', { name: 'Rebuilt the carburettor' }).waitFor();
    // The section stays highlighted; the sidebar marks the model.
    await expect(
      mainNav(page).getByRole('link', { name: 'Garage', exact: true }).getAttribute('class'),
    ).resolves.toContain('active');
    await expect(
      page
        .getByRole('complementary', { name: 'Motorcycles pages' })
        .getByRole('link', { name: 'Bike One' })
        .getAttribute('aria-current'),
    ).resolves.toBe('page');
    await expectAccessible(page);
  });

  test('by keyboard alone: arrows move, Escape closes, Enter follows', async () => {
    await page.goto('/about');
    await page.getByRole('heading', { name: 'About' }).first().waitFor();
    await mainNav(page).getByRole('link', { name: 'Garage', exact: true }).waitFor();
    await mainNav(page).getByRole('link', { name: 'Home', exact: true }).focus();
    await page.keyboard.press('ArrowRight');
    await expectFocus('Garage');
    await page.keyboard.press('ArrowDown');
    await expectFocus('Automobiles');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await expectFocus('Motorcycles');
    await page.keyboard.press('ArrowRight');
    await expectFocus('Bike One');
    await page.keyboard.press('Escape');
    await expectFocus('Motorcycles');
    await page.keyboard.press('Enter');
    await page.waitForURL('**/garage/motorcycles');
    await page.getByRole('heading', { level: 1, name: 'Motorcycles' }).waitFor();
  });

  test('section hub, plain section with its empty text, racing placeholder, not found', async () => {
    await page.goto('/garage');
    await page.getByRole('heading', { name: 'Browse by Category' }).waitFor();
    await page
      .getByRole('link', { name: /^Automobiles/ })
      .first()
      .waitFor();
    await page.getByRole('heading', { name: 'Rebuilt the carburettor' }).waitFor();
    expect(await page.title()).toBe('Garage — My Personal Blog');
    await expectAccessible(page);

    await page.goto('/aquariums');
    await page.getByText('No aquarium posts yet.').waitFor();
    expect(await page.getByRole('heading', { name: 'Browse by Category' }).count()).toBe(0);

    await page.goto('/food-bev/cooking');
    await page.getByText('Page 1 of 2 (32 total results)').first().waitFor();
    expect(await cards(page).count()).toBe(30);

    await page.goto('/activities/racing/moto-gp');
    await page.getByText('This page is under construction.').waitFor();

    await page.goto('/no-such-place/at-all');
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    await expectAccessible(page);
  });

  test('phone: the menu toggle and the section sidebar drawer (Escape and overlay close it)', async () => {
    const phone = await rig().browser.newContext({
      baseURL: rig().stack.baseUrl,
      viewport: { width: 390, height: 844 },
      hasTouch: true,
    });
    const p = await phone.newPage();
    await p.goto('/garage/motorcycles');
    const menu = p.getByRole('button', { name: 'Menu', exact: true });
    expect(await mainNav(p).getByRole('link', { name: 'Garage', exact: true }).isVisible()).toBe(false);
    await menu.click();
    expect(await menu.getAttribute('aria-expanded')).toBe('true');
    await mainNav(p).getByRole('link', { name: 'Garage', exact: true }).waitFor({ state: 'visible' });
    // A tap on a section's toggle opens its sub-menu (no hover on a touch screen).
    const motorcycles = mainNav(p).getByRole('link', { name: 'Motorcycles', exact: true });
    expect(await motorcycles.isVisible()).toBe(false);
    await p.getByRole('button', { name: 'Garage menu' }).tap();
    await motorcycles.waitFor({ state: 'visible' });
    await menu.click();

    const toggle = p.getByRole('button', { name: 'Motorcycles pages' });
    const sidebar = p.getByRole('complementary', { name: 'Motorcycles pages' });
    expect(await sidebar.isVisible()).toBe(false);
    await toggle.click();
    await sidebar.waitFor({ state: 'visible' });
    await p.keyboard.press('Escape');
    await sidebar.waitFor({ state: 'hidden' });
    await toggle.click();
    await sidebar.waitFor({ state: 'visible' });
    await p.locator('.sidebar-overlay').click({ position: { x: 370, y: 400 } });
    await sidebar.waitFor({ state: 'hidden' });
    await phone.close();
  });
});

describe('search', () => {
  test('from the box, shared by URL, paged, back and forward, cleared', async () => {
    await page.goto('/about');
    const box = page.getByRole('searchbox', { name: 'Search posts' });
    await box.fill('   ');
    await box.press('Enter');
    expect(searchOf(page)).toBe('');

    await box.fill('  carburettor ');
    await box.press('Enter');
    await page.getByRole('heading', { name: 'Search Results for "carburettor"' }).waitFor();
    expect(searchOf(page)).toBe('?q=carburettor');
    expect(await page.title()).toBe('Search Results');
    const card = cards(page).first();
    await expect(card.textContent()).resolves.toContain('#engine');
    await expect(card.textContent()).resolves.toContain('Bike One');

    await box.fill('sourdough');
    await box.press('Enter');
    await page.getByText(`Page 1 of 3 (${SOURDOUGH_POSTS} total results)`).first().waitFor();
    await page.getByRole('link', { name: 'Page 2' }).first().click();
    await page.getByText('Page 2 of 3').first().waitFor();
    expect(new URL(page.url()).searchParams.get('page')).toBe('2');

    await page.goBack();
    await page.getByText('Page 1 of 3').first().waitFor();
    await page.goBack();
    await page.getByRole('heading', { name: 'Search Results for "carburettor"' }).waitFor();
    expect(await box.inputValue()).toBe('carburettor');
    await page.goForward();
    await page.getByRole('heading', { name: 'Search Results for "sourdough"' }).waitFor();
    await expectAccessible(page);

    await page.getByRole('button', { name: 'Clear search' }).first().click();
    await page.getByRole('heading', { name: 'About' }).first().waitFor();
    expect(await page.title()).toBe('About — My Personal Blog');

    const shared = await context.newPage();
    await shared.goto('/?q=zzzznothing');
    await shared.getByText('No posts found matching "zzzznothing"').waitFor();
  });

  test('a tag on a post searches that tag; a failed search shows the empty state', async () => {
    await page.goto(showcase.url!);
    await page.getByRole('link', { name: 'Search posts tagged repair' }).click();
    await page.getByRole('heading', { name: 'Search Results for "repair"' }).waitFor();
    await page.getByRole('heading', { name: 'Rebuilt the carburettor' }).waitFor();

    await page.route('**/api/posts?*', (route) => route.fulfill({ status: 500, body: '{"error":"boom"}' }));
    await page.getByRole('searchbox', { name: 'Search posts' }).fill('engine');
    await page.getByRole('searchbox', { name: 'Search posts' }).press('Enter');
    await page.getByText('No posts found matching "engine"').waitFor();
  });
});

describe('post page', () => {
  test('title, badges, tags, content, the carousel by buttons, keyboard, wrap-around and swipe', async () => {
    await page.goto(showcase.url!);
    await page.getByRole('heading', { level: 1, name: 'Rebuilt the carburettor' }).waitFor();
    expect(await page.title()).toBe('Rebuilt the carburettor — My Personal Blog');
    await expect(page.locator('.post-meta time').textContent()).resolves.toBe('March 5, 2025 at 3:04 PM');
    await page.getByRole('link', { name: 'Bike One' }).waitFor();
    await page.getByText('Published March 5, 2025').waitFor();
    // Line breaks are kept: a single one as a line break, a blank line between paragraphs.
    const paragraphs = page.locator('.post-content p');
    expect(await paragraphs.count()).toBe(2);
    expect(await paragraphs.first().locator('br').count()).toBe(1);
    await expect(paragraphs.first().innerText()).resolves.toBe(
      'Took the carburettor apart.\nCleaned every jet.',
    );
    await expect(paragraphs.nth(1).textContent()).resolves.toBe('It idles like new now.');
    expect(await page.getByRole('link', { name: '← Back to Home' }).count()).toBe(2);

    const counter = page.locator('.carousel-counter');
    await expect(counter.textContent()).resolves.toBe('1 / 4');
    // The first image: a <picture> with AVIF and WebP sources, sized, loaded at once.
    const first = page.locator('.carousel-slide').first();
    expect(await first.locator('source[type="image/avif"]').getAttribute('srcset')).toMatch(/\.avif \d+w/);
    expect(await first.locator('source[type="image/webp"]').getAttribute('srcset')).toMatch(/\.webp \d+w/);
    expect(await first.locator('img').getAttribute('width')).toBeTruthy();
    expect(await first.locator('img').getAttribute('loading')).toBe('eager');

    await page.getByRole('button', { name: 'Next media' }).click();
    await expect(counter.textContent()).resolves.toBe('2 / 4');
    await page.getByRole('button', { name: 'Previous media' }).click();
    await page.getByRole('button', { name: 'Previous media' }).click();
    await expect(counter.textContent()).resolves.toBe('4 / 4');
    // The YouTube item embeds from the privacy-enhanced host.
    expect(await page.locator('.carousel-slide iframe').getAttribute('src')).toBe(
      'https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ',
    );
    await page.locator('.carousel').press('ArrowRight');
    await expect(counter.textContent()).resolves.toBe('1 / 4');
    await page.locator('.carousel').press('ArrowLeft');
    await expect(counter.textContent()).resolves.toBe('4 / 4');
    await page.getByRole('button', { name: 'Show media 3' }).click();
    await expect(counter.textContent()).resolves.toBe('3 / 4');

    // The video: its poster, and seeking works (the server answers ranges).
    const video = page.locator('.carousel-slide video');
    expect(await video.getAttribute('poster')).toMatch(/^\/uploads\//);
    const src = (await video.getAttribute('src'))!;
    const ranged = await fetch(`${rig().stack.baseUrl}${src}`, { headers: { Range: 'bytes=100-199' } });
    expect(ranged.status).toBe(206);
    expect((await ranged.arrayBuffer()).byteLength).toBe(100);

    // Swipe: a short drag does nothing, 50 px or more moves.
    const swipe = (from: number, to: number) =>
      page.locator('.carousel-stage').evaluate(
        (stage, [a, b]) => {
          const touch = (x: number) => new Touch({ identifier: 1, target: stage, clientX: x, clientY: 10 });
          stage.dispatchEvent(new TouchEvent('touchstart', { touches: [touch(a!)], bubbles: true }));
          stage.dispatchEvent(new TouchEvent('touchend', { changedTouches: [touch(b!)], bubbles: true }));
        },
        [from, to],
      );
    await swipe(300, 270);
    await expect(counter.textContent()).resolves.toBe('3 / 4');
    await swipe(300, 240);
    await expect(counter.textContent()).resolves.toBe('4 / 4');
    await swipe(240, 300);
    await expect(counter.textContent()).resolves.toBe('3 / 4');
    await expectAccessible(page);
  });

  test('a missing post says so; /post/{id} redirects to the post or home', async () => {
    await page.goto('/garage/motorcycles/no-such-post');
    await page.getByRole('heading', { name: 'No posts yet' }).waitFor();
    await page.getByRole('link', { name: 'Back to Home' }).waitFor();

    await page.goto(`/post/${showcase.id}`);
    await page.waitForURL(`**${showcase.url}`);
    await page.getByRole('heading', { level: 1, name: 'Rebuilt the carburettor' }).waitFor();
    await page.goto('/post/99999999');
    await page.waitForURL((url) => url.pathname === '/');
    // 'Redirecting...' shows while an in-app link to /post/{id} is looked up (lib/loadingText).
  });

  test('home and category cards show the crop preview of the main image', async () => {
    await page.goto('/garage/motorcycles');
    const crop = page.locator('article.post-card img.card-media-crop');
    await crop.waitFor();
    expect(await crop.getAttribute('src')).toBe(showcase.images[0]!.croppedPreviewPath);
    // Loaded, at the crop preview's width (the card may appear before its image has arrived).
    expect(await loadedWidth(crop)).toBe(400);
  });
});
