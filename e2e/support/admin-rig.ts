/** Shared steps of the admin browser tests (e2e/tests/admin-*.spec.ts): one stack and one Chromium per file. */
import { SessionKeys } from '@blog/contracts';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser } from './browser.js';
import { signInApi } from './content.js';
import { startStack, stopAllStacks, type RunningStack } from './stack.js';

export interface AdminRig {
  stack: RunningStack;
  browser: Browser;
  token: string;
}

export async function startRig(env?: Record<string, string>): Promise<AdminRig> {
  const [stack, browser] = await Promise.allSettled([startStack({ env }), launchBrowser()]);
  try {
    if (stack.status === 'rejected') throw stack.reason;
    if (browser.status === 'rejected') throw browser.reason;
    const token = await signInApi(
      stack.value.baseUrl,
      stack.value.admin.username,
      stack.value.admin.password,
    );
    return { stack: stack.value, browser: browser.value, token };
  } catch (error) {
    // Nothing half-started stays behind when the start fails.
    if (browser.status === 'fulfilled') await browser.value.close();
    if (stack.status === 'fulfilled') await stack.value.stop();
    throw error;
  }
}

export async function stopRig(rig: AdminRig | undefined) {
  await rig?.browser.close();
  await stopAllStacks(); // also one whose start a failing beforeAll abandoned
}

/**
 * The file's rig: started before its first test (and before the file's own beforeAll hooks
 * declared after this call), stopped after its last. Call it at the top of a spec; the answer
 * reads the rig from inside hooks and tests.
 */
export function useAdminRig(env?: Record<string, string>): () => AdminRig {
  let rig: AdminRig | undefined;
  beforeAll(async () => {
    rig = await startRig(env);
  }, 120_000);
  afterAll(() => stopRig(rig));
  return () => {
    if (!rig) throw new Error('The admin rig did not start');
    return rig;
  };
}

/** A context that may run axe (the site's CSP forbids injected scripts otherwise). */
export async function newAdminPage(
  rig: AdminRig,
  viewport = { width: 1280, height: 800 },
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await rig.browser.newContext({ baseURL: rig.stack.baseUrl, bypassCSP: true, viewport });
  context.setDefaultTimeout(15_000);
  const page = await context.newPage();
  return { context, page };
}

/** Puts the admin's session into localStorage (as sign-in does), then opens `path`. */
export async function openAsAdmin(rig: AdminRig, page: Page, path = '/admin') {
  await page.goto('/about');
  await page.evaluate(
    ({ keys, token, username }) => {
      localStorage.setItem(keys.token, token);
      localStorage.setItem(keys.username, username);
      localStorage.setItem(keys.role, 'admin');
    },
    { keys: SessionKeys, token: rig.token, username: rig.stack.admin.username },
  );
  await page.goto(path);
  await page.getByRole('heading', { name: 'Admin Dashboard' }).waitFor();
}

/** The Admin Dashboard's navigation: a side column on a wide screen, behind its menu button on a phone. */
export function dashboardNav(page: Page) {
  return page.getByRole('navigation', { name: 'Dashboard', exact: true });
}

/** A place's link in the dashboard's navigation, by its name ("Users"; a badge adds ", 3 pending"). */
export function placeLink(page: Page, name: string | RegExp) {
  return dashboardNav(page).getByRole('link', { name });
}

/** The place marked current (aria-current="page") in the dashboard's navigation. */
export function currentPlace(page: Page, name: string | RegExp) {
  return placeLink(page, name).and(page.locator('[aria-current="page"]'));
}

/** Screens for a person to look at (SCREENSHOTS=dir); nothing is written otherwise. */
export async function screenshot(page: Page, name: string) {
  const dir = process.env.SCREENSHOTS;
  if (dir) await page.screenshot({ path: `${dir}/${name}.png`, fullPage: true });
}

export async function adminGet<T>(rig: AdminRig, path: string): Promise<T> {
  const response = await fetch(`${rig.stack.baseUrl}${path}`, {
    headers: { Authorization: `Bearer ${rig.token}` },
  });
  if (!response.ok) throw new Error(`${path}: ${response.status}`);
  return (await response.json()) as T;
}

/** Runs `check` until it stops throwing (the page or the worker catching up), up to `timeoutMs`. */
export async function eventually(check: () => Promise<void>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

/**
 * Elements that reach past the right edge of a `width`-pixel screen, outside the strips meant to
 * scroll sideways (a place's own tab row): the page itself must not need sideways scrolling.
 */
export function pastTheScreen(page: Page, width: number): Promise<string[]> {
  return page.evaluate(
    (edge) =>
      [...document.querySelectorAll('body *')]
        .filter((el) => el.getBoundingClientRect().right > edge)
        .filter((el) => {
          for (let up = el.parentElement; up; up = up.parentElement) {
            const overflow = getComputedStyle(up).overflowX;
            if ((overflow === 'auto' || overflow === 'scroll') && up.getBoundingClientRect().right <= edge)
              return false;
          }
          return true;
        })
        .map((el) => `${el.tagName}.${el.className} ${Math.round(el.getBoundingClientRect().right)}`)
        .slice(0, 8),
    width + 1,
  );
}
