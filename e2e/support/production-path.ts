/**
 * The step the production-path journeys share (stack:prod through nginx, and the compose
 * stack): a post with a real photo and a real video, written through the admin screens.
 */
import { SessionKeys } from '@blog/contracts';
import { AdminText } from '@blog/contracts/admin';
import type { Browser } from 'playwright-core';
import { makePhoto, makeRealMp4 } from '../../services/media/test/fixtures.js';

/**
 * A new user's first post, through the screens: signs in on the sign-in screen at `baseURL`,
 * opens the admin dashboard, writes the post in the New Post form with a 1200x800 photo and a
 * one-second MP4 in category Projects, and waits for the upload to finish. Returns the session
 * token the page keeps, for the test's own API checks.
 */
export async function writePostInAdminForm(
  browser: Browser,
  baseURL: string,
  admin: { username: string; password: string },
  post: { title: string; content: string },
): Promise<string> {
  const context = await browser.newContext({ baseURL });
  try {
    const page = await context.newPage();
    await page.goto('/login');
    await page.getByLabel('Username').fill(admin.username);
    await page.getByLabel('Password').fill(admin.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForFunction((key) => !!localStorage.getItem(key), SessionKeys.token);
    await page.goto('/admin');
    await page.getByRole('button', { name: 'New Post' }).click();
    const form = page.locator('.admin-form-card');
    await form.getByLabel('Title', { exact: true }).fill(post.title);
    await form.getByLabel('Content').fill(post.content);
    await form.getByLabel('Category').selectOption('Projects');
    await form.locator('input[type=file]').setInputFiles([
      { name: 'photo.jpg', mimeType: 'image/jpeg', buffer: await makePhoto(1200, 800) },
      { name: 'clip.mp4', mimeType: 'video/mp4', buffer: await makeRealMp4() },
    ]);
    await form.locator('.admin-media-item[data-key] img[src^="data:image/jpeg"]').waitFor();
    await form.getByRole('button', { name: 'Create Post' }).click();
    try {
      // Two minutes: a CI machine at full load (a 35-minute Jest run) once took over one here.
      await page.getByText(AdminText.uploaded).waitFor({ timeout: 120_000 });
    } catch (error) {
      const alerts = await page.locator('[role=alert]').allInnerTexts();
      throw new Error(`the post was not saved; on screen: ${JSON.stringify(alerts)}`, { cause: error });
    }
    await form.waitFor({ state: 'detached' });
    return (await page.evaluate((key) => localStorage.getItem(key), SessionKeys.token))!;
  } finally {
    await context.close();
  }
}
