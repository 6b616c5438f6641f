/**
 * Sign-in, registration, the top bar and the session rules (docs/product.md#screens, #how-the-screens-behave, #error-texts), driven in a
 * real Chromium against the whole built stack (launcher, gateway, services, PostgreSQL).
 */
import { ErrorText, SessionKeys } from '@blog/contracts';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { placeLink } from '../support/admin-rig.js';
import { launchBrowser } from '../support/browser.js';
import { startStack, stopAllStacks } from '../support/stack.js';

type Stack = Awaited<ReturnType<typeof startStack>>;

let stack: Stack | undefined;
let browser: Browser | undefined;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  [stack, browser] = await Promise.all([startStack(), launchBrowser()]);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await stopAllStacks(); // also one whose start a failing beforeAll abandoned
});

beforeEach(async () => {
  context = await browser!.newContext({ baseURL: stack!.baseUrl });
  context.setDefaultTimeout(10_000);
  page = await context.newPage();
});

afterEach(async () => {
  await context.close();
});

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const nowSeconds = () => Math.floor(Date.now() / 1000);

/** A well-formed JWT whose signature the gateway will reject. */
function forgedToken(claims: Record<string, unknown>): string {
  return `${base64url({ alg: 'HS256', typ: 'JWT' })}.${base64url(claims)}.badsig`;
}

async function storedSession(p: Page) {
  return p.evaluate(
    (keys) => ({
      token: localStorage.getItem(keys.token),
      username: localStorage.getItem(keys.username),
      role: localStorage.getItem(keys.role),
    }),
    SessionKeys,
  );
}

/** Puts a session into localStorage, then reloads so the app starts with it. */
async function startWithSession(p: Page, session: { token: string; username: string; role: string }) {
  await p.goto('/');
  await p.evaluate(
    ({ keys, values }) => {
      localStorage.setItem(keys.token, values.token);
      localStorage.setItem(keys.username, values.username);
      localStorage.setItem(keys.role, values.role);
    },
    { keys: SessionKeys, values: session },
  );
}

async function signIn(p: Page, username: string, password: string) {
  await p.goto('/login');
  await p.getByRole('heading', { name: 'Sign in to your account' }).waitFor();
  await p.getByLabel('Username').fill(username);
  await p.getByLabel('Password').fill(password);
  await p.getByRole('button', { name: 'Sign in' }).click();
}

const pathOf = (p: Page) => new URL(p.url()).pathname;

test('an admin signs in, lands on the dashboard, sees the users and logs out', async () => {
  const { username, password } = stack!.admin;
  await signIn(page, username, password);

  await page.waitForURL('**/admin');
  await page.getByRole('heading', { name: 'Admin Dashboard' }).waitFor();
  await page.getByText(`Welcome, ${username} (admin)`).waitFor();
  await page.getByRole('link', { name: 'Admin Dashboard' }).waitFor();
  await placeLink(page, 'Users').click();
  await page.getByRole('table').waitFor();
  const firstCells = await page.locator('tbody tr td:first-child').allInnerTexts();
  expect(firstCells).toContain(username);
  const stored = await storedSession(page);
  expect(stored).toMatchObject({ username, role: 'admin' });
  expect(stored.token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);

  // Logout is both in the top bar and, as a menu item, in the navigation (docs/product.md#screens).
  const menu = page.getByRole('navigation', { name: 'Main' });
  await menu.getByText(`(${username} - admin)`).waitFor();
  await menu.getByRole('button', { name: 'Logout' }).click();
  await page.getByText('Welcome, Guest').waitFor();
  expect(await page.getByRole('link', { name: 'Admin Dashboard' }).count()).toBe(0);
  await page.getByRole('link', { name: 'Login' }).waitFor();
  expect(await storedSession(page)).toEqual({ token: null, username: null, role: null });
});

test('a wrong password shows the server error and the button reads Sign in again', async () => {
  // Hold the real request back to see the waiting state; the gateway still answers it.
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route('**/api/auth/login', async (route) => {
    await held;
    await route.continue();
  });

  await signIn(page, stack!.admin.username, 'definitely-not-the-password');
  const waiting = page.getByRole('button', { name: 'Signing in...' });
  await waiting.waitFor();
  expect(await waiting.isDisabled()).toBe(true);
  release();

  const alert = page.getByRole('alert');
  await alert.getByText(ErrorText.invalidCredentials).waitFor();
  const button = page.getByRole('button', { name: 'Sign in', exact: true });
  expect(await button.isEnabled()).toBe(true);
  expect(pathOf(page)).toBe('/login');
  await page.getByText('Welcome, Guest').waitFor();
});

test('a new user registers, signs in to the home page, and cannot open /admin', async () => {
  const name = `reader-${Date.now().toString(36)}`;
  const password = 'a-long-enough-password';

  await page.goto('/register');
  // The shared rules are checked before anything is sent.
  await page.getByLabel('Username').fill('ab');
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Register' }).click();
  await page.getByRole('alert').getByText('username must be 3-32 characters').waitFor();

  await page.getByLabel('Username').fill(name);
  await page.getByRole('button', { name: 'Register' }).click();
  // The form's status line (the footer has a status region of its own, for its Copy button).
  const registered = page.locator('main').getByRole('status').filter({ hasText: /\S/ });
  await registered.waitFor();
  expect((await registered.innerText()).trim()).not.toBe('');

  // The same name again: the server's own message is shown.
  await page.goto('/register');
  await page.getByLabel('Username').fill(name);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Register' }).click();
  const duplicate = page.getByRole('alert');
  await duplicate.filter({ hasText: /\S/ }).waitFor();
  expect(await duplicate.innerText()).not.toBe(ErrorText.registrationFailed);

  await signIn(page, name, password);
  await page.getByText(`Welcome, ${name} (user)`).waitFor();
  // The home page's data loads before its URL shows (a data router's navigation).
  await page.waitForURL((url) => url.pathname === '/');
  expect(await page.getByRole('link', { name: 'Admin Dashboard' }).count()).toBe(0);

  await page.goto('/admin');
  await page.waitForURL('**/login');
  await page.getByRole('heading', { name: 'Sign in to your account' }).waitFor();

  // A user who edits the stored role to admin is refused by the server (403): signed out, sent to /login.
  await page.evaluate((key) => localStorage.setItem(key, 'admin'), SessionKeys.role);
  // The dashboard's first place asks for its admin data with the user's token; the server refuses it.
  const refused = page.waitForResponse(
    (r) => new URL(r.url()).pathname.startsWith('/api/') && r.status() === 403,
  );
  await page.goto('/admin');
  expect((await refused).request().headers().authorization).toMatch(/^Bearer /);
  await page.waitForURL('**/login');
  await page.getByText('Welcome, Guest').waitFor();
  expect(await storedSession(page)).toEqual({ token: null, username: null, role: null });
});

test('a guest visiting /admin is sent to /login', async () => {
  await page.goto('/admin');
  await page.waitForURL('**/login');
  await page.getByRole('heading', { name: 'Sign in to your account' }).waitFor();
  await page.getByText('Welcome, Guest').waitFor();
});

test('an expired token at start means a guest, and all three items are cleared', async () => {
  await startWithSession(page, {
    token: forgedToken({ sub: '1', username: 'admin', role: 'admin', exp: nowSeconds() - 60 }),
    username: 'admin',
    role: 'admin',
  });
  await page.reload();
  await page.getByText('Welcome, Guest').waitFor();
  expect(await storedSession(page)).toEqual({ token: null, username: null, role: null });

  await page.goto('/admin');
  await page.waitForURL('**/login');
});

test('a token the server rejects (401) clears the session and goes to /login', async () => {
  await startWithSession(page, {
    token: forgedToken({ sub: '1', username: 'admin', role: 'admin', exp: nowSeconds() + 3600 }),
    username: 'admin',
    role: 'admin',
  });
  // The dashboard's first place asks for its data with the token; the server refuses it.
  const refused = page.waitForResponse(
    (r) => new URL(r.url()).pathname.startsWith('/api/') && r.status() === 401,
  );
  await page.goto('/admin');
  expect((await refused).request().headers().authorization).toMatch(/^Bearer /);

  await page.waitForURL('**/login');
  await page.getByText('Welcome, Guest').waitFor();
  expect(await storedSession(page)).toEqual({ token: null, username: null, role: null });
});
