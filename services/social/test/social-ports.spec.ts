import { FOLLOWERS_FIRST_CURSOR, Patterns, SocialErrors, type FollowerListResult } from '@blog/contracts';
import { socialPorts, type SocialPorts } from '../src/federation/social-ports.js';
import { startSocialStack, type SocialReplica, type SocialStack } from './support/social-stack.js';

const ORIGIN = 'https://blog.example';
const follower = (user: string, host = 'mastodon.example') => ({
  actorUri: `https://${host}/users/${user}`,
  handle: `@${user}@${host}`,
  name: user,
  url: `https://${host}/@${user}`,
  inbox: `https://${host}/users/${user}/inbox`,
  sharedInbox: `https://${host}/inbox`,
  iconUrl: `https://${host}/avatars/${user}.png`,
  followActivityId: `https://${host}/follows/${user}`,
});

describe('the federation ports answered by the social service (real PostgreSQL)', () => {
  let stack: SocialStack;
  let social: SocialReplica;
  let ports: SocialPorts;
  let approveFollowers = false;

  beforeAll(async () => {
    stack = await startSocialStack();
    social = await stack.start();
    ports = socialPorts(social.app, { origin: ORIGIN, approveFollowers: async () => approveFollowers });
  });
  afterAll(() => stack?.stop());

  it('gives the same RSA and Ed25519 key pairs every time', async () => {
    const keys = await ports.actorKeys();
    expect(keys.rsa.publicJwk).toMatchObject({ kty: 'RSA' });
    expect(keys.ed25519.publicJwk).toMatchObject({ kty: 'OKP', crv: 'Ed25519' });
    expect(await ports.actorKeys()).toEqual(keys);
  });

  it('adds followers, pending while the site approves followers, pages and removes them', async () => {
    expect(await ports.followers.add(follower('alice'))).toBe('accepted');
    approveFollowers = true;
    expect(await ports.followers.add(follower('bob'))).toBe('pending');
    approveFollowers = false;
    const { followActivityId: _id, ...alice } = follower('alice');
    expect(await ports.followers.page(FOLLOWERS_FIRST_CURSOR, 10)).toEqual({
      items: [alice],
      nextCursor: null,
    });
    expect(await ports.followers.count()).toBe(1);
    await ports.followers.remove(alice.actorUri);
    expect(await ports.followers.page(FOLLOWERS_FIRST_CURSOR, 10)).toEqual({ items: [], nextCursor: null });
    expect(await ports.followers.count()).toBe(0);
    // A cursor that is not one is refused as the RPC refuses it.
    await expect(ports.followers.page('soon', 10)).rejects.toMatchObject({
      body: { status: 400, field: 'cursor', error: SocialErrors.followersCursor },
    });
  });

  it('counts a Like of one of our posts once, ignores other objects, and takes it back', async () => {
    const like = {
      kind: 'like' as const,
      activityId: 'https://mastodon.example/likes/1',
      actorUri: 'https://mastodon.example/users/alice',
      objectUri: `${ORIGIN}/post/7`,
    };
    await ports.reaction(like);
    await ports.reaction(like);
    await ports.reaction({
      ...like,
      activityId: 'https://mastodon.example/likes/2',
      objectUri: 'https://elsewhere.example/post/7',
    });
    await ports.reaction({
      ...like,
      activityId: 'https://mastodon.example/likes/3',
      objectUri: `${ORIGIN}/post/7x`,
    });
    const counts = async () =>
      (await social.send<FollowerListResult>(Patterns.social.listFollowers, {})).counts;
    expect(await counts()).toMatchObject({ likes: 1, announces: 0 });
    const { rows } = await stack.sql.query(`SELECT post_id FROM social.reactions`);
    expect(rows).toEqual([{ post_id: 7 }]);
    await ports.undoReaction(like.activityId, like.actorUri);
    expect(await counts()).toMatchObject({ likes: 0 });
  });

  it("refuses a malformed follower with the RPC handlers' 400, storing nothing", async () => {
    await expect(ports.followers.add({ ...follower('eve'), inbox: 'not a url' })).rejects.toMatchObject({
      body: { status: 400, field: 'inbox' },
    });
    const { rows } = await stack.sql.query(
      `SELECT count(*)::int AS n FROM social.remote_actors WHERE handle LIKE 'eve@%'`,
    );
    expect(rows[0].n).toBe(0);
  });

  it('answers blocked() and the following list', async () => {
    await social.send(Patterns.social.addBlock, { domain: 'spam.example' });
    expect(await ports.blocked('https://eu.spam.example/users/x')).toBe(true);
    expect(await ports.blocked('https://mastodon.example/users/alice')).toBe(false);
    await social.send(Patterns.social.addFollowing, {
      targetUri: 'https://friends.example/users/zoe',
      followActivityId: `${ORIGIN}/follows/1`,
    });
    await social.send(Patterns.social.acceptFollowing, { followActivityId: `${ORIGIN}/follows/1` });
    expect(await ports.following()).toEqual(['https://friends.example/users/zoe']);
  });
});
