/**
 * The blog in the fediverse, as its owner and its visitors see it (the handle, the Fediverse tab, comments), in
 * Chromium against the built stack. Followers, a follow request, a remote reply and reactions
 * are seeded through the social and posts services' own RPC (as the federation hands them
 * over). The Fediverse tab lists, approves and removes followers; the Comments tab blocks a
 * reply's server, which deletes the reply and lists the block; the Site tab saves the handle,
 * which the About page and the footer then show, also without JavaScript; the post list shows
 * likes and boosts; deliveries given up (seeded by SQL: only the federation's queue makes them) are
 * listed per server and dismissed. axe checks each screen; screenshots at desktop and phone sizes
 * (SCREENSHOTS=dir).
 */
import { Patterns, type PostView } from '@blog/contracts';
import { freePort } from '@blog/server-kit/testing';
import { ClientProxyFactory, Transport, type ClientProxy } from '@nestjs/microservices';
import type { BrowserContext, Page } from 'playwright-core';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { firstValueFrom } from 'rxjs';
import { axeProblems } from '../support/axe.js';
import {
  adminGet,
  eventually,
  newAdminPage,
  openAsAdmin,
  placeLink,
  pastTheScreen,
  screenshot,
  useAdminRig,
} from '../support/admin-rig.js';
import { createPost } from '../support/content.js';

// The services' ports are chosen here, so this file can reach them as the federation does.
const ports = {
  SOCIAL_PORT: String(await freePort()),
  POSTS_PORT: String(await freePort()),
  // The launcher's PostgreSQL too, so a test can seed what only the federation's queue writes.
  PG_PORT: String(await freePort()),
};
const rig = useAdminRig(ports);
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };
const contexts: BrowserContext[] = [];
const clients: ClientProxy[] = [];
let post: PostView;

function client(port: string): ClientProxy {
  const proxy = ClientProxyFactory.create({
    transport: Transport.TCP,
    options: { host: '127.0.0.1', port: Number(port) },
  });
  clients.push(proxy);
  return proxy;
}
let social: ClientProxy;
let posts: ClientProxy;
const rpc = <T>(to: ClientProxy, pattern: string, data: unknown) =>
  firstValueFrom(to.send<T>(pattern, { requestId: 'e2e', data }));

/** A Follow from `user@host`, as the federation stores it. */
const follow = (user: string, host: string, requireApproval = false) =>
  rpc<{ id: number }>(social, Patterns.social.follow, {
    actorUri: `https://${host}/users/${user}`,
    handle: `@${user}@${host}`,
    name: user[0]!.toUpperCase() + user.slice(1),
    url: `https://${host}/@${user}`,
    inbox: `https://${host}/users/${user}/inbox`,
    sharedInbox: `https://${host}/inbox`,
    followActivityId: `https://${host}/follows/${user}`,
    requireApproval,
  });

beforeAll(async () => {
  social = client(ports.SOCIAL_PORT);
  posts = client(ports.POSTS_PORT);
  post = await createPost(rig().stack.baseUrl, rig().token, {
    title: 'A new workbench',
    content: 'Oak, two metres long.',
    category: 'Projects',
    date: '2025-06-01T12:00',
  });
  await follow('alice', 'mastodon.example');
  await follow('bob', 'mastodon.example');
  await follow('carol', 'other.example', true);
  await rpc(posts, Patterns.posts.commentCreateRemote, {
    postId: post.id,
    remoteObjectId: 'https://spam.example/notes/1',
    actor: {
      uri: 'https://spam.example/users/troll',
      name: 'Troll',
      handle: '@troll@spam.example',
      url: 'https://spam.example/@troll',
    },
    html: '<p>Buy cheap sawdust at spam.example!</p>',
  });
  for (const [n, kind] of [
    [1, 'like'],
    [2, 'like'],
    [3, 'announce'],
  ] as const)
    await rpc(social, Patterns.social.reaction, {
      activityId: `https://fans.example/activities/${n}`,
      postId: post.id,
      actorUri: `https://fans.example/users/fan${n}`,
      kind,
    });
}, 60_000);

afterEach(async () => {
  await Promise.all(contexts.splice(0).map((c) => c.close()));
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
});

async function open(viewport = DESKTOP): Promise<Page> {
  const { context, page } = await newAdminPage(rig(), viewport);
  contexts.push(context);
  return page;
}

async function noScriptPage(): Promise<Page> {
  const context = await rig().browser.newContext({
    baseURL: rig().stack.baseUrl,
    javaScriptEnabled: false,
    viewport: DESKTOP,
  });
  contexts.push(context);
  context.setDefaultTimeout(15_000);
  return context.newPage();
}

const host = () => new URL(`http://localhost:${new URL(rig().stack.baseUrl).port}`).host;

test('the Fediverse tab lists followers with counts, approves a follow request and removes a follower', async () => {
  const admin = await open();
  await openAsAdmin(rig(), admin, '/admin?tab=fediverse');
  const tab = admin.getByRole('region', { name: 'Fediverse', exact: true });
  await tab.getByText(`@blog@${host()}`, { exact: true }).waitFor();
  await tab.getByRole('button', { name: "Copy the blog's fediverse handle" }).waitFor();
  const counts = tab.getByRole('list', { name: 'Counts' });
  await counts.getByText('2 followers').waitFor();
  expect(await counts.innerText()).toMatch(/1\s+waiting for approval/);
  const followers = tab.getByRole('region', { name: 'Followers (2)' });
  const pending = tab.getByRole('region', { name: 'Waiting for approval (1)' });
  await followers.getByRole('link', { name: '@alice@mastodon.example' }).waitFor();
  expect(await followers.getByRole('listitem').allInnerTexts()).toEqual([
    expect.stringMatching(/@bob@mastodon\.example Bob\s+mastodon\.example · since /),
    expect.stringMatching(/@alice@mastodon\.example Alice\s+mastodon\.example · since /),
  ]);
  await pending.getByRole('link', { name: '@carol@other.example' }).waitFor();
  await tab.getByText('No accounts or servers are blocked.').waitFor();
  expect(await axeProblems(admin)).toEqual([]);
  await screenshot(admin, 'fediverse-tab-desktop');

  await admin.setViewportSize(PHONE);
  expect(await pastTheScreen(admin, PHONE.width)).toEqual([]);
  expect(await axeProblems(admin)).toEqual([]);
  await screenshot(admin, 'fediverse-tab-phone');
  await admin.setViewportSize(DESKTOP);

  // Approve: carol joins the followers, and no request waits any more.
  await pending.getByRole('button', { name: 'Approve @carol@other.example' }).click();
  await admin.getByText('@carol@other.example now follows the blog.').waitFor();
  await tab
    .getByRole('region', { name: 'Followers (3)' })
    .getByRole('link', { name: '@carol@other.example' })
    .waitFor();
  await tab.getByText('No follow requests wait for approval.').waitFor();

  // Remove asks first: dismissed, nothing changes; accepted, alice goes.
  const remove = tab.getByRole('button', { name: 'Remove @alice@mastodon.example' });
  admin.once('dialog', (dialog) => void dialog.dismiss());
  await remove.click();
  await tab.getByRole('region', { name: 'Followers (3)' }).waitFor();
  admin.once('dialog', (dialog) => {
    expect(dialog.message()).toContain('@alice@mastodon.example');
    void dialog.accept();
  });
  await remove.click();
  await admin.getByText('@alice@mastodon.example removed.').waitFor();
  const after = tab.getByRole('region', { name: 'Followers (2)' });
  await after.getByRole('link', { name: '@bob@mastodon.example' }).waitFor();
  expect(await after.getByRole('link', { name: '@alice@mastodon.example' }).count()).toBe(0);
  // The focus goes back to the tab's heading, so a keyboard user is not lost.
  expect(await admin.evaluate(() => document.activeElement?.id)).toBe('fediverse-tab-heading');
  const api = await adminGet<{ counts: { accepted: number; pending: number } }>(
    rig(),
    '/api/admin/fediverse/followers',
  );
  expect(api.counts).toMatchObject({ accepted: 2, pending: 0 });
});

test("blocking a reply's server from the Comments tab deletes the reply and lists the block", async () => {
  const admin = await open();
  await openAsAdmin(rig(), admin, '/admin?tab=comments');
  const row = admin.locator('.admin-comment').filter({ hasText: 'Buy cheap sawdust' });
  await row.waitFor();
  // A remote author: the account alone or its whole server can be blocked.
  const block = row.getByRole('button', { name: /^Block this server/ });
  expect(await row.getByRole('button', { name: /^Block this account/ }).count()).toBe(1);
  expect(await axeProblems(admin)).toEqual([]);
  await screenshot(admin, 'fediverse-comments-block-desktop');
  admin.once('dialog', (dialog) => {
    expect(dialog.message()).toContain('spam.example');
    void dialog.accept();
  });
  await block.click();
  await admin.getByText('The server spam.example blocked. Removed 1 comment.').waitFor();
  await row.waitFor({ state: 'detached' });
  await admin.getByText('No comments wait for approval.').waitFor();

  await placeLink(admin, 'Followers').click();
  const blocks = admin.getByRole('region', { name: 'Blocked (1)' });
  await blocks.locator('.fediverse-row-title').getByText('spam.example', { exact: true }).waitFor();
  expect(await blocks.getByRole('listitem').innerText()).toMatch(/Server · blocked /);
  await admin.setViewportSize(PHONE);
  expect(await pastTheScreen(admin, PHONE.width)).toEqual([]);
  await screenshot(admin, 'fediverse-tab-blocked-phone');
  await admin.setViewportSize(DESKTOP);
  await blocks.getByRole('button', { name: 'Unblock spam.example' }).click();
  await admin.getByText('spam.example unblocked.').waitFor();
  await admin
    .getByRole('region', { name: 'Blocked (0)' })
    .getByText('No accounts or servers are blocked.')
    .waitFor();
});

test('the Site tab saves the handle; the About page and the footer show it, also without JavaScript', async () => {
  const admin = await open();
  await openAsAdmin(rig(), admin, '/admin?tab=site');
  const handle = admin.getByRole('textbox', { name: 'Fediverse handle', exact: true });
  await handle.waitFor();
  expect(await handle.inputValue()).toBe('blog');
  // A wrong handle is named under the field, and nothing is sent.
  await handle.fill('Anna Garage');
  await admin.getByText('fediverse handle must be 1-30 lowercase letters, digits or "_"').waitFor();
  expect(await handle.getAttribute('aria-invalid')).toBe('true');
  await admin.getByRole('button', { name: 'Save Site' }).click();
  expect(await admin.evaluate(() => document.activeElement?.id)).toBe('site-fediverse-handle');
  expect(
    (await adminGet<{ fediverse?: { handle: string } }>(rig(), '/api/site')).fediverse?.handle ?? 'blog',
  ).toBe('blog');

  await handle.fill('anna_garage');
  await admin.getByText(`Followers find the blog as @anna_garage@${host()}.`).waitFor();
  await admin.getByRole('switch', { name: 'Approve followers before they follow' }).check();
  await admin.getByRole('button', { name: 'Use the banner' }).click();
  expect(await admin.getByLabel('Avatar image (a path of this site)').inputValue()).toMatch(/^\//);
  expect(await axeProblems(admin)).toEqual([]);
  await screenshot(admin, 'fediverse-site-tab-desktop');
  await admin.getByRole('button', { name: 'Save Site' }).click();
  await admin.getByText('Site settings saved.').waitFor();
  const saved = await adminGet<{ fediverse: { handle: string; approveFollowers: boolean }; host: string }>(
    rig(),
    '/api/site',
  );
  expect(saved.fediverse).toMatchObject({ handle: 'anna_garage', approveFollowers: true });
  expect(saved.host).toBe(host());

  const address = `@anna_garage@${host()}`;
  // With JavaScript: the About page's section and the footer, each with a Copy button.
  const visitor = await open();
  await visitor.goto('/about');
  await visitor.locator('html[data-hydrated]').waitFor({ state: 'attached' });
  const follow = visitor.getByRole('region', { name: 'Follow on Mastodon' });
  await follow.getByText(address, { exact: true }).waitFor();
  const footer = visitor.locator('footer.site-footer');
  await footer.getByText(address, { exact: true }).waitFor();
  expect(await footer.innerText()).toContain('Follow on Mastodon:');
  await visitor.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await follow.getByRole('button', { name: "Copy the blog's fediverse handle" }).click();
  await follow.getByRole('button', { name: "the blog's fediverse handle copied" }).waitFor();
  expect(await visitor.evaluate(() => navigator.clipboard.readText())).toBe(address);
  expect(await axeProblems(visitor)).toEqual([]);
  await screenshot(visitor, 'fediverse-about-desktop');
  await visitor.setViewportSize(PHONE);
  expect(await pastTheScreen(visitor, PHONE.width)).toEqual([]);
  await screenshot(visitor, 'fediverse-about-phone');

  // Without JavaScript: the server's page has the address (no Copy button: it could not work).
  const plain = await noScriptPage();
  await eventually(async () => {
    await plain.goto('/about');
    expect(await plain.getByRole('region', { name: 'Follow on Mastodon' }).innerText()).toContain(address);
  });
  const footerText = (await plain.locator('footer .footer-fediverse').innerText()).replace(/\s+/g, ' ');
  expect(footerText.trim()).toBe(`Follow on Mastodon: ${address}`);
  await screenshot(plain, 'fediverse-about-no-javascript-desktop');
  expect(await plain.getByRole('button', { name: /Copy/ }).count()).toBe(0);
  await plain.goto(post.url!);
  expect(await plain.locator('footer.site-footer').innerText()).toContain(address);
});

test("the post list shows each post's likes and boosts from the fediverse", async () => {
  const admin = await open();
  await openAsAdmin(rig(), admin, '/admin');
  const row = admin.locator('.admin-post-row').filter({ hasText: post.title });
  await row.getByText('2 likes, 1 boost on the fediverse').waitFor();
  await screenshot(admin, 'fediverse-post-list-desktop');
});

/** SQL on the stack's database (the launcher's PostgreSQL: its password is in DATA_DIR). */
async function stackSql(statement: string, values: unknown[] = []): Promise<void> {
  const url =
    process.env.DATABASE_URL ??
    `postgres://postgres:${(await readFile(join(rig().stack.dataDir, 'postgres-password'), 'utf8')).trim()}` +
      `@127.0.0.1:${ports.PG_PORT}/blog`;
  const sql = new pg.Client({ connectionString: url });
  await sql.connect();
  try {
    await sql.query(statement, values);
  } finally {
    await sql.end();
  }
}

test('the Fediverse tab lists the servers deliveries were given up for, in plain words, and dismisses them', async () => {
  await stackSql(`DELETE FROM social.delivery_failures`);
  await stackSql(
    `INSERT INTO social.delivery_failures (host, inbox, last_activity_id, reason, status_code, error,
       first_failed_at, last_failed_at, count)
     VALUES ('gone.example', 'https://gone.example/inbox', NULL, 'gone', 410, 'Gone',
             now() - interval '5 days', now() - interval '2 days', 3),
            ('slow.example', 'https://slow.example/inbox', NULL, 'expired', NULL, 'connect ETIMEDOUT',
             now() - interval '3 days', now() - interval '1 hour', 1),
            ('busy.example:8443', 'https://busy.example:8443/inbox', NULL, 'dropped', NULL, NULL,
             now() - interval '3 days', now() - interval '3 hours', 2)`,
  );
  const admin = await open();
  await openAsAdmin(rig(), admin, '/admin?tab=fediverse');
  const problems = admin.getByRole('region', { name: 'Delivery problems (3)' });
  await problems.locator('.fediverse-row-title').getByText('slow.example', { exact: true }).waitFor();
  const rows = (await problems.getByRole('listitem').allInnerTexts()).map((text) =>
    text.replace(/\s+/g, ' '),
  );
  expect(rows).toEqual([
    expect.stringMatching(
      /^slow\.example Not reachable for 48 hours\. 1 post missed · last given up .+ Dismiss/,
    ),
    expect.stringMatching(/^busy\.example:8443 Too many failures in a row\. 2 posts missed · last given up /),
    expect.stringMatching(
      /^gone\.example The server answered 410 Gone: its accounts are gone\. 3 posts missed · last given up /,
    ),
  ]);
  expect(await axeProblems(admin)).toEqual([]);
  await problems.scrollIntoViewIfNeeded();
  await screenshot(admin, 'fediverse-delivery-problems-desktop');
  await admin.setViewportSize(PHONE);
  expect(await pastTheScreen(admin, PHONE.width)).toEqual([]);
  expect(await axeProblems(admin)).toEqual([]);
  await problems.scrollIntoViewIfNeeded();
  await screenshot(admin, 'fediverse-delivery-problems-phone');
  await admin.setViewportSize(DESKTOP);

  await problems.getByRole('button', { name: 'Dismiss busy.example:8443' }).click();
  await admin.getByText('busy.example:8443 dismissed.').waitFor();
  const left = admin.getByRole('region', { name: 'Delivery problems (2)' });
  await left.locator('.fediverse-row-title').getByText('gone.example', { exact: true }).waitFor();
  expect(await left.getByRole('button', { name: 'Dismiss busy.example:8443' }).count()).toBe(0);
  for (const host of ['slow.example', 'gone.example']) {
    await admin
      .getByRole('region', { name: /^Delivery problems/ })
      .getByRole('button', { name: `Dismiss ${host}` })
      .click();
    await admin.getByText(`${host} dismissed.`).waitFor();
  }
  await admin
    .getByRole('region', { name: 'Delivery problems (0)' })
    .getByText("Every follower's server is taking the posts.")
    .waitFor();
  expect(await adminGet<{ items: unknown[] }>(rig(), '/api/admin/fediverse/deliveries')).toEqual({
    items: [],
  });
});
