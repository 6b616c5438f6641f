import '../src/temporal.js';
import { MoveRefusedError } from '../src/index.js';
import { startPeer, type Peer, type PeerAccount } from './support/peer.js';
import {
  article,
  startBlog,
  startMastodon,
  waitUntil,
  type BlogInstance,
  type MastodonFixture,
} from './support/rig.js';

const AS = 'https://www.w3.org/ns/activitystreams';
const ALIASES_CONTEXT = { alsoKnownAs: { '@id': 'as:alsoKnownAs', '@type': '@id' } };
const FEP_044F = {
  QuoteRequest: 'https://w3id.org/fep/044f#QuoteRequest',
  quote: { '@id': 'https://w3id.org/fep/044f#quote', '@type': '@id' },
};

/** What other servers ask beyond follows and replies: quotes, moves, the post's form, search consent. */
describe('interoperability with a Mastodon-shaped server', () => {
  let a: BlogInstance;
  let alice: MastodonFixture;
  let peer: Peer;
  let blogActor: string;
  let inbox: string;

  beforeAll(async () => {
    a = await startBlog();
    alice = await startMastodon();
    peer = await startPeer();
    blogActor = `${a.origin}/ap/actor/blog`;
    inbox = `${a.origin}/ap/inbox`;
    a.ports.posts.set(7, article(a.origin, 7, 'Tomatoes & beans'));
  });
  afterAll(async () => {
    await a?.close();
    await alice?.close();
    await peer?.close();
  });
  afterEach(() => {
    a.ports.followerRows.clear();
    a.ports.site_ = { ...a.ports.site_, quotePolicy: undefined, postFormat: undefined };
  });

  const post = async (activity: object) => (await fetch(await alice.signedPost(inbox, activity))).status;
  const getJson = async (url: string) => {
    const response = await fetch(url, { headers: { accept: 'application/activity+json' } });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const follow = async () => {
    const id = `${alice.origin}/follows/${Math.random().toString(36).slice(2)}`;
    expect(await post({ '@context': AS, id, type: 'Follow', actor: alice.actorId, object: blogActor })).toBe(
      202,
    );
    await waitUntil(() => a.ports.followerRows.get(alice.actorId)?.status === 'accepted');
  };
  /** An account on the peer server whose actor lists `aliases` in alsoKnownAs. */
  const accountWithAliases = async (name: string, aliases: string[]): Promise<PeerAccount> => {
    const account = await peer.account(name);
    const actor = account.actor();
    const context = [actor['@context']].flat();
    peer.serve(`/users/${name}`, {
      body: { ...actor, '@context': [...context, ALIASES_CONTEXT], alsoKnownAs: aliases },
    });
    return account;
  };

  describe('the actor', () => {
    it('is indexable and discoverable by default, with no other accounts and no move', async () => {
      const { body } = await getJson(blogActor);
      expect(body).toMatchObject({ indexable: true, discoverable: true });
      expect(body.alsoKnownAs).toBeUndefined();
      expect(body.movedTo).toBeUndefined();
    });

    it('shows the search consent, the other accounts and the move the site says', async () => {
      a.ports.site_ = {
        ...a.ports.site_,
        indexable: false,
        discoverable: false,
        alsoKnownAs: [alice.actorId],
        movedTo: `${peer.origin}/users/newhome`,
      };
      try {
        const { body } = await getJson(blogActor);
        expect(body).toMatchObject({
          indexable: false,
          discoverable: false,
          movedTo: `${peer.origin}/users/newhome`,
        });
        expect([body.alsoKnownAs].flat()).toEqual([alice.actorId]);
      } finally {
        a.ports.site_ = {
          ...a.ports.site_,
          indexable: undefined,
          discoverable: undefined,
          alsoKnownAs: undefined,
          movedTo: undefined,
        };
      }
    });
  });

  describe('the following collection', () => {
    it('lists the accounts the blog follows, or only their count when the owner hides them', async () => {
      a.ports.followingRows = [alice.actorId, `${peer.origin}/users/zed`];
      try {
        const shown = (await getJson(`${blogActor}/following`)).body;
        expect(shown.totalItems).toBe(2);
        expect([shown.orderedItems ?? shown.items].flat()).toEqual([
          alice.actorId,
          `${peer.origin}/users/zed`,
        ]);
        a.ports.site_ = { ...a.ports.site_, showFollowing: false };
        const hidden = (await getJson(`${blogActor}/following`)).body;
        expect(hidden.totalItems).toBe(2);
        expect([hidden.orderedItems ?? hidden.items ?? []].flat()).toEqual([]);
        expect(JSON.stringify(hidden)).not.toContain(alice.actorId);
      } finally {
        a.ports.followingRows = [];
        a.ports.site_ = { ...a.ports.site_, showFollowing: undefined };
      }
    });
  });

  describe('how a post looks on Mastodon', () => {
    it('is an Article by default, and a Note with the title, the whole text and the link when the site says', async () => {
      await follow();
      const seen = alice.deliveries.length;
      await a.blog.publish('create', article(a.origin, 7, 'Tomatoes & beans'));
      a.ports.site_ = { ...a.ports.site_, postFormat: 'note' };
      await a.blog.publish('update', { ...article(a.origin, 7, 'Tomatoes & beans'), updated: new Date() });
      await waitUntil(() => alice.deliveries.length === seen + 2);
      const [create, update] = alice.deliveries.slice(seen).map((d) => d.body);
      expect(create).toMatchObject({ type: 'Create', object: { type: 'Article', id: `${a.origin}/post/7` } });
      const note = update!.object as Record<string, unknown>;
      expect(note).toMatchObject({
        type: 'Note',
        id: `${a.origin}/post/7`,
        url: `${a.origin}/garden/post-7`,
      });
      expect(note.name).toBeUndefined();
      const content = String(note.content);
      expect(content.startsWith('<p><strong>Tomatoes &#38; beans</strong></p><p>Body of')).toBe(true);
      expect(content).toContain(`<a href="${a.origin}/garden/post-7">${a.origin}/garden/post-7</a>`);
      // The same id answers a client as the Note too, so replies and likes keep finding it.
      const served = await getJson(`${a.origin}/post/7`);
      expect(served.body).toMatchObject({ type: 'Note', id: `${a.origin}/post/7` });
    });
  });

  describe('quotes (FEP-044f)', () => {
    let n = 0;
    const quoteRequest = () => {
      n++;
      const quote = `${alice.actorId}/statuses/q${n}`;
      return {
        id: `${alice.actorId}/quote_requests/${n}`,
        quote,
        activity: {
          '@context': [AS, FEP_044F],
          id: `${alice.actorId}/quote_requests/${n}`,
          type: 'QuoteRequest',
          actor: alice.actorId,
          object: `${a.origin}/post/7`,
          instrument: {
            id: quote,
            type: 'Note',
            attributedTo: alice.actorId,
            content: '<p>Look at this</p>',
            quote: `${a.origin}/post/7`,
            to: [`${AS}#Public`],
          },
        },
      };
    };
    /** The blog's answer to a request, delivered and signed to alice's inbox. */
    const answerTo = async (requestId: string) => {
      await waitUntil(() =>
        alice.deliveries.some((d) => {
          const object = d.body.object as string | { id?: string } | undefined;
          return (typeof object === 'string' ? object : object?.id) === requestId;
        }),
      );
      const answer = alice.deliveries.find((d) => {
        const object = d.body.object as string | { id?: string } | undefined;
        return (typeof object === 'string' ? object : object?.id) === requestId;
      })!;
      expect(answer.verified).toBe(true);
      return answer.body as { type: string; actor: string; result?: string };
    };

    it('posts say who may quote them: anyone by default, followers, or nobody', async () => {
      const canQuote = async () =>
        ((await getJson(`${a.origin}/post/7`)).body.interactionPolicy as { canQuote: unknown }).canQuote;
      // Fedify writes the public collection in its compact form (the same IRI once expanded).
      expect(await canQuote()).toEqual({ automaticApproval: 'as:Public' });
      a.ports.site_ = { ...a.ports.site_, quotePolicy: 'followers' };
      expect(await canQuote()).toEqual({ automaticApproval: [`${blogActor}/followers`, blogActor] });
      a.ports.site_ = { ...a.ports.site_, quotePolicy: 'nobody' };
      expect(await canQuote()).toEqual({ automaticApproval: blogActor });
    });

    it('anyone: Accept with a stamp served at a stable URL of ours, and the quote is counted', async () => {
      const { id, quote, activity } = quoteRequest();
      expect(await post(activity)).toBe(202);
      const accept = await answerTo(id);
      expect(accept).toMatchObject({ type: 'Accept', actor: blogActor });
      expect(accept.result).toMatch(new RegExp(`^${a.origin}/ap/quotes/[A-Za-z0-9_-]{22}$`));
      const stamp = await getJson(accept.result!);
      expect(stamp.status).toBe(200);
      expect(stamp.body).toMatchObject({
        type: 'QuoteAuthorization',
        id: accept.result,
        attributedTo: blogActor,
        interactingObject: quote,
        interactionTarget: `${a.origin}/post/7`,
      });
      expect([...a.ports.quoteStamps.values()]).toContainEqual(
        expect.objectContaining({ activityId: id, actorUri: alice.actorId, quoteUri: quote }),
      );
      // The owner is told, as of a like or a boost.
      expect(a.ports.notifications.filter((n) => n.kind === 'quote')).toContainEqual(
        expect.objectContaining({
          activityId: id,
          actor: expect.objectContaining({ actorUri: alice.actorId }),
        }),
      );
      // A stamp that was never given is none of the federation's: it falls through to the blog's own 404.
      const unknown = `/ap/quotes/${'A'.repeat(22)}`;
      await fetch(`${a.origin}${unknown}`, { headers: { accept: 'application/activity+json' } });
      expect(a.passedThrough).toContain(`GET ${unknown}`);
    });

    it('followers: Reject for a stranger, Accept once they follow', async () => {
      a.ports.site_ = { ...a.ports.site_, quotePolicy: 'followers' };
      const stranger = quoteRequest();
      const stamps = a.ports.quoteStamps.size;
      expect(await post(stranger.activity)).toBe(202);
      expect(await answerTo(stranger.id)).toMatchObject({ type: 'Reject', actor: blogActor });
      expect(a.ports.quoteStamps.size).toBe(stamps);
      // A refused quote is nothing to tell.
      expect(a.ports.notifications.some((n) => n.activityId === stranger.id)).toBe(false);

      await follow();
      const follower = quoteRequest();
      expect(await post(follower.activity)).toBe(202);
      expect(await answerTo(follower.id)).toMatchObject({ type: 'Accept', actor: blogActor });
      expect(a.ports.quoteStamps.size).toBe(stamps + 1);
    });

    it('nobody: Reject, even for a follower; a request for what is not ours gets no answer', async () => {
      a.ports.site_ = { ...a.ports.site_, quotePolicy: 'nobody' };
      await follow();
      const stamps = a.ports.quoteStamps.size;
      const refused = quoteRequest();
      expect(await post(refused.activity)).toBe(202);
      expect(await answerTo(refused.id)).toMatchObject({ type: 'Reject' });
      expect(a.ports.quoteStamps.size).toBe(stamps);

      a.ports.site_ = { ...a.ports.site_, quotePolicy: 'anyone' };
      const missing = quoteRequest();
      const before = alice.deliveries.length;
      expect(await post({ ...missing.activity, object: `${a.origin}/post/999` })).toBe(202);
      const other = quoteRequest();
      expect(await post({ ...other.activity, object: 'https://elsewhere.example/notes/1' })).toBe(202);
      // A later request is answered: the two before it were handled (and left unanswered) by then.
      const later = quoteRequest();
      expect(await post(later.activity)).toBe(202);
      await answerTo(later.id);
      expect(alice.deliveries.slice(before).map((d) => d.body.object)).not.toContainEqual(missing.id);
      expect(alice.deliveries.slice(before).map((d) => d.body.object)).not.toContainEqual(other.id);
      expect(alice.deliveries.length).toBe(before + 1);
    });
  });

  describe('moving (FEP-7628)', () => {
    const move = (target: string, n: number) => ({
      '@context': AS,
      id: `${alice.actorId}#moves/${n}`,
      type: 'Move',
      actor: alice.actorId,
      object: alice.actorId,
      target,
    });

    it("a follower's Move to an account that lists the old one moves the follower there", async () => {
      await follow();
      const target = await accountWithAliases('alice_new', [alice.actorId]);
      expect(await post(move(target.actorId, 1))).toBe(202);
      await waitUntil(() => a.ports.followerRows.has(target.actorId));
      expect(a.ports.followerRows.has(alice.actorId)).toBe(false);
      expect(a.ports.followerRows.get(target.actorId)).toMatchObject({
        actorUri: target.actorId,
        inbox: `${target.actorId}/inbox`,
        status: 'accepted',
      });
      // The blog delivers to the new account: it is among the followers' inboxes now.
      const page = await a.ports.followers.page('0', 100);
      expect(page.items.map((f) => f.actorUri)).toEqual([target.actorId]);
    });

    it('a Move whose target does not list the old account is ignored', async () => {
      await follow();
      const impostor = await accountWithAliases('not_alice', [`${peer.origin}/users/someone_else`]);
      const writes = a.ports.writes;
      expect(await post(move(impostor.actorId, 2))).toBe(202);
      // A later activity from alice is handled: the Move before it was done with by then.
      await post({
        '@context': AS,
        id: `${alice.actorId}#likes/after-move`,
        type: 'Like',
        actor: alice.actorId,
        object: `${a.origin}/post/7`,
      });
      await waitUntil(() =>
        a.ports.reactions.some((r) => r.activityId === `${alice.actorId}#likes/after-move`),
      );
      expect(a.ports.followerRows.has(alice.actorId)).toBe(true);
      expect(a.ports.followerRows.has(impostor.actorId)).toBe(false);
      expect(a.ports.writes).toBe(writes + 1); // the Like only
    });

    it("the owner's move: refused unless the target lists the blog; then Move reaches the followers", async () => {
      await follow();
      const stranger = await accountWithAliases('stranger', []);
      await expect(a.blog.moveFollowersTo(stranger.actorId)).rejects.toThrow(MoveRefusedError);
      await expect(a.blog.moveFollowersTo(`${peer.origin}/users/nobody-here`)).rejects.toThrow(
        MoveRefusedError,
      );

      const home = await accountWithAliases('newhome', [blogActor]);
      const seen = alice.deliveries.length;
      expect(await a.blog.moveFollowersTo(home.actorId)).toBe(home.actorId);
      await waitUntil(() => alice.deliveries.length > seen);
      const moved = alice.deliveries.slice(seen).find((d) => d.body.type === 'Move')!;
      expect(moved).toMatchObject({
        verified: true,
        body: { type: 'Move', actor: blogActor, object: blogActor, target: home.actorId },
      });

      // The caller stores movedTo; the actor then shows it.
      a.ports.site_ = { ...a.ports.site_, movedTo: home.actorId };
      try {
        expect((await getJson(blogActor)).body.movedTo).toBe(home.actorId);
      } finally {
        a.ports.site_ = { ...a.ports.site_, movedTo: undefined };
      }
    });

    it("moving in: with the old account in alsoKnownAs, its followers' Follows are accepted", async () => {
      a.ports.site_ = { ...a.ports.site_, alsoKnownAs: [`${peer.origin}/users/old_me`] };
      try {
        const seen = alice.deliveries.length;
        await follow();
        await waitUntil(() => alice.deliveries.slice(seen).some((d) => d.body.type === 'Accept'));
      } finally {
        a.ports.site_ = { ...a.ports.site_, alsoKnownAs: undefined };
      }
    });
  });
});
