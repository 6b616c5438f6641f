/**
 * The steps the production-path journeys share (stack:prod through nginx, and the compose
 * stack): a browser sign-in that yields the session token, and a post form with a real photo
 * and a real video.
 */
import { SessionKeys } from '@blog/contracts';
import type { Browser } from 'playwright-core';
import { makePhoto, makeRealMp4 } from '../../services/media/test/fixtures.js';

/** Signs in on the site's sign-in screen at `baseURL`; returns the token the page keeps. */
export async function signInWithBrowser(
  browser: Browser,
  baseURL: string,
  admin: { username: string; password: string },
): Promise<string> {
  const context = await browser.newContext({ baseURL });
  try {
    const page = await context.newPage();
    await page.goto('/login');
    await page.getByLabel('Username').fill(admin.username);
    await page.getByLabel('Password').fill(admin.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForFunction((key) => !!localStorage.getItem(key), SessionKeys.token);
    return (await page.evaluate((key) => localStorage.getItem(key), SessionKeys.token))!;
  } finally {
    await context.close();
  }
}

/** The post form with a 1200x800 photo and a one-second MP4, in category Projects. */
export async function photoAndVideoForm(title: string, content: string): Promise<FormData> {
  const form = new FormData();
  form.set('title', title);
  form.set('content', content);
  form.set('category', 'Projects');
  form.append(
    'files',
    new Blob([new Uint8Array(await makePhoto(1200, 800))], { type: 'image/jpeg' }),
    'photo.jpg',
  );
  form.append('files', new Blob([new Uint8Array(await makeRealMp4())], { type: 'video/mp4' }), 'clip.mp4');
  return form;
}
