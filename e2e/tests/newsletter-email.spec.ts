/**
 * Every post by e-mail, as a reader lives it, in Chromium against the built stack with a real
 * SMTP server on loopback: two readers subscribe on the About page, one for each post and one
 * for the weekly digest, and confirm from their e-mail; the owner publishes a post with "Send
 * by e-mail"; the each-post reader gets it once (the weekly one does not), its HTML is opened in
 * Chromium at phone and desktop widths (no sideways scrolling, axe finds nothing serious), and
 * the reader leaves in one click, as a mail client's RFC 8058 unsubscribe does.
 */
import type { SubscriberView } from '@blog/contracts';
import type { BrowserContext, Page } from 'playwright-core';
import { startTestSmtp, type TestSmtp } from '../../services/mail/test/support/smtp.js';
import { axeProblems } from '../support/axe.js';
import {
  adminGet,
  eventually,
  newAdminPage,
  pastTheScreen,
  screenshot,
  useAdminRig,
} from '../support/admin-rig.js';
import { createPost, makeJpeg, waitMediaReady } from '../support/content.js';

const smtp: TestSmtp = await startTestSmtp();
afterAll(() => smtp.close());
const rig = useAdminRig({
  SMTP_URL: smtp.url,
  MAIL_RETRY_INTERVAL_MS: '500',
  OWNER_EMAIL: 'owner@blog.example',
});

let context: BrowserContext;
let page: Page;
beforeEach(async () => {
  ({ context, page } = await newAdminPage(rig()));
});
afterEach(() => context.close());

const EACH = 'every-post-reader@example.com';
const WEEKLY = 'weekly-reader@example.com';
const TITLE = 'Fitted new tyres, with pictures';

/** Subscribes `email` on the About page with the frequency labelled `how`, and confirms from the e-mail. */
async function subscribe(email: string, how: 'Every new post' | 'A weekly digest') {
  await page.goto('/about');
  const section = page.getByRole('region', { name: 'Subscribe' });
  await section.getByLabel('Email').fill(email);
  await section.getByLabel(how).check();
  await section.getByRole('button', { name: 'Subscribe' }).click();
  await section
    .getByText(/Successfully subscribed|check your inbox/)
    .first()
    .waitFor();
  const [mail] = await smtp.waitFor(1, (m) => m.to.includes(email), 30_000);
  const link = /https?:\/\/\S+\/api\/subscribe\/confirm\?token=[A-Za-z0-9_-]+/.exec(
    mail!.parsed.text ?? '',
  )?.[0];
  expect(link).toBeDefined();
  await page.goto(link!);
  await page
    .getByText(/confirmed/i)
    .first()
    .waitFor();
}

test('a reader subscribes for each post, gets the post once by e-mail, reads it on a phone and leaves in one click', async () => {
  await subscribe(EACH, 'Every new post');
  await subscribe(WEEKLY, 'A weekly digest');
  const subscribers = await adminGet<SubscriberView[]>(rig(), '/api/admin/subscribers?status=confirmed');
  expect(Object.fromEntries(subscribers.map((s) => [s.email, s.frequency]))).toMatchObject({
    [EACH]: 'each-post',
    [WEEKLY]: 'weekly',
  });

  const post = await createPost(rig().stack.baseUrl, rig().token, {
    title: TITLE,
    content:
      'Four of them, **balanced** and aligned.\n\nThe old ones went to [recycling](https://example.org/tyres).',
    category: 'Projects',
    fields: { sendByEmail: 'true' },
    files: [
      { name: 'tyres.jpg', type: 'image/jpeg', data: await makeJpeg(1600, 1000, { r: 40, g: 90, b: 160 }) },
    ],
  });
  await waitMediaReady(rig().stack.baseUrl, rig().token, post.id);

  const [letter] = await smtp.waitFor(1, (m) => m.to.includes(EACH) && m.parsed.subject === TITLE, 60_000);
  await eventually(async () => {
    const status = await adminGet<{ status: string; sent: number }>(
      rig(),
      `/api/admin/posts/${post.id}/email`,
    );
    expect(status).toMatchObject({ status: 'sent', sent: 1 });
  }, 60_000);
  expect(smtp.received.filter((m) => m.parsed.subject === TITLE).map((m) => m.to)).toEqual([[EACH]]);
  const html = letter!.parsed.html;
  expect(typeof html).toBe('string');
  expect(html).not.toMatch(/<script|javascript:/i);
  expect(letter!.parsed.text).toContain('Four of them');
  // The picture is a JPEG or PNG variant, linked absolutely.
  expect(html).toMatch(/<img[^>]+src="https?:\/\/[^"]+\.(?:jpe?g|png)"/i);

  for (const [name, viewport] of [
    ['phone', { width: 390, height: 844 }],
    ['desktop', { width: 1280, height: 900 }],
  ] as const) {
    await page.setViewportSize(viewport);
    await page.setContent(html as string, { waitUntil: 'load' });
    await page.getByText('Four of them').first().waitFor();
    expect(await pastTheScreen(page, viewport.width)).toEqual([]);
    await screenshot(page, `newsletter-email-${name}`);
    expect(await axeProblems(page)).toEqual([]);
  }

  // One click, as a mail client sends it (RFC 8058): the link from the List-Unsubscribe header.
  const header = letter!.header('list-unsubscribe') ?? '';
  expect(letter!.header('list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
  const oneClick = /<(https?:\/\/[^>]+)>/.exec(header)?.[1];
  expect(oneClick).toBeDefined();
  const left = await fetch(oneClick!, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'List-Unsubscribe=One-Click',
  });
  expect(left.status).toBeLessThan(300);
  const after = await adminGet<SubscriberView[]>(
    rig(),
    `/api/admin/subscribers?search=${encodeURIComponent(EACH)}`,
  );
  expect(after.map((s) => s.status)).toEqual(['unsubscribed']);
}, 240_000);
