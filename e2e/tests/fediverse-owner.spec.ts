/**
 * The owner's side of the fediverse in Chromium against the built stack, with a Mastodon-shaped
 * server on loopback (its accounts signed with their own keys, WebFinger, inboxes that record
 * what the blog sends): following by handle and its Accept, the Reader (a content warning folded
 * until opened, the picture as the blog's own copy, a boost, Like and Reply), and the
 * notifications with the unread count in the navigation, a note's likes and boosts in the Notes
 * place, and moving the followers away. axe checks each screen; screenshots at
 * desktop and phone sizes (SCREENSHOTS=dir).
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type express from 'express';
import type { BrowserContext, Page } from 'playwright-core';
import sharp from 'sharp';
import {
  serveWebFinger,
  startPeer,
  type Peer,
  type PeerAccount,
} from '../../libs/federation/test/support/peer.js';
import { axeProblems } from '../support/axe.js';
import { loadedWidth } from '../support/browser.js';
import {
  adminGet,
  eventually,
  newAdminPage,
  openAsAdmin,
  pastTheScreen,
  placeLink,
  screenshot,
  useAdminRig,
} from '../support/admin-rig.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const AS = 'https://www.w3.org/ns/activitystreams';
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };
const rig = useAdminRig({ OUTBOUND_ALLOW: '127.0.0.1' });
const contexts: BrowserContext[] = [];
let peer: Peer;
let alice: PeerAccount;
let bob: PeerAccount;
let pictures: Server;
let picturesOrigin: string;
const received: Json[] = [];

beforeAll(async () => {
  peer = await startPeer();
  [alice, bob] = await Promise.all([peer.account('alice'), peer.account('bob')]);
  serveWebFinger(peer, ['alice', 'bob']);
  const inbox = (req: express.Request) => {
    received.push(JSON.parse(String(req.body)) as Json);
    return { status: 202 };
  };
  // The accounts' own inboxes and their server's shared one.
  for (const path of ['/users/alice/inbox', '/users/bob/inbox', '/inbox']) peer.serve(path, inbox);
  const png = await sharp({ create: { width: 800, height: 500, channels: 3, background: '#3a7d44' } })
    .png()
    .toBuffer();
  pictures = createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(png));
  pictures.listen(0, '127.0.0.1');
  await once(pictures, 'listening');
  picturesOrigin = `http://127.0.0.1:${(pictures.address() as AddressInfo).port}`;
}, 60_000);

afterEach(async () => {
  await Promise.all(contexts.splice(0).map((c) => c.close()));
});
afterAll(async () => {
  await peer?.close();
  pictures?.close();
});

async function open(viewport = DESKTOP): Promise<Page> {
  const { context, page } = await newAdminPage(rig(), viewport);
  contexts.push(context);
  return page;
}

/** The blog's actor id: SITE_URL's, which the launcher sets. */
const blogActor = async () =>
  (
    await (
      await fetch(`${rig().stack.baseUrl}/ap/actor/blog`, {
        headers: { accept: 'application/activity+json' },
      })
    ).json()
  ).id as string;

/** A signed POST from a peer account to the blog's shared inbox. */
async function deliver(from: PeerAccount, activity: Json) {
  const request = await peer.signedPost(
    `${rig().stack.baseUrl}/ap/inbox`,
    { '@context': AS, ...activity },
    from.rsa.privateKey,
    from.keyId,
  );
  const answer = await fetch(request);
  expect(answer.status).toBe(202);
}

const note = (author: PeerAccount, n: number, extra: Json = {}) => ({
  id: `${author.actorId}/statuses/${n}`,
  type: 'Note',
  attributedTo: author.actorId,
  content: `<p>Note ${n}</p>`,
  published: new Date(Date.UTC(2026, 10, 28, 9, n)).toISOString(),
  to: [`${AS}#Public`],
  ...extra,
});
const create = (author: PeerAccount, object: Json) => ({
  id: `${object.id}/activity`,
  type: 'Create',
  actor: author.actorId,
  object,
});

test('following an account by its handle: pending until its server accepts', async () => {
  const admin = await open();
  await openAsAdmin(rig(), admin, '/admin?tab=following');
  const place = admin.getByRole('region', { name: 'Following' });
  await place.getByText('The blog follows no one yet.').waitFor();
  const handle = `@alice@${new URL(peer.origin).host}`;
  // A handle nobody answers for is named as such, and nothing is added.
  await place
    .getByRole('textbox', { name: 'Follow an account' })
    .fill(`@nobody@${new URL(peer.origin).host}`);
  await place.getByRole('button', { name: 'Follow' }).click();
  await place.getByText('No fediverse account answers at that address').waitFor();
  await place.getByRole('textbox', { name: 'Follow an account' }).fill(handle);
  await place.getByRole('button', { name: 'Follow' }).click();
  await admin.getByText(`Follow request sent to ${handle}.`).waitFor();
  await place.getByText('waiting for their answer').waitFor();
  expect(await axeProblems(admin)).toEqual([]);
  await screenshot(admin, 'fediverse-following-desktop');

  let follow: Json | undefined;
  await eventually(async () => {
    follow = received.find((a) => a.type === 'Follow');
    expect(follow).toBeDefined();
  });
  await deliver(alice, {
    id: `${alice.actorId}#accept-1`,
    type: 'Accept',
    actor: alice.actorId,
    object: follow!.id,
  });
  await eventually(async () => {
    const list = await adminGet<{ items: { status: string }[] }>(rig(), '/api/admin/fediverse/following');
    expect(list.items[0]?.status).toBe('accepted');
  });
  await admin.reload();
  await place.getByText(/^following · since/).waitFor();
  await place.getByRole('button', { name: `Unfollow ${handle}` }).waitFor();
  await admin.setViewportSize(PHONE);
  expect(await pastTheScreen(admin, PHONE.width)).toEqual([]);
  expect(await axeProblems(admin)).toEqual([]);
  await screenshot(admin, 'fediverse-following-phone');
}, 120_000);

test('the Reader shows what followed accounts post: a warning folded until opened, a picture, a boost; Like and Reply', async () => {
  const blog = await blogActor();
  // Each note is served at its id too, as Mastodon does (a like fetches it to find its author).
  const first = note(alice, 1, { content: '<p>Fresh bread from the wood oven.</p>' });
  peer.serve('/users/alice/statuses/1', { body: { '@context': AS, ...first } });
  await deliver(alice, create(alice, first));
  await deliver(
    alice,
    create(
      alice,
      note(alice, 2, {
        content: '<p>The ending of the film, in detail.</p>',
        summary: 'Film spoilers',
        sensitive: true,
        attachment: [
          {
            type: 'Document',
            mediaType: 'image/png',
            url: `${picturesOrigin}/still.png`,
            name: 'A green field',
          },
        ],
      }),
    ),
  );
  peer.serve('/users/bob/statuses/5', {
    body: { '@context': AS, ...note(bob, 5, { content: '<p>Bob on birds.</p>' }) },
  });
  await deliver(alice, {
    id: `${alice.actorId}/boosts/1`,
    type: 'Announce',
    actor: alice.actorId,
    object: `${bob.actorId}/statuses/5`,
    to: [`${AS}#Public`],
  });
  await eventually(async () => {
    const page = await adminGet<{ items: unknown[] }>(rig(), '/api/admin/fediverse/reader');
    expect(page.items).toHaveLength(3);
  });

  const admin = await open();
  await openAsAdmin(rig(), admin, '/admin?tab=reader');
  const reader = admin.getByRole('region', { name: 'Reader' });
  const entries = reader.getByRole('article');
  await entries.first().waitFor();
  expect(await entries.count()).toBe(3);
  // Newest first: the boost, with who boosted it.
  await entries.nth(0).getByText('Boosted by alice').waitFor();
  await entries.nth(0).getByText('Bob on birds.').waitFor();
  // The warning hides the text and the picture until it is opened.
  const warned = entries.nth(1);
  const text = warned.getByText('The ending of the film, in detail.');
  expect(await text.isVisible()).toBe(false);
  expect(await axeProblems(admin)).toEqual([]);
  await screenshot(admin, 'fediverse-reader-desktop');
  await warned.getByText('Film spoilers').click();
  await text.waitFor();
  const picture = warned.getByRole('img', { name: 'A green field' });
  expect(await picture.getAttribute('src')).toMatch(/^\/uploads\/media\/pictures\//);
  expect(await loadedWidth(picture)).toBe(800);

  // Like: pressed, and alice's server gets it.
  const plain = entries.nth(2);
  await plain.getByRole('button', { name: 'Like' }).click();
  await plain.getByRole('button', { name: 'Liked', pressed: true }).waitFor();
  await eventually(async () =>
    expect(received.find((a) => a.type === 'Like')).toMatchObject({ object: `${alice.actorId}/statuses/1` }),
  );

  // Reply: a note of the blog's answering the post, mentioning alice, sent to her.
  await plain.getByRole('button', { name: 'Reply' }).click();
  const box = plain.getByRole('textbox', { name: /^Reply to @alice@/ });
  expect(await box.inputValue()).toMatch(/^@alice@\S+ $/);
  await box.fill(`${await box.inputValue()}Save me a loaf!`);
  expect(await axeProblems(admin)).toEqual([]);
  await plain.getByRole('button', { name: 'Send reply' }).click();
  await admin.getByText(/^Reply sent to @alice@/).waitFor();
  await eventually(async () => {
    const reply = received.find(
      (a) => a.type === 'Create' && a.object?.inReplyTo === `${alice.actorId}/statuses/1`,
    );
    expect(reply?.object).toMatchObject({ attributedTo: blog });
    expect(reply?.object.content).toContain('Save me a loaf!');
  }, 30_000);

  await admin.setViewportSize(PHONE);
  expect(await pastTheScreen(admin, PHONE.width)).toEqual([]);
  expect(await axeProblems(admin)).toEqual([]);
  await screenshot(admin, 'fediverse-reader-phone');
}, 120_000);

test('notifications: the unread count in the navigation, the list, and marking them read', async () => {
  const blog = await blogActor();
  await deliver(bob, { id: `${bob.actorId}#follow-1`, type: 'Follow', actor: bob.actorId, object: blog });
  await deliver(
    bob,
    create(
      bob,
      note(bob, 9, {
        content: '<p>Have you seen <span class="h-card"><a href="#">@blog</a></span>’s new post?</p>',
        tag: [{ type: 'Mention', href: blog, name: '@blog' }],
      }),
    ),
  );
  await eventually(async () => {
    const { unread } = await adminGet<{ unread: number }>(rig(), '/api/admin/fediverse/notifications/unread');
    expect(unread).toBe(2);
  });
  const admin = await open();
  await openAsAdmin(rig(), admin, '/admin');
  await placeLink(admin, /^Notifications\s*, 2 unread$/).click();
  const place = admin.getByRole('region', { name: 'Notifications' });
  const rows = place.getByRole('listitem');
  await rows.first().waitFor();
  expect(await rows.allInnerTexts()).toEqual([
    expect.stringMatching(/^New\s+bob\s+@bob@\S+\s+mentioned the blog\s+Have you seen @blog’s new post\?/i),
    expect.stringMatching(/^New\s+bob\s+@bob@\S+\s+followed the blog/i),
  ]);
  expect(await axeProblems(admin)).toEqual([]);
  await screenshot(admin, 'fediverse-notifications-desktop');
  await place.getByRole('button', { name: 'Mark all as read' }).click();
  await place.getByText('Nothing unread.').waitFor();
  await placeLink(admin, /^Notifications$/).waitFor();
  expect(await rows.first().innerText()).not.toMatch(/^New/i);
  await admin.setViewportSize(PHONE);
  expect(await pastTheScreen(admin, PHONE.width)).toEqual([]);
  expect(await axeProblems(admin)).toEqual([]);
  await screenshot(admin, 'fediverse-notifications-phone');
}, 120_000);

test("the Notes place shows each note's likes, boosts and quotes from the fediverse", async () => {
  const written = await fetch(`${rig().stack.baseUrl}/api/admin/fediverse/notes`, {
    method: 'POST',
    headers: { authorization: `Bearer ${rig().token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ content: 'Frost on the leeks this morning.' }),
  });
  expect(written.status).toBe(201);
  const noteUri = `${await blogActor().then((actor) => new URL(actor).origin)}/notes/${((await written.json()) as Json).id}`;
  await deliver(alice, {
    id: `${alice.actorId}#likes/frost`,
    type: 'Like',
    actor: alice.actorId,
    object: noteUri,
  });
  await deliver(bob, { id: `${bob.actorId}#likes/frost`, type: 'Like', actor: bob.actorId, object: noteUri });
  await deliver(bob, {
    id: `${bob.actorId}/statuses/frost/activity`,
    type: 'Announce',
    actor: bob.actorId,
    object: noteUri,
    to: [`${AS}#Public`],
  });
  const admin = await open();
  await eventually(async () => {
    await openAsAdmin(rig(), admin, '/admin?tab=notes');
    const entry = admin
      .getByRole('list', { name: 'Notes, newest first' })
      .getByRole('article')
      .filter({ hasText: 'Frost on the leeks' });
    await entry.getByText('2 likes, 1 boost on the fediverse').waitFor({ timeout: 2000 });
  }, 30_000);
  expect(await axeProblems(admin)).toEqual([]);
  await screenshot(admin, 'notes-reactions-desktop');
  await admin.setViewportSize(PHONE);
  expect(await pastTheScreen(admin, PHONE.width)).toEqual([]);
  await screenshot(admin, 'notes-reactions-phone');
}, 120_000);

test("moving the followers to another account of the owner's: refused unless it lists the blog, then Move and the profile points there", async () => {
  const blog = await blogActor();
  // bob follows the blog (again, if the test before ran); "home" lists the blog among its aliases, alice does not.
  await deliver(bob, { id: `${bob.actorId}#follow-1`, type: 'Follow', actor: bob.actorId, object: blog });
  await eventually(async () => {
    const list = await adminGet<{ total: number }>(rig(), '/api/admin/fediverse/followers');
    expect(list.total).toBe(1);
  });
  const home = await peer.account('home');
  const document = home.actor();
  peer.serve('/users/home', {
    body: {
      ...document,
      '@context': [
        [document['@context']].flat(),
        { alsoKnownAs: { '@id': 'as:alsoKnownAs', '@type': '@id' } },
      ].flat(),
      alsoKnownAs: [blog],
    },
  });
  const admin = await open();
  await openAsAdmin(rig(), admin, '/admin?tab=fediverse');
  const place = admin.getByRole('region', { name: 'Move the followers' });
  const target = place.getByRole('textbox', { name: 'Account to move to' });
  await target.waitFor();
  let asked = '';
  admin.on('dialog', (dialog) => {
    asked = dialog.message();
    void dialog.accept();
  });

  // Not an address: named under the field, nothing asked or sent.
  await target.fill('home');
  await place.getByRole('button', { name: 'Move followers' }).click();
  await place.getByText("Give the account's address").waitFor();
  expect(await target.getAttribute('aria-invalid')).toBe('true');
  expect(asked).toBe('');

  // An account that does not list the blog: the server's refusal, no Move sent.
  await target.fill(alice.actorId);
  await place.getByRole('button', { name: 'Move followers' }).click();
  await place.getByText(/alsoKnownAs/).waitFor();
  expect(asked).toMatch(/^Move 1 follower to /);
  expect(received.some((a) => a.type === 'Move')).toBe(false);
  expect(await axeProblems(admin)).toEqual([]);
  await screenshot(admin, 'fediverse-move-refused-desktop');

  await target.fill(home.actorId);
  await place.getByRole('button', { name: 'Move followers' }).click();
  await admin.getByText(`The followers are being moved to ${home.actorId}.`).waitFor();
  await place
    .getByRole('status')
    .getByText(/The followers were moved to/)
    .waitFor();
  await eventually(async () => {
    expect(received.find((a) => a.type === 'Move')).toMatchObject({
      actor: blog,
      object: blog,
      target: home.actorId,
    });
  });
  const site = await adminGet<{ fediverse: { movedTo: string } }>(rig(), '/api/site');
  expect(site.fediverse.movedTo).toBe(home.actorId);
  expect(await axeProblems(admin)).toEqual([]);
  await screenshot(admin, 'fediverse-move-desktop');
  await admin.setViewportSize(PHONE);
  expect(await pastTheScreen(admin, PHONE.width)).toEqual([]);
  await screenshot(admin, 'fediverse-move-phone');
}, 120_000);
