/**
 * The About page's contact and subscribe forms in a real Chromium against the whole built
 * stack: what they send reaches the outbox as e-mail, a failed send keeps the text.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { useAdminRig } from '../support/admin-rig.js';
import { axeProblems } from '../support/axe.js';

const rig = useAdminRig();
let context: BrowserContext;
let page: Page;

beforeEach(async () => {
  context = await rig().browser.newContext({ baseURL: rig().stack.baseUrl, bypassCSP: true });
  context.setDefaultTimeout(10_000);
  page = await context.newPage();
});

afterEach(async () => {
  await context.close();
});

describe('about, contact and subscribe', () => {
  async function outboxMessages(): Promise<string[]> {
    const dir = join(rig().stack.dataDir, 'outbox');
    const files = await readdir(dir).catch(() => [] as string[]);
    return Promise.all(files.map((f) => readFile(join(dir, f), 'utf8')));
  }

  async function waitForMail(match: (text: string) => boolean): Promise<string> {
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline) {
      const found = (await outboxMessages()).find(match);
      if (found) return found;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error('the e-mail did not reach the outbox');
  }

  test('/contact scrolls to the form; the message is sent, the form cleared and the e-mail written', async () => {
    await page.setViewportSize({ width: 1280, height: 600 });
    await page.goto('/contact');
    await page.waitForURL('**/about');
    const form = page.locator('#contact');
    await page.waitForFunction(() => {
      const box = document.getElementById('contact')?.getBoundingClientRect();
      return box !== undefined && box.top >= -1 && box.top < 200;
    });
    await form.getByLabel('Name').fill('Ada Visitor');
    await form.getByLabel('Email').fill('ada@example.com');
    await form.getByLabel('Subject').fill('Carburettor question');
    await form.getByLabel('Message').fill('Which jets did you use?');
    expect(await form.getByLabel('Message').getAttribute('rows')).toBe('4');
    await form.getByRole('button', { name: 'Send Message' }).click();
    await form.getByText('Message sent successfully!').waitFor();
    expect(await form.getByLabel('Name').inputValue()).toBe('');
    const mail = await waitForMail((text) => text.includes('Carburettor question'));
    expect(mail).toContain('Which jets did you use?');
    expect(await axeProblems(page)).toEqual([]);
  });

  test('a failed send says so and keeps the text', async () => {
    await page.goto('/about');
    await page.route('**/api/contact', (route) =>
      route.fulfill({ status: 503, body: '{"error":"Service unavailable"}' }),
    );
    const form = page.locator('#contact');
    await form.getByLabel('Name').fill('Bo');
    await form.getByLabel('Email').fill('bo@example.com');
    await form.getByLabel('Subject').fill('Hi');
    await form.getByLabel('Message').fill('Hello');
    await form.getByRole('button', { name: 'Send Message' }).click();
    await form.getByText('Failed to send message. Please try again.').waitFor();
    expect(await form.getByLabel('Message').inputValue()).toBe('Hello');
  });

  test('subscribing sends the confirmation e-mail', async () => {
    await page.goto('/about');
    const section = page.getByRole('region', { name: 'Subscribe' });
    await section.getByLabel('Email').fill('reader@example.com');
    await section.getByRole('button', { name: 'Subscribe' }).click();
    await section.getByText('Successfully subscribed!').waitFor();
    const mail = await waitForMail((text) => /To: .*reader@example\.com/.test(text));
    expect(mail).toMatch(/subscribe\/confirm\?token=/);
  });
});
