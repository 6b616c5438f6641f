import { webcrypto } from 'node:crypto';
import {
  Patterns,
  SocialErrors,
  type ActorKeyPairs,
  type BlockListResult,
  type BlockResult,
  type FollowerListResult,
  type FollowersPage,
  type FollowResult,
} from '@blog/contracts';
import { startSocialStack, type SocialReplica, type SocialStack } from './support/social-stack.js';

const actor = (user: string, host = 'mastodon.example') => ({
  actorUri: `https://${host}/users/${user}`,
  handle: `@${user}@${host}`,
  name: `${user[0]!.toUpperCase()}${user.slice(1)}`,
  url: `https://${host}/@${user}`,
  inbox: `https://${host}/users/${user}/inbox`,
  sharedInbox: `https://${host}/inbox`,
});
const follow = (user: string, host?: string, requireApproval = false) => ({
  ...actor(user, host),
  followActivityId: `https://${host ?? 'mastodon.example'}/${user}/follows/${Math.random().toString(36).slice(2)}`,
  requireApproval,
});

describe('social service (real PostgreSQL)', () => {
  let stack: SocialStack;
  let social: SocialReplica;

  const count = async (table: string, where = 'true') =>
    Number((await stack.sql.query(`SELECT count(*) AS n FROM social.${table} WHERE ${where}`)).rows[0].n);

  beforeAll(async () => {
    stack = await startSocialStack();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  describe('actor keys', () => {
    it('makes one RSA and one Ed25519 pair under concurrent first calls from two replicas', async () => {
      const [a, b] = await Promise.all([stack.start(), stack.start()]);
      const answers = await Promise.all(
        [a, b, a, b, a, b].map((replica) => replica.send<ActorKeyPairs>(Patterns.social.keys)),
      );
      expect(await count('actor_keys')).toBe(2);
      for (const answer of answers) expect(answer).toEqual(answers[0]);
      expect(Object.keys(answers[0]!).sort()).toEqual(['ed25519', 'rsa']);
      await Promise.all([a.close(), b.close()]);
    });

    it('keeps the same pairs across a restart, and they sign and verify', async () => {
      const first = await stack.start();
      const before = await first.send<ActorKeyPairs>(Patterns.social.keys);
      await first.close();
      social = await stack.start();
      const after = await social.send<ActorKeyPairs>(Patterns.social.keys);
      expect(after).toEqual(before);
      const { rsa, ed25519: ed } = after;
      expect(rsa.publicJwk).toMatchObject({ kty: 'RSA', e: 'AQAB' });
      expect(rsa.publicJwk).not.toHaveProperty('d');
      const algorithm = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
      const privateKey = await webcrypto.subtle.importKey('jwk', rsa.privateJwk, algorithm, false, ['sign']);
      const publicKey = await webcrypto.subtle.importKey('jwk', rsa.publicJwk, algorithm, false, ['verify']);
      const data = new TextEncoder().encode('signed string');
      const signature = await webcrypto.subtle.sign(algorithm, privateKey, data);
      expect(await webcrypto.subtle.verify(algorithm, publicKey, signature, data)).toBe(true);
      expect(ed.publicJwk).toMatchObject({ kty: 'OKP', crv: 'Ed25519' });
    });

    it('never writes a private key to the logs, even at debug level', async () => {
      const written: string[] = [];
      const streams = [process.stdout, process.stderr];
      const originals = streams.map((stream) => stream.write);
      for (const stream of streams) {
        const write = stream.write.bind(stream);
        stream.write = ((chunk: unknown, ...rest: never[]) => {
          written.push(String(chunk));
          return write(chunk as string, ...rest);
        }) as typeof stream.write;
      }
      try {
        const verbose = await stack.start({ LOG_LEVEL: 'debug' });
        const pairs = await verbose.send<ActorKeyPairs>(Patterns.social.keys);
        await verbose.close();
        const logs = written.join('');
        expect(logs).toContain('service listening');
        for (const pair of Object.values(pairs)) expect(logs).not.toContain(String(pair.privateJwk.d));
      } finally {
        streams.forEach((stream, i) => (stream.write = originals[i]!));
      }
    });
  });

  describe('followers', () => {
    it('accepts a Follow, takes a repeated one as the same follower, and lists it with counts', async () => {
      const first = await social.send<FollowResult>(Patterns.social.follow, follow('alice'));
      expect(first).toMatchObject({ status: 'accepted', created: true });
      const again = await social.send<FollowResult>(Patterns.social.follow, follow('alice'));
      expect(again).toEqual({ id: first.id, status: 'accepted', created: false });
      const list = await social.send<FollowerListResult>(Patterns.social.listFollowers, {});
      expect(list.items).toEqual([
        {
          id: first.id,
          handle: '@alice@mastodon.example',
          server: 'mastodon.example',
          name: 'Alice',
          url: 'https://mastodon.example/@alice',
          since: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
          status: 'accepted',
        },
      ]);
      expect(list).toMatchObject({ total: 1, page: 1, pageSize: 30 });
      expect(list.counts).toEqual({ accepted: 1, pending: 0, likes: 0, announces: 0 });
    });

    it('keeps a Follow pending when followers need approval, until the owner approves it', async () => {
      const bob = await social.send<FollowResult>(
        Patterns.social.follow,
        follow('bob', 'social.example', true),
      );
      expect(bob).toMatchObject({ status: 'pending', created: true });
      const pending = await social.send<FollowerListResult>(Patterns.social.listFollowers, {
        status: 'pending',
      });
      expect(pending.items.map((item) => item.handle)).toEqual(['@bob@social.example']);
      expect(pending.counts).toMatchObject({ accepted: 1, pending: 1 });
      // Pending followers get no posts.
      const recipients = await social.send<FollowersPage>(Patterns.social.followersPage, {});
      expect(recipients.items.map((item) => item.actorUri)).toEqual(['https://mastodon.example/users/alice']);

      const approved = await social.send(Patterns.social.approveFollower, { id: bob.id });
      expect(approved).toMatchObject({
        id: bob.id,
        status: 'accepted',
        actorUri: 'https://social.example/users/bob',
        followActivityId: expect.stringContaining('https://social.example/bob/follows/'),
      });
      expect(await social.failure(Patterns.social.approveFollower, { id: bob.id })).toMatchObject({
        status: 409,
        error: SocialErrors.notPending,
      });
      expect(await social.failure(Patterns.social.approveFollower, { id: 999999 })).toMatchObject({
        status: 404,
        error: SocialErrors.followerNotFound,
      });
    });

    it('pages the followers collection by cursor: each accepted follower once, oldest first, pending ones not', async () => {
      await social.send(Patterns.social.follow, follow('erin', 'pages.example', true)); // stays pending
      await social.send(Patterns.social.follow, follow('fay', 'pages.example'));
      const page = (cursor?: string) =>
        social.send<FollowersPage>(Patterns.social.followersPage, { limit: 1, ...(cursor && { cursor }) });

      const first = await page();
      expect(first.items).toEqual([
        {
          actorUri: 'https://mastodon.example/users/alice',
          handle: '@alice@mastodon.example',
          name: 'Alice',
          url: 'https://mastodon.example/@alice',
          inbox: 'https://mastodon.example/users/alice/inbox',
          sharedInbox: 'https://mastodon.example/inbox',
          iconUrl: null,
        },
      ]);
      const walked = [...first.items];
      const cursors = [first.nextCursor];
      for (let cursor = first.nextCursor; cursor !== null;) {
        const next = await page(cursor);
        walked.push(...next.items);
        cursor = next.nextCursor;
        cursors.push(cursor);
      }
      expect(walked.map((item) => item.actorUri)).toEqual([
        'https://mastodon.example/users/alice',
        'https://social.example/users/bob',
        'https://pages.example/users/fay',
      ]);
      // The last page (a full one) says so: no empty page after it.
      expect(cursors).toHaveLength(3);
      expect(cursors.at(-1)).toBeNull();
      // The cursor is the last follower id of its page.
      const ids = await stack.sql.query(
        `SELECT f.id FROM social.followers f WHERE f.status = 'accepted' ORDER BY f.id`,
      );
      expect(cursors.slice(0, 2)).toEqual(ids.rows.slice(0, 2).map((row) => String(row.id)));
      expect(await social.send<FollowersPage>(Patterns.social.followersPage, { limit: 3 })).toMatchObject({
        nextCursor: null,
      });
      expect(await page('2147483647')).toEqual({ items: [], nextCursor: null });
    });

    it('refuses a followers cursor that is not one', async () => {
      for (const cursor of ['abc', '-1', '1.5', '01', '', '99999999999', '2147483648'])
        expect(await social.failure(Patterns.social.followersPage, { cursor })).toMatchObject({
          status: 400,
          field: 'cursor',
          error: SocialErrors.followersCursor,
        });
    });

    it('removes a follower on Undo{Follow} (only with the Follow it undoes) and on the owner’s remove', async () => {
      const carol = follow('carol');
      const { id } = await social.send<FollowResult>(Patterns.social.follow, carol);
      expect(
        await social.send(Patterns.social.unfollow, {
          actorUri: carol.actorUri,
          followActivityId: 'https://mastodon.example/carol/follows/other',
        }),
      ).toEqual({ removed: false });
      expect(await social.send(Patterns.social.unfollow, { actorUri: carol.actorUri })).toEqual({
        removed: true,
      });
      expect(await count('followers', `id = ${id}`)).toBe(0);

      const { id: dave } = await social.send<FollowResult>(Patterns.social.follow, follow('dave'));
      expect(await social.send(Patterns.social.removeFollower, { id: dave })).toEqual({ removed: true });
      expect(await social.failure(Patterns.social.removeFollower, { id: dave })).toMatchObject({
        status: 404,
        error: SocialErrors.followerNotFound,
      });
    });

    it('keeps the accounts the blog follows: listed once their Accept arrives, gone on removal', async () => {
      const target = 'https://friends.example/users/zoe';
      const followId = 'https://blog.example/follows/1';
      const add = { targetUri: target, followActivityId: followId };
      expect(await social.send(Patterns.social.addFollowing, add)).toEqual({ created: true });
      expect(await social.send(Patterns.social.addFollowing, add)).toEqual({ created: false });
      expect(await social.send(Patterns.social.followingPage, {})).toEqual({ items: [], total: 0 });
      expect(
        await social.send(Patterns.social.acceptFollowing, {
          followActivityId: 'https://blog.example/follows/2',
        }),
      ).toEqual({ accepted: false });
      expect(await social.send(Patterns.social.acceptFollowing, { followActivityId: followId })).toEqual({
        accepted: true,
      });
      expect(await social.send(Patterns.social.followingPage, {})).toEqual({ items: [target], total: 1 });
      expect(await social.send(Patterns.social.removeFollowing, { targetUri: target })).toEqual({
        removed: true,
      });
      expect(await social.send(Patterns.social.followingPage, {})).toEqual({ items: [], total: 0 });
    });

    it.each([
      ['an actor that is not a URL', { ...follow('eve'), actorUri: 'eve' }],
      ['an inbox that is not http(s)', { ...follow('eve'), inbox: 'ftp://x/inbox' }],
      ['no Follow id', actor('eve')],
    ])('refuses a Follow with %s and stores nothing', async (_case, body) => {
      const before = [await count('followers'), await count('remote_actors')];
      expect(await social.failure(Patterns.social.follow, body)).toMatchObject({ status: 400 });
      expect([await count('followers'), await count('remote_actors')]).toEqual(before);
    });

    it('refuses a bad page size with the field named', async () => {
      expect(await social.failure(Patterns.social.listFollowers, { pageSize: 1000 })).toMatchObject({
        status: 400,
        field: 'pageSize',
        error: 'pageSize must be at most 100',
      });
    });
  });

  describe('blocks', () => {
    it('an account block removes that follower, says so, and blocked() answers for that account only', async () => {
      await social.send(Patterns.social.follow, follow('mallory', 'bad.example'));
      await social.send(Patterns.social.follow, follow('trent', 'bad.example'));
      const result = await social.send<BlockResult>(Patterns.social.addBlock, {
        actor: 'https://bad.example/users/mallory',
      });
      expect(result).toMatchObject({
        block: { actor: 'https://bad.example/users/mallory', domain: null },
        removedFollowers: 1,
      });
      expect(
        await social.send(Patterns.social.blocked, { actorUri: 'https://bad.example/users/mallory' }),
      ).toBe(true);
      expect(
        await social.send(Patterns.social.blocked, { actorUri: 'https://bad.example/users/trent' }),
      ).toBe(false);
      // Later activities of the blocked account are refused and change nothing.
      const before = await count('followers');
      expect(await social.failure(Patterns.social.follow, follow('mallory', 'bad.example'))).toMatchObject({
        status: 403,
        error: SocialErrors.blocked,
      });
      expect(await count('followers')).toBe(before);
    });

    it('a server block removes every follower of it and its sub-domains, not of look-alike servers', async () => {
      await social.send(Patterns.social.follow, follow('sub', 'eu.spam.example'));
      await social.send(Patterns.social.follow, follow('main', 'spam.example'));
      await social.send(Patterns.social.follow, follow('fine', 'notspam.example'));
      const result = await social.send<BlockResult>(Patterns.social.addBlock, { domain: ' Spam.Example. ' });
      expect(result).toMatchObject({ block: { actor: null, domain: 'spam.example' }, removedFollowers: 2 });
      const check = (uri: string) => social.send<boolean>(Patterns.social.blocked, { actorUri: uri });
      expect(await check('https://spam.example/users/x')).toBe(true);
      expect(await check('https://eu.spam.example/users/x')).toBe(true);
      expect(await check('https://notspam.example/users/fine')).toBe(false);
      expect(
        await count(
          'followers f JOIN social.remote_actors a ON a.id = f.remote_actor_id',
          `a.host = 'notspam.example'`,
        ),
      ).toBe(1);
    });

    it('lists blocks, refuses one twice, and removes one', async () => {
      const list = await social.send<BlockListResult>(Patterns.social.listBlocks, {});
      expect(list.total).toBe(2);
      expect(list.items.map((block) => block.domain ?? block.actor)).toEqual([
        'spam.example',
        'https://bad.example/users/mallory',
      ]);
      expect(await social.failure(Patterns.social.addBlock, { domain: 'spam.example' })).toMatchObject({
        status: 409,
        error: SocialErrors.alreadyBlocked,
      });
      const [domainBlock] = list.items;
      expect(await social.send(Patterns.social.removeBlock, { id: domainBlock!.id })).toEqual({
        removed: true,
      });
      expect(await social.failure(Patterns.social.removeBlock, { id: domainBlock!.id })).toMatchObject({
        status: 404,
        error: SocialErrors.blockNotFound,
      });
      expect(await social.send(Patterns.social.blocked, { actorUri: 'https://spam.example/users/x' })).toBe(
        false,
      );
    });

    it.each([
      [
        'both actor and domain',
        { actor: 'https://x.example/users/a', domain: 'x.example' },
        SocialErrors.blockTarget,
      ],
      ['neither', {}, SocialErrors.blockTarget],
      ['a domain with a space', { domain: 'bad domain' }, SocialErrors.blockDomain],
      ['an actor that is not http(s)', { actor: 'acct:a@x.example' }, SocialErrors.blockActor],
      ['an unknown field', { domain: 'x.example', reason: 'spam' }, undefined],
    ])('refuses a block with %s and changes nothing', async (_case, body, error) => {
      const before = [await count('blocks'), await count('followers')];
      const failure = await social.failure(Patterns.social.addBlock, body);
      expect(failure.status).toBe(400);
      if (error) expect(failure.error).toBe(error);
      expect([await count('blocks'), await count('followers')]).toEqual(before);
    });
  });

  describe('reactions', () => {
    const like = {
      activityId: 'https://mastodon.example/users/alice#likes/1',
      postId: 7,
      actorUri: 'https://mastodon.example/users/alice',
      kind: 'like',
    };

    it('counts a Like once however often it is delivered, and an Announce beside it', async () => {
      expect(await social.send(Patterns.social.reaction, like)).toEqual({ recorded: true });
      expect(await social.send(Patterns.social.reaction, like)).toEqual({ recorded: false });
      await social.send(Patterns.social.reaction, {
        ...like,
        activityId: 'https://mastodon.example/users/alice/statuses/9/activity',
        kind: 'announce',
      });
      const { counts } = await social.send<FollowerListResult>(Patterns.social.listFollowers, {});
      expect(counts).toMatchObject({ likes: 1, announces: 1 });
    });

    it('counts likes and announces per post', async () => {
      await social.send(Patterns.social.reaction, {
        ...like,
        activityId: 'https://social.example/users/bob#likes/2',
        actorUri: 'https://social.example/users/bob',
        postId: 8,
      });
      expect(await social.send(Patterns.social.reactionCounts, { postIds: [7, 8, 9] })).toEqual({
        7: { likes: 1, announces: 1, quotes: 0 },
        8: { likes: 1, announces: 0, quotes: 0 },
      });
      expect(await social.failure(Patterns.social.reactionCounts, { postIds: ['x'] })).toMatchObject({
        status: 400,
      });
      await social.send(Patterns.social.undoReaction, {
        activityId: 'https://social.example/users/bob#likes/2',
        actorUri: 'https://social.example/users/bob',
      });
    });

    it('takes back a reaction only for the actor who sent it', async () => {
      const other = { activityId: like.activityId, actorUri: 'https://mastodon.example/users/bob' };
      expect(await social.send(Patterns.social.undoReaction, other)).toEqual({ removed: false });
      expect(await social.send(Patterns.social.undoReaction, { ...other, actorUri: like.actorUri })).toEqual({
        removed: true,
      });
      expect(await count('reactions', `kind = 'like'`)).toBe(0);
    });

    it('refuses a reaction from a blocked account, or of an unknown kind, and stores nothing', async () => {
      const before = await count('reactions');
      expect(
        await social.failure(Patterns.social.reaction, {
          ...like,
          activityId: 'https://bad.example/likes/1',
          actorUri: 'https://bad.example/users/mallory',
        }),
      ).toMatchObject({ status: 403 });
      expect(await social.failure(Patterns.social.reaction, { ...like, kind: 'boost' })).toMatchObject({
        status: 400,
        field: 'kind',
        error: 'kind must be like or announce',
      });
      expect(await social.failure(Patterns.social.reaction, { ...like, postId: 'x' })).toMatchObject({
        status: 400,
        field: 'postId',
      });
      expect(await count('reactions')).toBe(before);
    });
  });
});
