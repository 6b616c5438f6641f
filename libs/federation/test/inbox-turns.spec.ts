/**
 * Inbox POSTs take turns (inboxTurns): a few are verified and handled at once, the others wait in
 * line, and one that gets no turn hears 503 with Retry-After. A signer's key is fetched before
 * the turn, so a server slow to show its key holds no one else up. Loopback servers stand in for
 * the senders; this rig has no queue, so a POST's turn lasts until its listeners have run.
 */
import '../src/temporal.js';
import { TakingTurns } from '@blog/server-kit';
import { startBlog, type BlogInstance } from './support/rig.js';
import { startPeer, type Peer, type PeerAccount } from './support/peer.js';

const AS = 'https://www.w3.org/ns/activitystreams';

describe('inbox POSTs take turns', () => {
  let peer: Peer;
  let alice: PeerAccount;
  let slow: PeerAccount;

  beforeAll(async () => {
    peer = await startPeer();
    alice = await peer.account('alice');
    slow = await peer.account('slow');
    // This server never shows slow's key (its fetch gives up after DOCUMENT_FETCH_MS), and never
    // a note it is asked for (the listener's fetch gives up after INBOX_FETCH_MS).
    peer.serve('/users/slow', () => new Promise(() => undefined));
    peer.serve('/notes/never', () => new Promise(() => undefined));
  });
  afterAll(() => peer?.close());

  let n = 0;
  /** A signed POST of `activity` (by `account`) to the blog's shared inbox: its status and when it ended. */
  const post = async (blog: BlogInstance, account: PeerAccount, activity: Record<string, unknown>) => {
    const request = await peer.signedPost(
      `${blog.origin}/ap/inbox`,
      { '@context': AS, id: `${peer.origin}/activities/${++n}`, actor: account.actorId, ...activity },
      account.rsa.privateKey,
      account.keyId,
    );
    const response = await fetch(request);
    await response.arrayBuffer();
    return {
      status: response.status,
      retryAfter: response.headers.get('retry-after'),
      at: performance.now(),
    };
  };
  const like = (blog: BlogInstance) => ({ type: 'Like', object: `${blog.origin}/ap/actor/blog` });
  const until = async (check: () => boolean) => {
    while (!check()) await new Promise((resolve) => setTimeout(resolve, 10));
  };

  it("fetches a signer's key before its turn: a key that never comes holds no one else up", async () => {
    const blog = await startBlog({ inboxTurns: new TakingTurns(1, 4, 60_000) });
    try {
      const waiting = post(blog, slow, like(blog));
      await until(() => peer.asked.includes('GET /users/slow'));
      const quick = await post(blog, alice, like(blog));
      expect(quick.status).toBe(202);
      const refused = await waiting;
      expect(refused.status).toBe(401); // no key, no entry
      expect(refused.at).toBeGreaterThan(quick.at);
    } finally {
      await blog.close();
    }
  });

  it('one more waits its turn; past its wait, or with the line full, a POST hears 503 Retry-After', async () => {
    // A wait (1.5 s) that ends before the held turn does (INBOX_FETCH_MS, 2 s), with room on a busy machine.
    const blog = await startBlog({ inboxTurns: new TakingTurns(1, 1, 1500) });
    try {
      await post(blog, alice, like(blog)); // alice's key is known from here on
      // Holds the one turn while its listener waits for a note that never comes.
      const holding = post(blog, alice, { type: 'Create', object: `${peer.origin}/notes/never` });
      await until(() => peer.asked.includes('GET /notes/never'));
      const started = performance.now();
      const [inLine, lineFull] = await Promise.all([
        post(blog, alice, like(blog)),
        new Promise((resolve) => setTimeout(resolve, 50)).then(() => post(blog, alice, like(blog))),
      ]);
      for (const busy of [inLine, lineFull]) {
        expect(busy.status).toBe(503);
        expect(busy.retryAfter).toBe('5');
      }
      expect(inLine.at - started).toBeGreaterThanOrEqual(1490); // it waited its longest
      expect(lineFull.at).toBeLessThan(inLine.at); // told at once
      const held = await holding;
      expect(held.at).toBeGreaterThan(inLine.at);
      // The turn is free again.
      expect((await post(blog, alice, like(blog))).status).toBe(202);
    } finally {
      await blog.close();
    }
  });
});
