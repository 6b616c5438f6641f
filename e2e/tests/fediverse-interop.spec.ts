/**
 * The interoperability settings in the browser, against the built stack: the Site tab's post
 * format, quote policy, search consent and other accounts (a wrong address named under its field,
 * nothing saved), saved and shown on the blog's actor; the Fediverse tab imports Mastodon's
 * domain-block CSV (the report names the wrong line) and lists the blocks. axe on each screen,
 * desktop and phone widths; screenshots with SCREENSHOTS=dir.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { axeProblems } from '../support/axe.js';
import {
  adminGet,
  newAdminPage,
  openAsAdmin,
  pastTheScreen,
  screenshot,
  useAdminRig,
} from '../support/admin-rig.js';

const rig = useAdminRig();
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };
const contexts: BrowserContext[] = [];

async function open(viewport = DESKTOP): Promise<Page> {
  const { context, page } = await newAdminPage(rig(), viewport);
  contexts.push(context);
  return page;
}
afterAll(async () => {
  for (const context of contexts) await context.close();
});

test('the Site tab sets how posts look, who may quote, search consent and other accounts; the actor shows them', async () => {
  const admin = await open();
  await openAsAdmin(rig(), admin, '/admin?tab=site');
  const format = admin.getByRole('combobox', { name: 'How posts look on Mastodon' });
  await format.waitFor();
  expect(await format.inputValue()).toBe('article');
  await format.selectOption('note');
  await admin.getByRole('combobox', { name: 'Who may quote your posts' }).selectOption('followers');
  await admin
    .getByRole('switch', { name: 'Posts may be found by full-text search on other servers' })
    .uncheck();

  const aliases = admin.getByRole('textbox', { name: 'Other accounts of yours (one address a line)' });
  await aliases.fill('not an address');
  await admin.getByText('an account must be the http(s) URL of its actor').waitFor();
  expect(await aliases.getAttribute('aria-invalid')).toBe('true');
  await admin.getByRole('button', { name: 'Save Site' }).click();
  expect(await admin.evaluate(() => document.activeElement?.id)).toBe('site-fediverse-aliases');
  expect(
    (await adminGet<{ fediverse: { postFormat?: string } }>(rig(), '/api/site')).fediverse.postFormat,
  ).toBe('article');

  await aliases.fill('https://mastodon.example/users/anna\n');
  expect(await axeProblems(admin)).toEqual([]);
  await screenshot(admin, 'fediverse-interop-site-desktop');
  await admin.getByRole('button', { name: 'Save Site' }).click();
  await admin.getByText('Site settings saved.').waitFor();
  const saved = await adminGet<{ fediverse: Record<string, unknown> }>(rig(), '/api/site');
  expect(saved.fediverse).toMatchObject({
    postFormat: 'note',
    quotePolicy: 'followers',
    indexable: false,
    discoverable: true,
    alsoKnownAs: ['https://mastodon.example/users/anna'],
    movedTo: '',
  });

  // The actor other servers read (the social service reads the site at most 5 s late).
  const deadline = Date.now() + 15_000;
  let actor: Record<string, unknown> = {};
  while (Date.now() < deadline) {
    const response = await fetch(`${rig().stack.baseUrl}/ap/actor/blog`, {
      headers: { accept: 'application/activity+json' },
    });
    actor = (await response.json()) as Record<string, unknown>;
    if (actor.indexable === false) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  expect(actor).toMatchObject({
    indexable: false,
    discoverable: true,
    alsoKnownAs: 'https://mastodon.example/users/anna',
  });

  const phone = await open(PHONE);
  await openAsAdmin(rig(), phone, '/admin?tab=site');
  await phone.getByRole('combobox', { name: 'Who may quote your posts' }).waitFor();
  expect(await pastTheScreen(phone, PHONE.width)).toEqual([]);
  expect(await axeProblems(phone)).toEqual([]);
  await screenshot(phone, 'fediverse-interop-site-phone');
});

test('the Fediverse tab imports a Mastodon blocklist and reports the wrong line', async () => {
  const admin = await open();
  await openAsAdmin(rig(), admin, '/admin?tab=fediverse');
  const file = admin.getByLabel("Blocklist (Mastodon's domain-block CSV)");
  await file.waitFor();
  await file.setInputFiles({
    name: 'domain_blocks.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from(
      '#domain,#severity,#reject_media,#reject_reports,#public_comment,#obfuscate\n' +
        'spam.example,suspend,false,false,,false\nquiet.example,silence,false,false,,false\nbad*.example,suspend,false,false,,true\n',
    ),
  });
  await admin.getByRole('button', { name: 'Import', exact: true }).click();
  await admin.getByText('1 server blocked, 1 skipped').waitFor();
  await admin.getByText(/Line 4: "bad\*\.example" is not a domain/).waitFor();
  // The list of blocks reloads with the new server in it.
  await admin.getByRole('button', { name: /^Unblock.*spam\.example/ }).waitFor();
  expect(await axeProblems(admin)).toEqual([]);
  await screenshot(admin, 'fediverse-interop-blocklist-desktop');

  const phone = await open(PHONE);
  await openAsAdmin(rig(), phone, '/admin?tab=fediverse');
  await phone.getByRole('button', { name: 'Export', exact: true }).waitFor();
  expect(await pastTheScreen(phone, PHONE.width)).toEqual([]);
  expect(await axeProblems(phone)).toEqual([]);
  await screenshot(phone, 'fediverse-interop-blocklist-phone');
});
