/**
 * A flood from one server does not hold up another's Follow. An attacker with its own valid key
 * sends 30 signed Creates whose object is a URL on its own server that never answers; each holds a
 * worker until the inbox's fetch deadline. An honest Mastodon-shaped server then sends a signed
 * Follow, and gets the blog's signed Accept at once: inbox work and delivery have queues of their
 * own (PgMessageQueue on a real PostgreSQL), and the attacker's server never has more than one
 * worker while other servers' messages wait.
 */
import '../src/temporal.js';
import { createTestDatabase, type TestDatabase } from '@blog/server-kit/testing';
import pg from 'pg';
import { DataSource } from 'typeorm';
import {
  FEDIFY_INBOX_QUEUE,
  FEDIFY_OUTBOX_QUEUE,
  FedifyQueues1765400000000,
  FedifyStores1765000000000,
  PgMessageQueue,
} from '../src/pg-stores.js';
import {
  startBlog,
  startMastodon,
  waitUntil,
  type BlogInstance,
  type MastodonFixture,
} from './support/rig.js';
import { startPeer, type Peer, type PeerAccount } from './support/peer.js';

const AS = 'https://www.w3.org/ns/activitystreams';
const FLOOD = 30;

describe('one server flooding the inbox', () => {
  let db: TestDatabase;
  let pool: pg.Pool;
  let inbox: PgMessageQueue;
  let blog: BlogInstance;
  let attacker: Peer;
  let mallory: PeerAccount;
  let alice: MastodonFixture;
  /** Object fetches the attacker's server holds open right now, and the most at once. */
  let open = 0;
  let mostOpen = 0;

  beforeAll(async () => {
    db = await createTestDatabase('fedify_fairness');
    const source = await new DataSource({ type: 'postgres', url: db.url }).initialize();
    const runner = source.createQueryRunner();
    await new FedifyStores1765000000000().up(runner);
    await new FedifyQueues1765400000000().up(runner);
    await runner.release();
    await source.destroy();
    pool = new pg.Pool({ connectionString: db.url, max: 16 });
    // An idle connection the server ends (its backend signalled, seen once on a busy CI machine)
    // is dropped by the pool, as the services' pools do, instead of ending the test run unheard.
    pool.on('error', (error) => console.warn(`test pool: idle connection lost: ${error.message}`));
    inbox = new PgMessageQueue(pool, { name: FEDIFY_INBOX_QUEUE, workers: 4 });
    const outbox = new PgMessageQueue(pool, { name: FEDIFY_OUTBOX_QUEUE, workers: 4 });
    blog = await startBlog({ queue: { inbox, outbox } });
    attacker = await startPeer();
    mallory = await attacker.account('mallory');
    for (let n = 0; n < FLOOD; n++)
      attacker.serve(`/notes/${n}`, (req) => {
        mostOpen = Math.max(mostOpen, ++open);
        req.res!.on('close', () => open--);
        return new Promise(() => undefined); // never answers
      });
    alice = await startMastodon();
  });

  afterAll(async () => {
    await attacker?.close(); // the hanging fetches fail now, so the workers stop quickly
    await blog?.close();
    await alice?.close();
    await pool?.end();
    await db?.drop();
  });

  it("an honest server's Follow is accepted within 2 s while an attacker's 30 hanging Creates wait", async () => {
    const statuses = await Promise.all(
      Array.from({ length: FLOOD }, async (_, n) => {
        const create = {
          '@context': AS,
          id: `${attacker.origin}/activities/${n}`,
          type: 'Create',
          actor: mallory.actorId,
          to: [`${AS}#Public`],
          object: `${attacker.origin}/notes/${n}`,
        };
        const request = await attacker.signedPost(
          `${blog.origin}/ap/inbox`,
          create,
          mallory.rsa.privateKey,
          mallory.keyId,
        );
        return (await fetch(request)).status;
      }),
    );
    expect(statuses).toEqual(Array(FLOOD).fill(202)); // signed by a valid key: all taken in
    await waitUntil(() => open === 1, 20_000); // the flood holds a worker

    const follow = {
      '@context': AS,
      id: `${alice.origin}/follows/1`,
      type: 'Follow',
      actor: alice.actorId,
      object: blog.blog.actorUri.href,
    };
    const started = performance.now();
    const answer = await fetch(await alice.signedPost(`${blog.blog.actorUri.href}/inbox`, follow));
    expect(answer.status).toBe(202);
    await waitUntil(() => alice.deliveries.some((d) => d.body.type === 'Accept'), 20_000);
    const elapsed = performance.now() - started;
    const backlog = (await inbox.getDepth()).queued;

    const accept = alice.deliveries.find((d) => d.body.type === 'Accept')!;
    expect(accept).toMatchObject({ path: '/users/alice/inbox', verified: true });
    const object = accept.body.object as string | { id: string };
    expect(typeof object === 'string' ? object : object.id).toBe(follow.id);
    // What makes it fair, whatever the machine's load: the attacker's server never had more than
    // one object fetch open (one worker), and its flood was still waiting when the Accept arrived.
    expect(mostOpen).toBe(1);
    expect(backlog).toBeGreaterThanOrEqual(FLOOD - 5);
    // The promise itself, on the wall clock: the Follow is handled at once, not after the flood
    // (30 x the 2 s fetch deadline with one worker). Idle, it takes a few hundred ms.
    expect(elapsed).toBeLessThan(2000);
  }, 60_000);
});
