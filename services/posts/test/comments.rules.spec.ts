import {
  COMMENT_MAIL_EVERY_MINUTES,
  COMMENT_REMOTE_HTML_MAX,
  COMMENTS_PER_READER_HOUR,
  Patterns,
  RpcContracts,
  type RpcRequest,
} from '@blog/contracts';
import { dataSourceOptions, IdempotencyLedger, openMigrated, parseOrThrow } from '@blog/server-kit';
import { createTestDatabase, type TestDatabase } from '@blog/server-kit/testing';
import type { DataSource } from 'typeorm';
import { MIGRATIONS as POSTS_MIGRATIONS } from '../src/migrations/index.js';
import { plainTextToHtml, sanitiseRemoteHtml } from '../src/comments/comment-html.js';
import { CommentsRepository } from '../src/comments/comments.repository.js';
import { CommentNotifier, CommentsService } from '../src/comments/comments.service.js';
import type { SiteSettings } from '../src/site/site-settings.js';
import { unsafeParts } from './comments.html-check.js';
import { garageSite } from './support/garage-site.js';
import { MARKDOWN_VECTORS, OWASP_VECTORS } from './xss-corpus.js';

type Notice = RpcRequest<typeof Patterns.mail.commentPending>;

/** The owner's notices as the mail service would get them (the sending itself is the HTTP spec's). */
class RecordingNotifier extends CommentNotifier {
  readonly notices: Notice[] = [];
  commentPending(notice: Notice): Promise<unknown> {
    this.notices.push(notice);
    return Promise.resolve({ sent: true });
  }
}

const ALICE = { uri: 'https://social.example/users/alice', name: 'Alice', handle: '@alice@social.example' };
const MALLORY = {
  uri: 'https://evil.example/users/mallory',
  name: 'Mallory',
  handle: '@mallory@evil.example',
};
const remoteCreate = (input: RpcRequest<typeof Patterns.posts.commentCreateRemote>) =>
  parseOrThrow(RpcContracts[Patterns.posts.commentCreateRemote].request, input);

/** The RpcError body a call throws. */
function refusal(call: () => unknown): unknown {
  try {
    call();
  } catch (error) {
    return (error as { error: unknown }).error;
  }
  throw new Error('not refused');
}

/** The comment rules against a real PostgreSQL (the repository's SQL is the rule's other half). */
describe('CommentsService rules', () => {
  let db: TestDatabase;
  let source: DataSource;
  let store: CommentsRepository;
  let notifier: RecordingNotifier;
  let service: CommentsService;
  let now = Date.parse('2026-11-20T10:00:00Z');
  const posts: Record<'open' | 'other' | 'draft' | 'scheduled', number> = {} as never;

  const insertPost = async (slug: string, status: string, createdAt: string) => {
    const [{ id }] = (await source.query(
      `INSERT INTO posts.posts (title, content, slug, category, submenu1, status, created_at, updated_at)
       VALUES ($1, 'x', $1, 'Garage', 'Automobiles', $2, $3, $3) RETURNING id`,
      [slug, status, createdAt],
    )) as { id: number }[];
    return id;
  };
  const reader = (postId: number, userId: string, content: string, parentId?: number) =>
    service.create({ postId, userId, userName: 'reader', ip: '192.0.2.1', content, parentId });

  beforeAll(async () => {
    db = await createTestDatabase('comments_rules');
    source = await openMigrated(
      dataSourceOptions({ url: db.url, schema: 'posts', entities: [], migrations: POSTS_MIGRATIONS }),
      'posts',
    );
    store = new CommentsRepository(source);
    notifier = new RecordingNotifier();
    const site = garageSite();
    service = new CommentsService(
      store,
      { current: () => site } as SiteSettings,
      new IdempotencyLedger(source),
      notifier,
      source,
      () => now,
    );
    posts.open = await insertPost('open', 'published', '2024-01-01T00:00:00Z');
    posts.other = await insertPost('other', 'published', '2024-01-02T00:00:00Z');
    posts.draft = await insertPost('draft', 'draft', '2024-01-03T00:00:00Z');
    posts.scheduled = await insertPost('scheduled', 'published', '2099-01-01T00:00:00Z');
  });
  afterAll(async () => {
    await source?.destroy();
    await db?.drop();
  });

  it('stores a remote reply pending, sanitised, once per Note id', async () => {
    const made = await service.createFromRemote(
      remoteCreate({
        postId: posts.open,
        remoteObjectId: 'https://social.example/notes/1',
        actor: { ...ALICE, url: 'https://social.example/@alice', avatarKey: 'avatars/alice.png' },
        html: '<p>Hi <script>alert(1)</script><a href="javascript:alert(1)" onclick="x()">there</a> <img src=x onerror=alert(1)></p>',
        published: '2026-11-19T08:00:00Z',
      }),
    );
    expect(made.comment).toMatchObject({
      postId: posts.open,
      parentId: null,
      status: 'pending',
      content: '<p>Hi <a rel="nofollow ugc noopener">there</a> </p>',
      author: {
        name: 'Alice',
        handle: '@alice@social.example',
        url: 'https://social.example/@alice',
        actorUri: ALICE.uri,
        avatarUrl: '/uploads/avatars/alice.png',
        local: false,
      },
      via: 'Mastodon',
      createdAt: '2026-11-19T08:00:00.000Z',
    });
    const again = await service.createFromRemote(
      remoteCreate({
        postId: posts.open,
        remoteObjectId: 'https://social.example/notes/1',
        actor: ALICE,
        html: '<p>Changed?</p>',
      }),
    );
    expect(again.comment!.id).toBe(made.comment!.id);
    expect(again.comment!.content).toBe(made.comment!.content);
  });

  it('threads a remote reply by inReplyTo: the post page URL, a comment, a reply to a reply', async () => {
    const onPost = await service.createFromRemote(
      remoteCreate({
        inReplyTo: 'https://blog.example/garage/automobiles/other',
        remoteObjectId: 'https://social.example/notes/2',
        actor: ALICE,
        html: '<p>On the post</p>',
      }),
    );
    expect(onPost.comment).toMatchObject({ postId: posts.other, parentId: null });
    const byId = await service.createFromRemote(
      remoteCreate({
        inReplyTo: `https://blog.example/post/${posts.other}`,
        remoteObjectId: 'https://social.example/notes/2b',
        actor: ALICE,
        html: '<p>By id</p>',
      }),
    );
    expect(byId.comment).toMatchObject({ postId: posts.other, parentId: null });
    const reply = await service.createFromRemote(
      remoteCreate({
        inReplyTo: 'https://social.example/notes/2',
        remoteObjectId: 'https://social.example/notes/3',
        actor: ALICE,
        html: '<p>A reply</p>',
      }),
    );
    expect(reply.comment).toMatchObject({ postId: posts.other, parentId: onPost.comment!.id });
    const deeper = await service.createFromRemote(
      remoteCreate({
        inReplyTo: 'https://social.example/notes/3',
        remoteObjectId: 'https://social.example/notes/4',
        actor: ALICE,
        html: '<p>Deeper</p>',
      }),
    );
    expect(deeper.comment!.parentId).toBe(onPost.comment!.id);
  });

  it('refuses a reply to a draft, a scheduled or an unknown post, and one over the size cap', async () => {
    const before = await store.counts();
    const targets = [
      { postId: posts.draft },
      { postId: posts.scheduled },
      { inReplyTo: 'https://blog.example/garage/automobiles/draft' },
      { inReplyTo: 'https://blog.example/some/other/path/open' },
      { inReplyTo: 'https://social.example/notes/unknown' },
    ];
    for (const [i, target] of targets.entries())
      await expect(
        service.createFromRemote(
          remoteCreate({
            ...target,
            remoteObjectId: `https://social.example/notes/refused-${i}`,
            actor: ALICE,
            html: '<p>x</p>',
          }),
        ),
      ).rejects.toMatchObject({ error: { status: 404, error: 'Post not found' } });
    expect(
      refusal(() =>
        remoteCreate({
          postId: posts.open,
          remoteObjectId: 'https://social.example/notes/huge',
          actor: ALICE,
          html: 'x'.repeat(COMMENT_REMOTE_HTML_MAX + 1),
        }),
      ),
    ).toEqual({
      status: 400,
      error: `html: A reply is at most ${COMMENT_REMOTE_HTML_MAX} characters`,
      field: 'html',
    });
    await expect(
      service.createFromRemote(
        remoteCreate({
          postId: posts.open,
          remoteObjectId: 'https://social.example/notes/empty',
          actor: ALICE,
          html: '<script>only this</script>',
        }),
      ),
    ).rejects.toMatchObject({ error: { status: 400 } });
    expect(await store.counts()).toEqual(before);
  });

  it("honours an Update or Delete from the comment's author only", async () => {
    const target = 'https://social.example/notes/2';
    const wrongUpdate = await service.updateFromRemote(target, MALLORY.uri, '<p>Hijacked</p>');
    expect(wrongUpdate.comment).toBeNull();
    expect((await store.findRemote(target))!.contentHtml).toBe('<p>On the post</p>');

    const update = await service.updateFromRemote(
      target,
      ALICE.uri,
      '<p>Edited <em>here</em><iframe src="https://x"></iframe></p>',
    );
    expect(update.comment!.content).toBe('<p>Edited <em>here</em></p>');

    expect(await service.deleteFromRemote(target, MALLORY.uri)).toEqual({ deleted: false });
    expect(await store.findRemote(target)).not.toBeNull();
    expect(await service.deleteFromRemote(target, ALICE.uri)).toEqual({ deleted: true });
    expect(await store.findRemote(target)).toBeNull();
    // Its replies went with it.
    expect(await store.findRemote('https://social.example/notes/3')).toBeNull();
  });

  it("purges an actor's comments, or a whole server's with its sub-domains", async () => {
    for (const [i, actor] of [
      MALLORY,
      MALLORY,
      { ...MALLORY, uri: 'https://evil.example/users/eve' },
      { ...MALLORY, uri: 'https://eu.Evil.example:8443/users/eve' },
      { ...MALLORY, uri: 'https://notevil.example/users/neighbour' },
    ].entries())
      await service.createFromRemote(
        remoteCreate({
          postId: posts.open,
          remoteObjectId: `https://evil.example/notes/${i}`,
          actor,
          html: '<p>spam</p>',
        }),
      );
    expect(await service.purge({ actorUri: MALLORY.uri })).toEqual({ deleted: 2 });
    expect(await service.purge({ domain: 'evil.example' })).toEqual({ deleted: 2 });
    expect(await store.findRemote('https://evil.example/notes/4')).not.toBeNull();
    expect(await store.findRemote('https://social.example/notes/1')).not.toBeNull();
    expect(refusal(() => parseOrThrow(RpcContracts[Patterns.posts.commentPurge].request, {}))).toMatchObject({
      status: 400,
    });
  });

  it('approves at once only a known author, and only when auto-approval is on', async () => {
    const known = (await store.findRemote('https://social.example/notes/1'))!;
    await service.moderate(known.id, 'approved');
    const make = (n: number, actor = ALICE) =>
      service.createFromRemote(
        remoteCreate({
          postId: posts.other,
          remoteObjectId: `https://social.example/auto/${n}`,
          actor,
          html: '<p>x</p>',
        }),
      );
    expect((await make(1)).comment!.status).toBe('pending');
    await service.updateSettings({ autoApproveKnown: true });
    expect((await make(2)).comment!.status).toBe('approved');
    expect((await make(3, { ...ALICE, uri: 'https://social.example/users/stranger' })).comment!.status).toBe(
      'pending',
    );
    await service.updateSettings({ autoApproveKnown: false });
    await service.updatePostSettings(posts.other, { autoApproveKnown: true });
    expect((await make(4)).comment!.status).toBe('approved');
    await service.updatePostSettings(posts.other, { autoApproveKnown: false });
    expect((await make(5)).comment!.status).toBe('pending');
  });

  it(`mails the owner at most once per ${COMMENT_MAIL_EVERY_MINUTES} minutes, never for an approved comment`, async () => {
    await service.notice; // the earlier tests' notices are done
    await source.query(`UPDATE posts.comment_settings SET last_owner_mail_at = NULL`);
    notifier.notices.length = 0;
    const user = '00000000-0000-4000-8000-000000000001';
    await reader(posts.open, user, 'First');
    await service.notice;
    expect(notifier.notices).toHaveLength(1);
    expect(notifier.notices[0]).toMatchObject({
      postTitle: 'open',
      postUrl: '/garage/automobiles/open',
      authorName: 'reader',
      excerpt: 'First',
    });
    now += (COMMENT_MAIL_EVERY_MINUTES - 1) * 60_000;
    await reader(posts.open, user, 'Second');
    await service.notice;
    expect(notifier.notices).toHaveLength(1);
    now += 2 * 60_000;
    await reader(posts.open, user, 'Third');
    await service.notice;
    expect(notifier.notices).toHaveLength(2);
    expect(notifier.notices[1]!.pending).toBeGreaterThanOrEqual(3);

    // Auto-approved: nothing to approve, no mail (even with the slot free).
    now += 2 * COMMENT_MAIL_EVERY_MINUTES * 60_000;
    const first = await reader(posts.open, '00000000-0000-4000-8000-000000000002', 'Known soon');
    await service.notice;
    await service.moderate(first.answer.id, 'approved');
    now += 2 * COMMENT_MAIL_EVERY_MINUTES * 60_000;
    await service.updateSettings({ autoApproveKnown: true });
    notifier.notices.length = 0;
    const approved = await reader(posts.open, '00000000-0000-4000-8000-000000000002', 'Straight in');
    await service.notice;
    expect(approved.answer.status).toBe('approved');
    expect(notifier.notices).toHaveLength(0);
    await service.updateSettings({ autoApproveKnown: false });
  });

  it('limits a reader per hour, then lets them in again; a reader answers only an approved comment', async () => {
    const user = '00000000-0000-4000-8000-0000000000aa';
    const made = [];
    for (let i = 0; i < COMMENTS_PER_READER_HOUR; i++) made.push(await reader(posts.other, user, `n${i}`));
    await expect(reader(posts.other, user, 'one more')).rejects.toMatchObject({
      error: { status: 429, error: 'Too many comments; try again later' },
    });
    now += 61 * 60_000;
    const later = await reader(posts.other, user, 'an hour later');
    expect(later.answer.status).toBe('pending');
    await expect(reader(posts.other, user, 'to a pending one', later.answer.id)).rejects.toMatchObject({
      error: { status: 400, error: 'The comment answered is not under this post' },
    });
    await service.moderate(made[0]!.answer.id, 'approved');
    expect((await reader(posts.other, user, 'to an approved one', made[0]!.answer.id)).answer.parentId).toBe(
      made[0]!.answer.id,
    );
    await service.notice;
  });

  it("escapes a reader's text whole: no vector of the corpus makes a tag or attribute", () => {
    for (const vector of [...OWASP_VECTORS, ...MARKDOWN_VECTORS]) {
      const html = plainTextToHtml(vector);
      expect(unsafeParts(html)).toEqual([]);
      expect(html).not.toMatch(/<(?!\/?p>|br \/>)/);
    }
    expect(plainTextToHtml('a\r\nb\n\n\nc & d')).toBe('<p>a<br />b</p><p>c &amp; d</p>');
    expect(plainTextToHtml(' \n \n ')).toBe('');
  });

  it('keeps only the allow-list of remote HTML, links http(s) with rel="nofollow ugc noopener"', () => {
    const extra = [
      '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">d</a>',
      '<a href="&#106;avascript:alert(1)">e</a>',
      '<a href="  JAVASCRIPT:alert(1)">f</a>',
      '<a href="//evil.example/">g</a>',
      '<a href="https://ok.example/" rel="opener" target="_blank" style="x">h</a>',
      '<svg><a xlink:href="javascript:alert(1)"><text>i</text></a></svg>',
      '<p style="background:url(javascript:alert(1))" class="x" id="y">j</p>',
      '<img src="data:image/svg+xml,<svg onload=alert(1)>">',
      '<object data="data:text/html,<script>alert(1)</script>"></object>',
      '<span onmouseover="alert(1)">k</span>',
    ];
    for (const vector of [...OWASP_VECTORS, ...MARKDOWN_VECTORS, ...extra])
      expect(unsafeParts(sanitiseRemoteHtml(vector))).toEqual([]);
    expect(sanitiseRemoteHtml(extra[4]!)).toBe(
      '<a href="https://ok.example/" rel="nofollow ugc noopener">h</a>',
    );
    expect(
      sanitiseRemoteHtml(
        '<p>A <strong>b</strong> <em>c</em> <code>d</code></p><pre>e</pre><blockquote>f</blockquote><ul><li>g</li></ul><ol><li>h</li></ol><span>i</span><br>',
      ),
    ).toBe(
      '<p>A <strong>b</strong> <em>c</em> <code>d</code></p><pre>e</pre><blockquote>f</blockquote><ul><li>g</li></ul><ol><li>h</li></ol><span>i</span><br />',
    );
  });
});
