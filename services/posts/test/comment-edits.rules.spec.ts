import { Patterns, RpcContracts, type RpcRequest } from '@blog/contracts';
import type { AdminCommentItem } from '@blog/contracts/comment-edits';
import { dataSourceOptions, IdempotencyLedger, openMigrated, parseOrThrow } from '@blog/server-kit';
import { createTestDatabase, type TestDatabase } from '@blog/server-kit/testing';
import type { DataSource } from 'typeorm';
import { MIGRATIONS as POSTS_MIGRATIONS } from '../src/migrations/index.js';
import { CommentsRepository } from '../src/comments/comments.repository.js';
import { CommentNotifier, CommentsService } from '../src/comments/comments.service.js';
import type { SiteSettings } from '../src/site/site-settings.js';
import { garageSite } from './support/garage-site.js';

type Notice = RpcRequest<typeof Patterns.mail.commentPending>;

class RecordingNotifier extends CommentNotifier {
  readonly notices: Notice[] = [];
  commentPending(notice: Notice): Promise<unknown> {
    this.notices.push(notice);
    return Promise.resolve({ sent: true });
  }
}

const ALICE = { uri: 'https://social.example/users/alice', name: 'Alice', handle: '@alice@social.example' };
const MALLORY = 'https://evil.example/users/mallory';
const PHISHING = '<p>Your account is locked: <a href="https://evil.example/login">sign in here</a></p>';

/**
 * An author's `Update{Note}` of their fediverse reply, against a real PostgreSQL: a change to an
 * approved comment waits for the owner while readers keep the approved text.
 */
describe('edits of remote comments', () => {
  let db: TestDatabase;
  let source: DataSource;
  let store: CommentsRepository;
  let notifier: RecordingNotifier;
  let service: CommentsService;
  let postId: number;
  let note = 0;

  /** An approved reply by `actor` (a new Note each time). */
  const approvedReply = async (html: string, actor = ALICE) => {
    const made = await service.createFromRemote(
      parseOrThrow(RpcContracts[Patterns.posts.commentCreateRemote].request, {
        postId,
        remoteObjectId: `https://social.example/notes/${++note}`,
        actor,
        html,
      }),
    );
    await service.moderate(made.comment!.id, 'approved');
    return { id: made.comment!.id, noteId: `https://social.example/notes/${note}` };
  };
  /** What readers get of comment `id` (the public list), or undefined. */
  const shown = async (id: number) => {
    const { comments } = await service.forPost(postId);
    return [...comments, ...comments.flatMap((thread) => thread.replies)].find((c) => c.id === id);
  };
  const pendingItem = async (id: number): Promise<AdminCommentItem | undefined> =>
    (await service.adminList({ status: 'pending', page: 1, pageSize: 100 })).items.find((c) => c.id === id);

  beforeAll(async () => {
    db = await createTestDatabase('comment_edits');
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
  beforeEach(() => service.updateSettings({ autoApproveKnown: false }));

  it('keeps the approved text public while the change waits as pending, with the proposal', async () => {
    const { id, noteId } = await approvedReply('<p>Nice post!</p>');
    await service.notice;
    await source.query(`UPDATE posts.comment_settings SET last_owner_mail_at = NULL`);
    notifier.notices.length = 0;

    const answer = await service.updateFromRemote(noteId, ALICE.uri, PHISHING);
    expect(answer.comment).toMatchObject({ id, status: 'pending', content: '<p>Nice post!</p>' });
    expect(await shown(id)).toMatchObject({ status: 'approved', content: '<p>Nice post!</p>' });
    expect(await store.find(id)).toMatchObject({
      status: 'pending',
      contentHtml: '<p>Nice post!</p>',
      pendingHtml: expect.stringContaining('sign in here') as unknown,
    });
    // The owner sees both texts to judge the change, and is told it waits.
    expect(await pendingItem(id)).toMatchObject({
      content: '<p>Nice post!</p>',
      proposedContent: expect.stringContaining('https://evil.example/login') as unknown,
    });
    await service.notice;
    expect(notifier.notices).toEqual([expect.objectContaining({ authorName: 'Alice', pending: 1 })]);
    // The archive carries the comment as readers see it.
    const [archived] = (await service.archiveOf([postId])).get(postId)!.filter((c) => c.id === id);
    expect(archived).toMatchObject({ status: 'approved', content: '<p>Nice post!</p>' });
  });

  it('applies the change once the owner approves it; refusing it keeps the approved text', async () => {
    const approve = await approvedReply('<p>First</p>');
    await service.updateFromRemote(approve.noteId, ALICE.uri, '<p>Second</p>');
    expect(await service.moderate(approve.id, 'approved')).toMatchObject({
      status: 'approved',
      content: '<p>Second</p>',
    });
    expect(await shown(approve.id)).toMatchObject({ content: '<p>Second</p>' });
    expect((await store.find(approve.id))!.pendingHtml).toBeNull();

    const refuse = await approvedReply('<p>Kept</p>');
    await service.updateFromRemote(refuse.noteId, ALICE.uri, PHISHING);
    // Deleting from the pending list drops the change, not the comment.
    expect(await service.delete(refuse.id)).toEqual({ deleted: true });
    expect(await store.find(refuse.id)).toMatchObject({
      status: 'approved',
      contentHtml: '<p>Kept</p>',
      pendingHtml: null,
    });
    expect(await shown(refuse.id)).toMatchObject({ content: '<p>Kept</p>' });
    expect(await pendingItem(refuse.id)).toBeUndefined();

    // Marked as spam, the comment is hidden and the change dropped.
    const spam = await approvedReply('<p>Hidden later</p>');
    await service.updateFromRemote(spam.noteId, ALICE.uri, PHISHING);
    await service.moderate(spam.id, 'spam');
    expect(await store.find(spam.id)).toMatchObject({
      status: 'spam',
      contentHtml: '<p>Hidden later</p>',
      pendingHtml: null,
    });
    expect(await shown(spam.id)).toBeUndefined();
  });

  it('a later edit replaces the proposal; one back to the approved text ends the wait', async () => {
    const { id, noteId } = await approvedReply('<p>Original</p>');
    await service.updateFromRemote(noteId, ALICE.uri, '<p>Try one</p>');
    await service.updateFromRemote(noteId, ALICE.uri, '<p>Try two</p>');
    expect(await store.find(id)).toMatchObject({ status: 'pending', pendingHtml: '<p>Try two</p>' });
    await service.updateFromRemote(noteId, ALICE.uri, '<p>Original</p>');
    expect(await store.find(id)).toMatchObject({
      status: 'approved',
      contentHtml: '<p>Original</p>',
      pendingHtml: null,
    });
  });

  it('lets a known author’s edit in at once when auto-approval is on', async () => {
    const { id, noteId } = await approvedReply('<p>Before</p>');
    await service.updateSettings({ autoApproveKnown: true });
    const answer = await service.updateFromRemote(noteId, ALICE.uri, '<p>After</p>');
    expect(answer.comment).toMatchObject({ status: 'approved', content: '<p>After</p>' });
    expect(await shown(id)).toMatchObject({ content: '<p>After</p>' });
    expect((await store.find(id))!.pendingHtml).toBeNull();

    // The post's own switch counts too.
    await service.updateSettings({ autoApproveKnown: false });
    await service.updatePostSettings(postId, { autoApproveKnown: true });
    await service.updateFromRemote(noteId, ALICE.uri, '<p>After again</p>');
    expect(await shown(id)).toMatchObject({ content: '<p>After again</p>' });
    await service.updatePostSettings(postId, { autoApproveKnown: false });
  });

  it("changes nothing on another actor's update, approved or waiting", async () => {
    const { id, noteId } = await approvedReply('<p>Mine</p>');
    const before = await store.find(id);
    expect(await service.updateFromRemote(noteId, MALLORY, PHISHING)).toEqual({ comment: null });
    expect(await store.find(id)).toEqual(before);

    await service.updateFromRemote(noteId, ALICE.uri, '<p>Mine, edited</p>');
    const waiting = await store.find(id);
    await service.updateSettings({ autoApproveKnown: true }); // not for Mallory, who wrote nothing here
    expect(await service.updateFromRemote(noteId, MALLORY, PHISHING)).toEqual({ comment: null });
    expect(await store.find(id)).toEqual(waiting);
    expect(await service.deleteFromRemote(noteId, MALLORY)).toEqual({ deleted: false });
    expect(await shown(id)).toMatchObject({ content: '<p>Mine</p>' });
  });

  it('leaves the status alone when the text does not change', async () => {
    const { id, noteId } = await approvedReply('<p>Same <em>words</em></p>');
    const before = await store.find(id);
    // The same text once sanitised: what it shows did not change.
    const answer = await service.updateFromRemote(
      noteId,
      ALICE.uri,
      '<p>Same <em onclick="x()">words</em></p>',
    );
    expect(answer).toEqual({ comment: null });
    expect(await store.find(id)).toEqual(before);
    expect(before!.status).toBe('approved');
  });

  it('changes the text of a comment readers do not see yet, which stays pending', async () => {
    const made = await service.createFromRemote(
      parseOrThrow(RpcContracts[Patterns.posts.commentCreateRemote].request, {
        postId,
        remoteObjectId: 'https://social.example/notes/unseen',
        actor: { ...ALICE, uri: 'https://social.example/users/newcomer' },
        html: '<p>Tpyo</p>',
      }),
    );
    await service.updateFromRemote(
      'https://social.example/notes/unseen',
      'https://social.example/users/newcomer',
      '<p>Typo</p>',
    );
    expect(await store.find(made.comment!.id)).toMatchObject({
      status: 'pending',
      contentHtml: '<p>Typo</p>',
      pendingHtml: null,
    });
  });

  it('lets a reader answer a comment whose change waits: readers see it', async () => {
    const { id, noteId } = await approvedReply('<p>Answer me</p>');
    await service.updateFromRemote(noteId, ALICE.uri, '<p>Changed</p>');
    const reply = await service.create({
      postId,
      userId: '00000000-0000-4000-8000-000000000001',
      userName: 'reader',
      ip: '192.0.2.1',
      content: 'Answered',
      parentId: id,
    });
    expect(reply.answer.parentId).toBe(id);
  });
});
