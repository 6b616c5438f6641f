/**
 * The owner runs the site from the dashboard, in Chromium against the built stack:
 * the Site tab's texts reach the home page, closing registration shows on the register page,
 * roles change in the Users tab, and two-factor sign-in is set up from a QR code (with the
 * password) and then asked for in the sign-in's second step; five wrong codes lock the checks.
 * axe checks the Site tab, the Account tab and that step.
 */
import { Secret, TOTP } from 'otpauth';
import type { BrowserContext, Page } from 'playwright-core';
import sharp from 'sharp';
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

beforeEach(async () => {
  ({ context, page } = await newAdminPage(rig()));
});
afterEach(() => context.close());

const codeAt = (secret: string, offsetSteps = 0) =>
  new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30 }).generate({
    timestamp: Date.now() + offsetSteps * 30_000,
  });

test('the Site tab edits the welcome text; the home page shows it', async () => {
  await openAsAdmin(rig(), page, '/admin?tab=site');
  const form = page.locator('form.admin-site');
  await form.getByLabel('Welcome text').waitFor();
  expect(await axeProblems(page)).toEqual([]);
  await form.getByLabel('Welcome title').fill('Hello from the dashboard');
  await form.getByLabel('Welcome text').fill('Written in the Site tab, no file edited.');
  await form.getByRole('button', { name: 'Save Site' }).click();
  await form.getByText('Site settings saved.').waitFor();
  await screenshot(page, 'site-tab');

  await page.goto('/');
  await page.getByRole('heading', { name: 'Hello from the dashboard' }).waitFor();
  await page.getByText('Written in the Site tab, no file edited.').waitFor();
  // A wrong value is refused with the server's words, and nothing changes.
  await page.goto('/admin?tab=site');
  await form.getByLabel('Site title').fill('');
  await form.getByRole('button', { name: 'Save Site' }).click();
  await form.getByRole('alert').filter({ hasText: /title/ }).waitFor();
  expect((await adminGet<{ title: string }>(rig(), '/api/site')).title).not.toBe('');
});

test('uploading a banner in the Site tab: processed, shown in the header of every page', async () => {
  await openAsAdmin(rig(), page, '/admin?tab=site');
  const picker = page.getByLabel('Banner image');
  await picker.waitFor();
  const wide = await sharp({
    create: { width: 1800, height: 300, channels: 3, background: { r: 20, g: 90, b: 160 } },
  })
    .jpeg()
    .toBuffer();
  await picker.setInputFiles([{ name: 'banner.jpg', mimeType: 'image/jpeg', buffer: wide }]);
  await page.getByRole('button', { name: 'Upload banner' }).click();
  await page.getByText('Banner uploaded.').waitFor();
  const { bannerImage } = await adminGet<{ bannerImage: string }>(rig(), '/api/site');
  expect(bannerImage).toMatch(/^\/uploads\/media\/site\/banner-/);

  await page.goto('/');
  const header = page.locator('img.banner-image');
  await header.waitFor();
  expect(await header.getAttribute('src')).toBe(bannerImage);
  // The processed file really loads (not a broken image).
  await eventually(async () =>
    expect(
      await header.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth),
    ).toBeGreaterThan(0),
  );
  // A text file named .jpg is refused by its content.
  await page.goto('/admin?tab=site');
  await picker.setInputFiles([
    { name: 'fake.jpg', mimeType: 'image/jpeg', buffer: Buffer.from('not an image') },
  ]);
  await page.getByRole('button', { name: 'Upload banner' }).click();
  await page.getByRole('alert').filter({ hasText: /Error/ }).waitFor();
  expect((await adminGet<{ bannerImage: string }>(rig(), '/api/site')).bannerImage).toBe(bannerImage);
});

test('renaming a model in the tree: the URL preview follows, the post form offers it, an old link lands on the new page', async () => {
  await openAsAdmin(rig(), page, '/admin?tab=site');
  await page.locator('.tree-category > summary', { hasText: 'Garage' }).click();
  const segment = page.getByLabel('URL segment of Car One');
  const id = (await segment.getAttribute('id'))!.replace(/^segment-/, '');
  await page.locator(`#label-${id}`).fill('Red Roadster');
  await page.getByLabel('URL segment of Red Roadster').fill('red-roadster');
  await page.locator(`#url-${id}`).filter({ hasText: '/garage/automobiles/red-roadster' }).waitFor();
  expect(await axeProblems(page)).toEqual([]);
  await page.getByRole('button', { name: 'Save Site' }).click();
  await page.getByText('Site settings saved.').waitFor();
  await screenshot(page, 'site-tree');

  // The post form's selects follow the tree at once.
  await page.getByRole('button', { name: 'New Post' }).click();
  const form = page.locator('.admin-form-card');
  await form.getByLabel('Category').selectOption('Garage');
  await form.getByLabel('Submenu', { exact: true }).selectOption('Automobiles');
  expect(await form.getByLabel('Sub-submenu').locator('option').allTextContents()).toContain('Red Roadster');

  // An old link (bookmarked, shared) answers 301 and shows the renamed model's page.
  const visitor = await rig().browser.newContext({ baseURL: rig().stack.baseUrl });
  try {
    const reader = await visitor.newPage();
    await eventually(async () => {
      const response = await reader.goto('/garage/automobiles/car-one');
      expect(response!.request().redirectedFrom()?.url()).toMatch(/\/garage\/automobiles\/car-one$/);
      expect(new URL(reader.url()).pathname).toBe('/garage/automobiles/red-roadster');
    });
    await reader.getByRole('heading', { name: 'Red Roadster' }).first().waitFor();
  } finally {
    await visitor.close();
  }
});

test('closing registration in the Site tab: the register page says so', async () => {
  await openAsAdmin(rig(), page, '/admin?tab=site');
  const form = page.locator('form.admin-site');
  await form.getByRole('switch', { name: 'Visitors may create accounts' }).uncheck();
  await form.getByRole('button', { name: 'Save Site' }).click();
  await form.getByText('Site settings saved.').waitFor();
  const visitor = await rig().browser.newContext({ baseURL: rig().stack.baseUrl });
  try {
    const register = await visitor.newPage();
    await eventually(async () => {
      await register.goto('/register');
      await register.getByText(/Registration is closed/).waitFor({ timeout: 1000 });
    });
  } finally {
    await visitor.close();
  }
  await form.getByRole('switch', { name: 'Visitors may create accounts' }).check();
  await form.getByRole('button', { name: 'Save Site' }).click();
  await form.getByText('Site settings saved.').waitFor();
});

test('the Users tab changes a role', async () => {
  const base = rig().stack.baseUrl;
  await fetch(`${base}/api/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'helper', password: 'helper-password' }),
  });
  await openAsAdmin(rig(), page, '/admin?tab=users');
  const role = page.getByLabel('Role of helper');
  await role.selectOption('admin');
  await eventually(async () => {
    const users = await adminGet<{ username: string; role: string }[]>(rig(), '/api/auth/users');
    expect(users.find((u) => u.username === 'helper')?.role).toBe('admin');
  });
  // The owner's own row has no Delete button; the last-admin rule is the server's.
  await page.getByRole('button', { name: 'Delete helper' }).waitFor();
  expect(await page.getByRole('button', { name: `Delete ${rig().stack.admin.username}` }).count()).toBe(0);
});

test('two-factor sign-in: set up from the QR code, then the sign-in asks for a code', async () => {
  await openAsAdmin(rig(), page, '/admin?tab=account');
  await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
  await page.getByRole('img', { name: 'QR code for your authenticator app' }).waitFor();
  expect(await axeProblems(page)).toEqual([]);
  const secret = (await page.locator('.two-factor-secret').textContent())!.trim();
  await page.getByLabel('Code from your authenticator app').fill(codeAt(secret));
  // Turning it on asks for the password beside the code.
  await page.getByRole('button', { name: 'Turn on' }).click();
  await page.getByRole('alert').filter({ hasText: 'password is required' }).waitFor();
  await page.getByLabel('Your password').fill(rig().stack.admin.password);
  await page.getByRole('button', { name: 'Turn on' }).click();
  const codes = page.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem');
  await codes.first().waitFor();
  expect(await codes.count()).toBe(10);
  await screenshot(page, 'account-two-factor');

  const fresh = await rig().browser.newContext({ baseURL: rig().stack.baseUrl, bypassCSP: true });
  try {
    const login = await fresh.newPage();
    await login.goto('/login');
    await login.getByLabel('Username').fill(rig().stack.admin.username);
    await login.getByLabel('Password').fill(rig().stack.admin.password);
    await login.getByRole('button', { name: 'Sign in' }).click();
    await login.getByRole('heading', { name: 'Two-factor sign-in' }).waitFor();
    expect(await axeProblems(login)).toEqual([]);
    await login.getByLabel(/Code from your authenticator app/).fill('000000');
    await login.getByRole('button', { name: 'Verify' }).click();
    await login.getByRole('alert').filter({ hasText: 'Invalid two-factor code' }).waitFor();
    await login.getByLabel(/Code from your authenticator app/).fill(codeAt(secret, 1));
    await login.getByRole('button', { name: 'Verify' }).click();
    await login.getByRole('heading', { name: 'Admin Dashboard' }).waitFor();
  } finally {
    await fresh.close();
  }

  // Five wrong codes lock the account's code checks; the sixth try says until when, and so does the page.
  await page.getByRole('button', { name: 'I have saved them' }).click();
  await page.getByLabel('Your password').fill(rig().stack.admin.password);
  const turnOff = async (code: string) => {
    await page.getByLabel(/^Code from your authenticator app/).fill(code);
    const answer = page.waitForResponse((r) => r.url().endsWith('/api/auth/2fa/disable'));
    await page.getByRole('button', { name: 'Turn off two-factor sign-in' }).click();
    return (await answer).status();
  };
  for (let i = 0; i < 5; i++) expect(await turnOff(String(300000 + i))).toBe(400);
  expect(await turnOff(codeAt(secret, 1))).toBe(429);
  await page
    .getByRole('alert')
    .filter({ hasText: /Too many wrong two-factor codes\..*Codes are accepted again at \d/ })
    .waitFor();
  await page
    .getByTestId('two-factor-lock')
    .filter({ hasText: /refused until \d/ })
    .waitFor();
  await screenshot(page, 'account-two-factor-locked');
  expect(await axeProblems(page)).toEqual([]);
});
