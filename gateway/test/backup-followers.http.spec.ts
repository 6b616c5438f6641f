/**
 * A restore keeps the blog's place in the fediverse: a follower (an account on a loopback
 * Mastodon-shaped server) follows the blog, the blog is backed up and restored into a fresh
 * database and media folder, and the restored blog's next post reaches that follower signed
 * with the same key as before, which the follower verifies against the blog's actor document.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { verifyRequest } from '@fedify/fedify';
import type express from 'express';
import { LocalFolderStorage } from '@blog/server-kit';
import { openBackupStore, restoreBackup, takeBackup } from '@blog/server-kit/backup';
import { createTestDatabase, type TestDatabase } from '@blog/server-kit/testing';
import { startPeer, type Peer, type PeerAccount } from '../../libs/federation/test/support/peer.js';
import { deliverSigned, eventually, raw, SITE_URL, startFediverseStack } from './support/fediverse.js';
import { fields, multipart } from './support/media-fixtures.js';
import { ADMIN, loginAs, type TestStack } from './support/test-stack.js';
import { SERVICE_MIGRATIONS as MIGRATIONS } from '../../infra/test/support/service-migrations.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const BLOG_ACTOR = `${SITE_URL}/ap/actor/blog`;

describe('followers after a restore', () => {
  let peer: Peer;
  let alice: PeerAccount;
  const stacks: TestStack[] = [];
  const databases: TestDatabase[] = [];
  const received: { activity: Json; request: Request }[] = [];

  beforeAll(async () => {
    peer = await startPeer();
    alice = await peer.account('alice');
    // Her own inbox, and her server's shared one (where posts to followers go).
    for (const inbox of ['/users/alice/inbox', '/inbox'])
      peer.serve(inbox, async (req: express.Request) => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(req.headers))
          if (typeof value === 'string') headers.set(name, value);
        received.push({
          activity: JSON.parse(String(req.body)) as Json,
          request: new Request(`${peer.origin}${req.originalUrl}`, {
            method: 'POST',
            headers,
            body: req.body,
          }),
        });
        return { status: 202 };
      });
  });
  afterAll(async () => {
    for (const stack of stacks) await stack.stop().catch(() => {});
    for (const db of databases) await db.drop().catch(() => {});
    await peer?.close();
  });

  /** A published post, written as the dashboard's form sends it: the answer's status. */
  const publish = async (stack: TestStack, token: string, title: string) => {
    const { body, contentType } = multipart(
      fields({ title, content: 'Written for the followers.', category: 'Projects' }),
    );
    const response = await fetch(`${stack.baseUrl}/api/posts`, {
      method: 'POST',
      headers: { 'content-type': contentType, authorization: `Bearer ${token}` },
      body,
    });
    return response.status;
  };
  const actorDocument = async (stack: TestStack) =>
    JSON.parse(
      (await raw(stack, '/ap/actor/blog', { headers: { accept: 'application/activity+json' } })).body,
    ) as Json;

  it("the restored blog's next post reaches the same followers, signed with the same key", async () => {
    const before = await createTestDatabase('followers_before');
    databases.push(before);
    const dataBefore = await mkdtemp(join(tmpdir(), 'blog-followers-'));
    const stack = await startFediverseStack({
      DATABASE_URL: before.url,
      DATA_DIR: dataBefore,
      FEDERATION_POLL_MS: '200',
    });
    stacks.push(stack);
    const follow = {
      '@context': 'https://www.w3.org/ns/activitystreams',
      id: `${peer.origin}/follows/1`,
      type: 'Follow',
      actor: alice.actorId,
      object: BLOG_ACTOR,
    };
    expect((await deliverSigned(stack, peer, alice, follow)).status).toBe(202);
    await eventually('the Accept', async () => received.find((r) => r.activity.type === 'Accept'));
    const keyBefore = (await actorDocument(stack)).publicKey.publicKeyPem as string;
    {
      const token0 = await loginAs(stack, ADMIN.username, ADMIN.password);
      expect(await publish(stack, token0, 'Before the move')).toBe(201);
      await eventually('the first Create to alice', async () =>
        received.find((r) => r.activity.type === 'Create'),
      );
    }

    const target = await openBackupStore(await mkdtemp(join(tmpdir(), 'blog-followers-target-')));
    const backup = await takeBackup(
      { databaseUrl: before.url, media: new LocalFolderStorage(join(dataBefore, 'uploads')) },
      target,
    );
    await stack.stop();
    stacks.pop();

    const after = await createTestDatabase('followers_after');
    databases.push(after);
    const dataAfter = await mkdtemp(join(tmpdir(), 'blog-followers-'));
    await restoreBackup({
      source: { store: target, key: backup.file },
      databaseUrl: after.url,
      media: new LocalFolderStorage(join(dataAfter, 'uploads')),
      migrations: MIGRATIONS,
    });
    const restored = await startFediverseStack({
      DATABASE_URL: after.url,
      DATA_DIR: dataAfter,
      FEDERATION_POLL_MS: '200',
    });
    stacks.push(restored);
    expect((await actorDocument(restored)).publicKey.publicKeyPem).toBe(keyBefore);

    const token = await loginAs(restored, ADMIN.username, ADMIN.password);
    expect(await publish(restored, token, 'After the move')).toBe(201);
    const create = await eventually('the Create to alice', async () =>
      received.find((r) => r.activity.type === 'Create' && r.activity.object?.name === 'After the move'),
    );
    const documentLoader = async (url: string) => {
      const answer = await raw(restored, new URL(url).pathname, {
        headers: { accept: 'application/activity+json' },
      });
      return { contextUrl: null, documentUrl: url, document: JSON.parse(answer.body) as unknown };
    };
    const key = await verifyRequest(create.request.clone(), { documentLoader });
    expect(key?.id?.href).toBe(`${BLOG_ACTOR}#main-key`);
  });
});
