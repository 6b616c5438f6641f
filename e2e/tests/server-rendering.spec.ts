/**
 * Pages that arrive readable (rendered on the server) in a real Chromium against the stack `npm start` runs:
 * every public route read and used with JavaScript turned off, the same routes hydrated with
 * no console error and no hydration mismatch, and in-app navigation that fetches data only.
 */
import type { PostView } from '@blog/contracts';
import type { BrowserContext, Page } from 'playwright-core';
import { axeProblems } from '../support/axe.js';
import { useAdminRig } from '../support/admin-rig.js';
import { createPost, makeJpeg, waitMediaReady } from '../support/content.js';

const rig = useAdminRig();
let post: PostView;
const contexts: BrowserContext[] = [];
const LOG_POSTS = 17;

beforeAll(async () => {
  const base = rig().stack.baseUrl;
  const { token } = rig();
  for (let i = 1; i <= LOG_POSTS; i++) {
    await createPost(base, token, {
      title: `Workshop log ${i}`,
      content: `Entry ${i}: swept the floor and sorted the screws.`,
      category: 'Projects',
      date: `2024-02-${String(i).padStart(2, '0')}T09:00`,
    });
  }
  const created = await createPost(base, token, {
    title: 'Two photos of the shed',
    content: 'The **new roof** is on.\n\nNext: the door.',
    category: 'Projects',
    tags: ['shed'],
    date: '2025-05-01T12:00',
    files: [
      { name: 'roof.jpg', type: 'image/jpeg', data: await makeJpeg(1200, 800, { r: 90, g: 120, b: 60 }) },
      { name: 'door.jpg', type: 'image/jpeg', data: await makeJpeg(1200, 800, { r: 150, g: 90, b: 40 }) },
    ],
  });
  post = await waitMediaReady(base, token, created.id);
}, 180_000);

afterEach(async () => {
  await Promise.all(contexts.splice(0).map((c) => c.close()));
});

async function newPage(options: { javaScript?: boolean; axe?: boolean } = {}): Promise<Page> {
  const context = await rig().browser.newContext({
    baseURL: rig().stack.baseUrl,
    javaScriptEnabled: options.javaScript ?? true,
    bypassCSP: !!options.axe,
  });
  contexts.push(context);
  context.setDefaultTimeout(10_000);
  return context.newPage();
}

const cards = (page: Page) => page.locator('article.post-card');
const mainNav = (page: Page) => page.getByRole('navigation', { name: 'Main' });

describe('without JavaScript', () => {
  test('home, a section, a post with its media, search, paging and the menu all work', async () => {
    const page = await newPage({ javaScript: false });
    await page.goto('/');
    await page.getByRole('heading', { name: 'Welcome!' }).waitFor();
    expect(await cards(page).count()).toBe(15);
    expect(await cards(page).first().getByRole('heading').textContent()).toBe('Two photos of the shed');

    await page
      .getByRole('navigation', { name: 'Latest posts, pages (top)' })
      .getByRole('link', { name: 'Next' })
      .click();
    await page.waitForURL('**/?page=2');
    await page.getByText('Page 2 of 2').first().waitFor();
    expect(await cards(page).count()).toBe(LOG_POSTS + 1 - 15);

    await mainNav(page).getByRole('link', { name: 'Projects', exact: true }).click();
    await page.waitForURL('**/projects');
    await page.getByRole('heading', { level: 1, name: 'Projects' }).waitFor();
    expect(await cards(page).count()).toBe(LOG_POSTS + 1);

    await cards(page).first().getByRole('link', { name: 'Two photos of the shed', exact: true }).click();
    await page.waitForURL(`**${post.url}`);
    await page.getByRole('heading', { level: 1, name: 'Two photos of the shed' }).waitFor();
    await expect(page.locator('.post-content strong').textContent()).resolves.toBe('new roof');
    // No carousel to turn: both pictures show, one under the other, and no dead buttons.
    const pictures = page.locator('.carousel-slide img');
    expect(await pictures.count()).toBe(2);
    expect(await pictures.nth(0).isVisible()).toBe(true);
    expect(await pictures.nth(1).isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: 'Next media' }).isVisible()).toBe(false);

    await page.getByRole('searchbox', { name: 'Search posts' }).fill('screws');
    await page.getByRole('searchbox', { name: 'Search posts' }).press('Enter');
    await page.waitForURL((url) => url.searchParams.get('q') === 'screws');
    await page.getByRole('heading', { name: 'Search Results for "screws"' }).waitFor();
    expect(await cards(page).count()).toBe(15);
  });

  test('the contact and subscribe forms post and answer with their texts', async () => {
    const page = await newPage({ javaScript: false });
    await page.goto('/contact');
    const contact = page.locator('#contact');
    await contact.getByLabel('Name').fill('Nora Noscript');
    await contact.getByLabel('Email').fill('nora@example.com');
    await contact.getByLabel('Subject').fill('Reading without scripts');
    await contact.getByLabel('Message').fill('Works fine here.');
    await contact.getByRole('button', { name: 'Send Message' }).click();
    await page.waitForURL('**/about#contact');
    await page.locator('#contact').getByText('Message sent successfully!').waitFor();

    const subscribe = page.getByRole('region', { name: 'Subscribe' });
    await subscribe.getByLabel('Email').fill('nora@example.com');
    await subscribe.getByRole('button', { name: 'Subscribe' }).click();
    await page.getByRole('region', { name: 'Subscribe' }).getByText('Successfully subscribed!').waitFor();
  });

  test('a phone without JavaScript still has the menu', async () => {
    const context = await rig().browser.newContext({
      baseURL: rig().stack.baseUrl,
      javaScriptEnabled: false,
      viewport: { width: 390, height: 844 },
    });
    contexts.push(context);
    const page = await context.newPage();
    await page.goto('/');
    await mainNav(page).getByRole('link', { name: 'Projects', exact: true }).waitFor({ state: 'visible' });
    expect(await page.getByRole('button', { name: 'Menu', exact: true }).isVisible()).toBe(false);
  });
});

describe('with JavaScript', () => {
  const routes = () => [
    '/',
    '/?page=2',
    '/projects',
    '/garage/motorcycles',
    '/garage/motorcycles/bike-one',
    '/activities/racing/moto-gp',
    post.url!,
    '/?q=screws',
    '/about',
    '/contact',
    '/no-such/page/at-all',
  ];

  test('every public route hydrates with no console error and no hydration mismatch', async () => {
    const page = await newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() !== 'error' && message.type() !== 'warning') return;
      // The not-found page's own 404 status, reported by the browser for the document.
      if (message.text().includes('status of 404')) return;
      problems.push(`${page.url()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`${page.url()}: ${error.message}`));
    for (const route of routes()) {
      const response = await page.goto(route);
      expect(response?.status()).toBe(route.startsWith('/no-such') ? 404 : 200);
      await page.locator('html[data-hydrated]').waitFor({ state: 'attached' });
      // A state update after hydration (the dates in the reader's zone) has run too.
      await page.waitForTimeout(100);
    }
    expect(problems).toEqual([]);
  });

  test('the page paints before any script: its styles inline, the app fetched after the load event, nothing moves on hydration', async () => {
    const page = await newPage();
    await page.addInitScript(() => {
      const state = window as unknown as { shift: number; firstSlide: Element | null };
      state.shift = 0;
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries())
          state.shift += (entry as PerformanceEntry & { value: number }).value;
      }).observe({ type: 'layout-shift', buffered: true });
      document.addEventListener('DOMContentLoaded', () => {
        state.firstSlide = document.querySelector('.carousel img');
      });
    });
    const html = await (await page.goto(post.url!))!.text();
    expect(html).not.toMatch(/<link[^>]+stylesheet/);
    expect(html).toMatch(/<style>[^<]*\.carousel/);
    expect(html).toMatch(
      /<script defer src="\/assets\/boot-[\w-]+\.js" data-app="\/assets\/index-[\w-]+\.js"><\/script>/,
    );
    await page.getByText('1 / 2').waitFor();
    const timing = await page.evaluate(() => {
      const state = window as unknown as { shift: number; firstSlide: Element | null };
      const navigation = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
      const app = performance
        .getEntriesByType('resource')
        .find((entry) => /\/assets\/index-/.test(entry.name));
      return {
        loadEventStart: navigation.loadEventStart,
        appRequested: app?.startTime ?? -1,
        sameSlide: state.firstSlide !== null && state.firstSlide === document.querySelector('.carousel img'),
        shift: state.shift,
      };
    });
    expect(timing.appRequested).toBeGreaterThanOrEqual(timing.loadEventStart);
    // Hydration adopted the server's carousel instead of drawing it again.
    expect(timing.sameSlide).toBe(true);
    // Only the date's words change (UTC, then the reader's zone): a badge beside it moves a little.
    expect(timing.shift).toBeLessThan(0.01);
  });

  test('the carousel works once hydrated; an in-app click fetches the data only, never the page', async () => {
    const page = await newPage({ axe: true });
    await page.goto(post.url!);
    const carousel = page.getByRole('region', { name: 'Two photos of the shed media' });
    await carousel.getByText('1 / 2').waitFor();
    await carousel.getByRole('button', { name: 'Next media' }).click();
    await carousel.getByText('2 / 2').waitFor();
    expect(await axeProblems(page)).toEqual([]);

    const documents: string[] = [];
    const data: string[] = [];
    page.on('request', (request) => {
      if (request.resourceType() === 'document') documents.push(request.url());
      else if (new URL(request.url()).pathname.startsWith('/api/posts')) data.push(request.url());
    });
    await mainNav(page).getByRole('link', { name: 'Home', exact: true }).click();
    await cards(page).first().waitFor();
    await page
      .getByRole('navigation', { name: 'Latest posts, pages (top)' })
      .getByRole('link', { name: 'Page 2' })
      .click();
    await page.getByText('Page 2 of 2').first().waitFor();
    expect(documents).toEqual([]);
    expect(data.map((url) => new URL(url).search)).toEqual([
      '?status=published&page=1&limit=15',
      '?status=published&page=2&limit=15',
    ]);
  });

  test('dates show in the reader’s time zone once hydrated (UTC in the server’s HTML)', async () => {
    const context = await rig().browser.newContext({
      baseURL: rig().stack.baseUrl,
      timezoneId: 'Asia/Tokyo',
    });
    contexts.push(context);
    const page = await context.newPage();
    const html = await (await page.goto(post.url!))!.text();
    expect(html).toMatch(/<time dateTime="[^"]+">May 1, 2025 at \d{1,2}:00 [AP]M UTC<\/time>/);
    const shown = await page.locator('.post-header time').textContent();
    expect(shown).toMatch(/^May 1, 2025 at \d{1,2}:00 [AP]M$/);
    // Tokyo is 9 hours ahead of UTC, whatever zone the post was written in.
    const utcHour = Number(/at (\d{1,2}):00 ([AP])M UTC/.exec(html)![1]) % 12;
    const localHour = Number(/at (\d{1,2}):00/.exec(shown!)![1]) % 12;
    expect((localHour - utcHour + 12) % 12).toBe(9);
  });
});
