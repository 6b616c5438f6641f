/**
 * The browser journey of a fediverse reply, in Chromium against the built stack:
 * an account on a Mastodon-shaped server (the federation rig's loopback fixture) sends a signed
 * Create{Note} replying to a post's Article to the blog's shared inbox through the gateway; the
 * reply waits for approval (the Comments tab lists it, the post does not show it); the owner
 * approves it from the keyboard; a visitor without JavaScript reads it under the post, its
 * author linked, its HTML sanitised, "via Mastodon". axe checks the page; screenshots at desktop
 * and phone sizes (SCREENSHOTS=dir).
 */
import type { AdminCommentsResult, PostView } from '@blog/contracts';
import type { BrowserContext, Page } from 'playwright-core';
import { startMastodon, type MastodonFixture } from '../../libs/federation/test/support/rig.js';
import { axeProblems } from '../support/axe.js';
import {
  adminGet,
  eventually,
  newAdminPage,
  openAsAdmin,
  screenshot,
  useAdminRig,
} from '../support/admin-rig.js';
import { createPost } from '../support/content.js';

// Tests only: the blog fetches the fixture's actor (its key) from loopback.
const rig = useAdminRig({ OUTBOUND_ALLOW: '127.0.0.1' });
const AS = 'https://www.w3.org/ns/activitystreams';
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
/** Mastodon's HTML with what a sanitiser must take out: a script and an inline handler. */
const NOTE_HTML =
  '<p>Lovely joinery on the oak bench!<script>window.hacked = 1</script> ' +
  '<a href="https://mastodon.example/@alice/photos" onclick="window.clicked = 1">My own bench</a></p>';
const contexts: BrowserContext[] = [];
let alice: MastodonFixture;
let post: PostView;
/** The blog as other servers address it (SITE_URL): the ids, and the URL the signature covers. */
let site: string;

beforeAll(async () => {
  const base = rig().stack.baseUrl;
  alice = await startMastodon();
  post = await createPost(base, rig().token, {
    title: 'An oak workbench',
    content: 'Two metres of oak, **dovetailed**.',
    category: 'Projects',
    date: '2025-06-01T12:00',
  });
  // SITE_URL is the launcher's default, http://localhost:{the stack's port} (the stack picks its
  // port, so the rig cannot pass a SITE_URL on 127.0.0.1): the same gateway, named as the blog
  // names itself in its actor.
  const actor = await fetch(`${base}/ap/actor/blog`, { headers: { Accept: 'application/activity+json' } });
  expect(actor.status).toBe(200);
  const { endpoints } = (await actor.json()) as { endpoints: { sharedInbox: string } };
  site = new URL(endpoints.sharedInbox).origin;
  expect(new URL(site).port).toBe(new URL(base).port);
}, 60_000);

afterEach(async () => {
  await Promise.all(contexts.splice(0).map((c) => c.close()));
});
afterAll(async () => {
  await alice?.close();
});

async function open(viewport = DESKTOP): Promise<Page> {
  const { context, page } = await newAdminPage(rig(), viewport);
  contexts.push(context);
  return page;
}

async function noScriptPage(viewport = DESKTOP): Promise<Page> {
  const context = await rig().browser.newContext({
    baseURL: rig().stack.baseUrl,
    javaScriptEnabled: false,
    viewport,
  });
  contexts.push(context);
  context.setDefaultTimeout(15_000);
  return context.newPage();
}

const comments = (page: Page) => page.locator('#comments');
const aliceHandle = () => `@alice@${new URL(alice.origin).host}`;
const pending = () =>
  adminGet<AdminCommentsResult>(rig(), '/api/admin/comments?status=pending').then((r) =>
    r.items.filter((c) => c.postId === post.id),
  );

test('a signed reply through the gateway waits for approval: the Comments tab lists it, the post does not', async () => {
  const noteId = `${alice.actorId}/statuses/1`;
  const create = {
    '@context': AS,
    id: `${noteId}/activity`,
    type: 'Create',
    actor: alice.actorId,
    to: [`${AS}#Public`],
    object: {
      id: noteId,
      type: 'Note',
      inReplyTo: `${site}/post/${post.id}`,
      published: new Date().toISOString(),
      attributedTo: alice.actorId,
      to: [`${AS}#Public`],
      cc: [`${site}/ap/actor/blog`],
      content: NOTE_HTML,
    },
  };
  // Signed for the shared inbox at SITE_URL, sent there: the gateway hands it to the social service.
  const signed = await alice.signedPost(`${site}/ap/inbox`, create);
  const answer = await fetch(signed);
  expect(answer.status).toBe(202);

  // The inbox queue stores it after the 202: a pending comment of the post, from the fediverse.
  const [stored] = await eventually(async () => expect(await pending()).toHaveLength(1)).then(pending);
  expect(stored).toMatchObject({
    status: 'pending',
    via: 'Mastodon',
    author: { name: 'Alice', handle: aliceHandle(), local: false },
  });

  const admin = await open();
  await openAsAdmin(rig(), admin, '/admin?tab=comments');
  await admin.getByRole('tab', { name: 'Pending (1)', selected: true }).waitFor();
  const row = admin.locator('.admin-comment').filter({ hasText: 'Lovely joinery' });
  await row.getByRole('link', { name: post.title }).waitFor();
  await row.getByRole('link', { name: 'Alice' }).waitFor();
  expect(await row.locator('.admin-comment-meta').innerText()).toContain(`${aliceHandle()} · `);
  expect(await row.locator('.admin-comment-meta').innerText()).toContain('via Mastodon');
  expect(await axeProblems(admin)).toEqual([]);
  await screenshot(admin, 'fediverse-reply-pending-desktop');

  // Pending: not in the server's page of the post.
  const visitor = await noScriptPage();
  await visitor.goto(post.url!);
  await comments(visitor).getByRole('heading', { name: 'No comments yet' }).waitFor();
  expect(await comments(visitor).innerText()).not.toContain('Lovely joinery');
});

test('the owner approves the reply from the keyboard in the Comments tab', async () => {
  const admin = await open();
  await openAsAdmin(rig(), admin, '/admin?tab=comments');
  const row = admin.locator('.admin-comment').filter({ hasText: 'Lovely joinery' });
  const approve = row.getByRole('button', { name: /^Approve/ });
  await approve.focus();
  expect(await approve.evaluate((el) => el === document.activeElement)).toBe(true);
  await admin.keyboard.press('Enter');
  await admin.getByText('Comment approved.').waitFor();
  await admin.getByText('No comments wait for approval.').waitFor();
  await admin.getByRole('tab', { name: 'Pending (0)' }).waitFor();
  expect(await pending()).toEqual([]);
  const approved = await adminGet<AdminCommentsResult>(rig(), '/api/admin/comments?status=approved');
  expect(approved.items.filter((c) => c.postId === post.id)).toEqual([
    expect.objectContaining({ status: 'approved', via: 'Mastodon' }),
  ]);
});

test('a visitor without JavaScript reads the reply under the post: linked author, sanitised text, via Mastodon', async () => {
  const visitor = await noScriptPage();
  // The public page cache lasts a second.
  await eventually(async () => {
    await visitor.goto(post.url!);
    expect(await comments(visitor).getByRole('heading', { level: 2 }).innerText()).toBe('1 comment');
  });
  const reply = comments(visitor).getByRole('article', { name: 'Comment by Alice' });
  const author = reply.locator('.comment-author').getByRole('link', { name: 'Alice', exact: true });
  expect(await author.getAttribute('href')).toBe(`${alice.origin}/@alice`);
  expect((await reply.locator('.comment-handle').innerText()).trim()).toBe(aliceHandle());
  expect(await reply.locator('.comment-via').innerText()).toContain('via Mastodon');
  const text = reply.locator('.comment-content');
  expect(await text.innerText()).toContain('Lovely joinery on the oak bench!');
  await text.getByRole('link', { name: 'My own bench' }).waitFor();
  // Sanitised when stored: no script, no inline handler, not even as text.
  const html = await text.innerHTML();
  expect(html).not.toMatch(/<script|onclick|window\.hacked|window\.clicked/i);
  expect(await text.locator('script, [onclick]').count()).toBe(0);

  for (const [name, viewport] of [
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ] as const) {
    await visitor.setViewportSize(viewport);
    await screenshot(visitor, `fediverse-reply-post-${name}`);
  }
});

test('axe finds no serious issue on the post with the reply, as served and as hydrated', async () => {
  // axe is a script, which a context without JavaScript cannot run: here the page's own scripts
  // are refused instead, so axe reads the server's HTML as the visitor above got it.
  const served = await open();
  await served.context().route(/\.m?js(\?|$)/, (route) => route.abort());
  // Frame.goto: the page's goto would wait for a hydration that cannot come.
  await served.mainFrame().goto(post.url!);
  const reply = comments(served).getByRole('article', { name: 'Comment by Alice' });
  await reply.getByText('via Mastodon').waitFor();
  expect(await served.locator('html[data-hydrated]').count()).toBe(0);
  expect(await axeProblems(served)).toEqual([]);

  const hydrated = await open(PHONE);
  await hydrated.goto(post.url!);
  await comments(hydrated).getByRole('article', { name: 'Comment by Alice' }).waitFor();
  // The Note's script and handler never ran, hydrated or not.
  expect(await hydrated.evaluate(() => 'hacked' in window || 'clicked' in window)).toBe(false);
  expect(await axeProblems(hydrated)).toEqual([]);
});
