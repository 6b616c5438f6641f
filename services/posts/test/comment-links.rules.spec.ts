import { Patterns, RpcContracts, type RpcRequest } from '@blog/contracts';
import { dataSourceOptions, IdempotencyLedger, openMigrated, parseOrThrow } from '@blog/server-kit';
import { createTestDatabase, type TestDatabase } from '@blog/server-kit/testing';
import type { DataSource } from 'typeorm';
import { MIGRATIONS as POSTS_MIGRATIONS } from '../src/migrations/index.js';
import { CommentsRepository } from '../src/comments/comments.repository.js';
import { CommentNotifier, CommentsService } from '../src/comments/comments.service.js';
import { CommentPendingChanges1765310000000 } from '../src/migrations/1765310000000-CommentPendingChanges.js';
import type { SiteSettings } from '../src/site/site-settings.js';
import { garageSite } from './support/garage-site.js';

const ALICE = { uri: 'https://social.example/users/alice', name: 'Alice', handle: '@alice@social.example' };
const HOSTILE_URLS = [
  'data:text/html,<script>alert(document.cookie)</script>',
  'vbscript:msgbox(1)',
  'JaVaScRiPt:alert(1)',
  'file:///etc/passwd',
];

class SilentNotifier extends CommentNotifier {
  commentPending(): Promise<unknown> {
    return Promise.resolve({ sent: true });
  }
}

/** Only http(s) links of remote comments are stored, against a real PostgreSQL. */
describe('links of remote comments', () => {
  let db: TestDatabase;
  let source: DataSource;
  let store: CommentsRepository;
  let service: CommentsService;
  let postId: number;

  const remoteCreate = (input: RpcRequest<typeof Patterns.posts.commentCreateRemote>) =>
    service.createFromRemote(parseOrThrow(RpcContracts[Patterns.posts.commentCreateRemote].request, input));

  beforeAll(async () => {
    db = await createTestDatabase('comment_links');
    source = await openMigrated(
      dataSourceOptions({ url: db.url, schema: 'posts', entities: [], migrations: POSTS_MIGRATIONS }),
      'posts',
    );
    store = new CommentsRepository(source);
    const site = garageSite();
    service = new CommentsService(
      store,
      { current: () => site } as SiteSettings,
      new IdempotencyLedger(source),
      new SilentNotifier(),
      source,
    );
    const [row] = (await source.query(
      `INSERT INTO posts.posts (title, content, slug, category, submenu1, status, created_at, updated_at)
       VALUES ('open', 'x', 'open', 'Garage', 'Automobiles', 'published', '2024-01-01', '2024-01-01') RETURNING id`,
    )) as { id: number }[];
    postId = row!.id;
  });
  afterAll(async () => {
    await service?.notice;
    await source?.destroy();
    await db?.drop();
  });

  it('stores no author link but http(s): the public comments answer null, an https one as sent', async () => {
    const ids: number[] = [];
    for (const [i, url] of [...HOSTILE_URLS, 'https://social.example/@alice'].entries()) {
      const made = await remoteCreate({
        postId,
        remoteObjectId: `https://social.example/notes/link-${i}`,
        actor: { ...ALICE, url },
        html: `<p>Reply ${i}</p>`,
      });
      await service.moderate(made.comment!.id, 'approved');
      ids.push(made.comment!.id);
    }
    const { comments } = await service.forPost(postId);
    expect(comments.map((c) => [c.id, c.author.url])).toEqual([
      ...HOSTILE_URLS.map((_url, i) => [ids[i], null]),
      [ids.at(-1), 'https://social.example/@alice'],
    ]);
    const stored = (await source.query(
      `SELECT author_url FROM posts.comments WHERE id = ANY($1::int[]) AND author_url IS NOT NULL`,
      [ids],
    )) as unknown[];
    expect(stored).toEqual([{ author_url: 'https://social.example/@alice' }]);
  });

  it('refuses a reply whose Note id, author id or inReplyTo is not an http(s) URL', async () => {
    const before = await store.counts();
    const cases: [RpcRequest<typeof Patterns.posts.commentCreateRemote>, string][] = [
      [{ postId, remoteObjectId: 'javascript:alert(1)', actor: ALICE, html: '<p>x</p>' }, 'remoteObjectId'],
      [{ postId, remoteObjectId: 'data:text/html,x', actor: ALICE, html: '<p>x</p>' }, 'remoteObjectId'],
      [
        {
          postId,
          remoteObjectId: 'https://social.example/notes/ok',
          actor: { ...ALICE, uri: 'vbscript:x' },
          html: '<p>x</p>',
        },
        'actor.uri',
      ],
      [
        {
          inReplyTo: 'javascript:alert(1)',
          remoteObjectId: 'https://social.example/notes/ok2',
          actor: ALICE,
          html: '<p>x</p>',
        },
        'inReplyTo',
      ],
    ];
    for (const [input, field] of cases)
      await expect(remoteCreate(input)).rejects.toMatchObject({
        error: { status: 400, error: `${field}: must be an http(s) URL`, field },
      });
    expect(await store.counts()).toEqual(before);
  });

  it('keeps an imported comment, without the links that are not http(s)', async () => {
    const added = await service.importFor(postId, [
      {
        sourceId: 'wp:1',
        parentSourceId: null,
        status: 'approved',
        html: '<p>Imported</p>',
        authorName: 'Old reader',
        authorHandle: null,
        authorUrl: 'data:text/html,<script>alert(1)</script>',
        local: false,
        remoteObjectId: 'javascript:alert(1)',
        remoteActorUri: 'vbscript:x',
        via: 'WordPress',
        createdAt: null,
        updatedAt: null,
      },
    ]);
    expect(added).toBe(1);
    const [row] = (await source.query(
      `SELECT author_url, remote_object_id, remote_actor_uri FROM posts.comments WHERE source_id = 'wp:1'`,
    )) as unknown[];
    expect(row).toEqual({ author_url: null, remote_object_id: null, remote_actor_uri: null });
  });
});

/** The migration clears the links stored before the rule, and keeps their comments. */
describe('CommentHttpLinks migration', () => {
  let db: TestDatabase;
  const open = (migrations: typeof POSTS_MIGRATIONS) =>
    openMigrated(dataSourceOptions({ url: db.url, schema: 'posts', entities: [], migrations }), 'posts');

  beforeAll(async () => {
    db = await createTestDatabase('comment_links_migration');
  });
  afterAll(() => db?.drop());

  it('sets every non-http(s) author URL, Note id and actor id to NULL', async () => {
    const before = await open(
      POSTS_MIGRATIONS.slice(0, POSTS_MIGRATIONS.indexOf(CommentPendingChanges1765310000000) + 1),
    );
    const [{ id: postId }] = (await before.query(
      `INSERT INTO posts.posts (title, content, slug, category, submenu1, created_at, updated_at)
       VALUES ('p', 'x', 'p', 'Garage', 'Automobiles', now(), now()) RETURNING id`,
    )) as { id: number }[];
    const rows: [string | null, string | null, string | null][] = [
      ['data:text/html,<script>alert(1)</script>', 'https://social.example/notes/1', ALICE.uri],
      ['vbscript:msgbox(1)', 'javascript:alert(1)', 'data:,x'],
      [' https://social.example/@alice', 'https://social.example/notes/3', '//evil.example/users/x'],
      ['https://social.example/@alice', 'https://social.example/notes/4', ALICE.uri],
      [null, null, null],
    ];
    for (const [i, [url, objectId, actorUri]] of rows.entries())
      await before.query(
        `INSERT INTO posts.comments (post_id, status, content_html, author_name, author_url, local,
           remote_object_id, remote_actor_uri)
         VALUES ($1, 'approved', $2, 'a', $3, false, $4, $5)`,
        [postId, `<p>${i}</p>`, url, objectId, actorUri],
      );
    await before.destroy();

    const after = await open(POSTS_MIGRATIONS);
    try {
      expect(
        await after.query(
          `SELECT content_html, author_url, remote_object_id, remote_actor_uri FROM posts.comments ORDER BY id`,
        ),
      ).toEqual([
        {
          content_html: '<p>0</p>',
          author_url: null,
          remote_object_id: 'https://social.example/notes/1',
          remote_actor_uri: ALICE.uri,
        },
        { content_html: '<p>1</p>', author_url: null, remote_object_id: null, remote_actor_uri: null },
        {
          content_html: '<p>2</p>',
          author_url: null,
          remote_object_id: 'https://social.example/notes/3',
          remote_actor_uri: null,
        },
        {
          content_html: '<p>3</p>',
          author_url: 'https://social.example/@alice',
          remote_object_id: 'https://social.example/notes/4',
          remote_actor_uri: ALICE.uri,
        },
        { content_html: '<p>4</p>', author_url: null, remote_object_id: null, remote_actor_uri: null },
      ]);
    } finally {
      await after.destroy();
    }
  });
});
