import { FedifyStores1765000000000 } from '@blog/federation';
import { Patterns, type FollowersPage } from '@blog/contracts';
import { dataSourceOptions, openMigrated } from '@blog/server-kit';
import { createTestDatabase, type TestDatabase } from '@blog/server-kit/testing';
import { FollowersService } from '../src/followers/followers.service.js';
import { CreateSocial1765100000000 } from '../src/migrations/1765100000000-CreateSocial.js';
import { CreateDeliveryFailures1765200000000 } from '../src/migrations/1765200000000-CreateDeliveryFailures.js';
import { RemoteActorHttpLinks1765330000000 } from '../src/migrations/1765330000000-RemoteActorHttpLinks.js';
import { ReactionsService } from '../src/reactions/reactions.service.js';
import { startSocialStack, type SocialReplica, type SocialStack } from './support/social-stack.js';

const actor = (user: string) => ({
  actorUri: `https://links.example/users/${user}`,
  handle: `${user}@links.example`,
  name: user,
  url: `https://links.example/@${user}`,
  inbox: `https://links.example/users/${user}/inbox`,
  sharedInbox: 'https://links.example/inbox',
  iconUrl: `https://links.example/avatars/${user}.png`,
  followActivityId: `https://links.example/follows/${user}`,
  requireApproval: false,
});

/**
 * The social service stores a remote actor's links only when they are http(s), whatever its
 * caller checked (the services are called directly here, past the contract's own check).
 */
describe('remote links in the social service (real PostgreSQL)', () => {
  let stack: SocialStack;
  let social: SocialReplica;
  let followers: FollowersService;
  let reactions: ReactionsService;

  beforeAll(async () => {
    stack = await startSocialStack();
    social = await stack.start();
    followers = social.app.get(FollowersService);
    reactions = social.app.get(ReactionsService);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('keeps a follower whose page, avatar or shared inbox is not http(s), without those links', async () => {
    const result = await followers.follow({
      ...actor('mallory'),
      url: 'data:text/html,<script>alert(1)</script>',
      iconUrl: 'javascript:alert(1)',
      sharedInbox: 'vbscript:msgbox(1)',
    });
    expect(result).toMatchObject({ status: 'accepted', created: true });
    const { rows } = await stack.sql.query(
      `SELECT url, icon_url, shared_inbox, inbox FROM social.remote_actors WHERE uri = $1`,
      [actor('mallory').actorUri],
    );
    expect(rows).toEqual([{ url: null, icon_url: null, shared_inbox: null, inbox: actor('mallory').inbox }]);
    const page = await social.send<FollowersPage>(Patterns.social.followersPage, {});
    expect(page.items.find((item) => item.actorUri === actor('mallory').actorUri)).toMatchObject({
      url: null,
      iconUrl: null,
      sharedInbox: null,
    });

    await followers.follow(actor('alice'));
    const { rows: kept } = await stack.sql.query(
      `SELECT url, icon_url, shared_inbox FROM social.remote_actors WHERE uri = $1`,
      [actor('alice').actorUri],
    );
    expect(kept).toEqual([
      { url: actor('alice').url, icon_url: actor('alice').iconUrl, shared_inbox: actor('alice').sharedInbox },
    ]);
  });

  it('refuses a follower, a reaction or a followed account whose ids or inbox are not http(s)', async () => {
    const count = async () =>
      (
        await stack.sql.query(`SELECT (SELECT count(*) FROM social.remote_actors)::int AS actors,
         (SELECT count(*) FROM social.reactions)::int AS reactions,
         (SELECT count(*) FROM social.following)::int AS following`)
      ).rows[0] as unknown;
    const before = await count();
    const refused = (field: string) => ({
      error: { status: 400, error: `${field}: must be an http(s) URL`, field },
    });
    await expect(followers.follow({ ...actor('x'), actorUri: 'javascript:alert(1)' })).rejects.toMatchObject(
      refused('actorUri'),
    );
    await expect(followers.follow({ ...actor('x'), inbox: 'data:,x' })).rejects.toMatchObject(
      refused('inbox'),
    );
    await expect(
      followers.follow({ ...actor('x'), followActivityId: ' https://links.example/f' }),
    ).rejects.toMatchObject(refused('followActivityId'));
    await expect(
      reactions.add({ kind: 'like', postId: 1, activityId: 'data:,x', actorUri: actor('x').actorUri }),
    ).rejects.toMatchObject(refused('activityId'));
    await expect(
      reactions.add({
        kind: 'like',
        postId: 1,
        activityId: 'https://links.example/likes/1',
        actorUri: 'file:///x',
      }),
    ).rejects.toMatchObject(refused('actorUri'));
    await expect(
      followers.addFollowing({
        targetUri: 'JaVaScRiPt:alert(1)',
        followActivityId: 'https://blog.example/f/1',
      }),
    ).rejects.toMatchObject(refused('targetUri'));
    expect(await count()).toEqual(before);
  });
});

/** The migration clears the links stored before the rule, and keeps the followers. */
describe('RemoteActorHttpLinks migration', () => {
  let db: TestDatabase;
  const before = [FedifyStores1765000000000, CreateSocial1765100000000, CreateDeliveryFailures1765200000000];
  const open = (migrations: unknown[]) =>
    openMigrated(
      dataSourceOptions({ url: db.url, schema: 'social', entities: [], migrations: migrations as never }),
      'social',
    );

  beforeAll(async () => {
    db = await createTestDatabase('social_links_migration');
  });
  afterAll(() => db?.drop());

  it("sets a remote actor's non-http(s) page, avatar and shared inbox to NULL", async () => {
    const old = await open(before);
    const rows: [string | null, string | null, string | null][] = [
      ['data:text/html,<script>alert(1)</script>', 'javascript:alert(1)', 'vbscript:msgbox(1)'],
      ['https://links.example/@ok', 'https://links.example/ok.png', 'https://links.example/inbox'],
      ['\u0001https://links.example/@x', '//evil.example/a.png', null],
    ];
    for (const [i, [url, icon, shared]] of rows.entries()) {
      const [{ id }] = (await old.query(
        `INSERT INTO remote_actors (uri, host, url, inbox, shared_inbox, icon_url)
         VALUES ($1, 'links.example', $2, $3, $4, $5) RETURNING id`,
        [`https://links.example/users/${i}`, url, `https://links.example/users/${i}/inbox`, shared, icon],
      )) as { id: number }[];
      await old.query(
        `INSERT INTO followers (remote_actor_id, follow_activity_id, status) VALUES ($1, $2, 'accepted')`,
        [id, `https://links.example/follows/${i}`],
      );
    }
    await old.destroy();

    const after = await open([...before, RemoteActorHttpLinks1765330000000]);
    try {
      expect(await after.query(`SELECT url, icon_url, shared_inbox FROM remote_actors ORDER BY id`)).toEqual([
        { url: null, icon_url: null, shared_inbox: null },
        {
          url: 'https://links.example/@ok',
          icon_url: 'https://links.example/ok.png',
          shared_inbox: 'https://links.example/inbox',
        },
        { url: null, icon_url: null, shared_inbox: null },
      ]);
      expect(await after.query(`SELECT count(*)::int AS n FROM followers`)).toEqual([{ n: 3 }]);
    } finally {
      await after.destroy();
    }
  });
});
