/**
 * Comments in and out of the blog (import, export, restore): a WordPress or Ghost import brings its
 * approved comments as approved comments (from elsewhere: local false, via WordPress or Ghost,
 * no account), sanitised and threaded one level deep; the blog archive carries every comment
 * with its status and brings them back on restore, once however often it is imported.
 */
import { exportArchive } from './support/export.js';
import { item, useImportStack, wxr } from './support/import-stack.js';
import { api, type TestStack } from './support/test-stack.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function wpComment(o: {
  id: number;
  parent?: number;
  approved?: string;
  type?: string;
  author?: string;
  url?: string;
  content: string;
  gmt?: string;
}): string {
  return `<wp:comment>
      <wp:comment_id>${o.id}</wp:comment_id>
      <wp:comment_author><![CDATA[${o.author ?? 'Reader'}]]></wp:comment_author>
      <wp:comment_author_email><![CDATA[reader@old.example]]></wp:comment_author_email>
      <wp:comment_author_url>${o.url ?? ''}</wp:comment_author_url>
      <wp:comment_author_IP><![CDATA[192.0.2.1]]></wp:comment_author_IP>
      <wp:comment_date><![CDATA[${o.gmt ?? '2020-02-01 10:00:00'}]]></wp:comment_date>
      <wp:comment_date_gmt><![CDATA[${o.gmt ?? '2020-02-01 10:00:00'}]]></wp:comment_date_gmt>
      <wp:comment_content><![CDATA[${o.content}]]></wp:comment_content>
      <wp:comment_approved><![CDATA[${o.approved ?? '1'}]]></wp:comment_approved>
      <wp:comment_type><![CDATA[${o.type ?? 'comment'}]]></wp:comment_type>
      <wp:comment_parent>${o.parent ?? 0}</wp:comment_parent>
      <wp:comment_user_id>0</wp:comment_user_id>
      <wp:commentmeta><wp:meta_key><![CDATA[akismet_result]]></wp:meta_key><wp:meta_value><![CDATA[false]]></wp:meta_value></wp:commentmeta>
    </wp:comment>`;
}

describe('comments imported and exported', () => {
  const rig = useImportStack();
  const { upload, finished, byTitle } = rig;
  let stack: TestStack;
  let admin: string;
  beforeAll(() => ({ stack, admin } = rig));

  const comments = async (postId: number) => (await api(stack, `/api/posts/${postId}/comments`)).json as Json;
  /**
   * The public list once it holds `count` comments: a restore writes behind the gateway, and the
   * public cache serves its last answer while it refreshes (stale-while-revalidate, a few seconds).
   */
  const commentsOnceCounted = async (postId: number, count: number) => {
    const until = Date.now() + 10_000;
    for (;;) {
      const list = await comments(postId);
      if (list.count === count || Date.now() > until) return list;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };
  const adminList = async (status: string) =>
    (await api(stack, `/api/admin/comments?status=${status}&pageSize=100`, { token: admin })).json as Json;

  it('a WordPress import brings the approved comments, threaded, sanitised, via WordPress; once', async () => {
    const post = item({
      id: 501,
      title: 'Commented on WordPress',
      name: 'commented-on-wordpress',
      gmt: '2020-01-05 10:00:00',
      content: '<p>The post.</p>',
    }).replace(
      '</item>',
      [
        wpComment({
          id: 1,
          author: 'Ann',
          url: 'https://ann.example/',
          content: 'First line\nsecond line\n\nNew paragraph',
        }),
        wpComment({
          id: 2,
          parent: 1,
          author: 'Ben',
          content: 'A reply <script>alert(1)</script><a href="javascript:alert(1)">x</a>',
          gmt: '2020-02-02 10:00:00',
        }),
        wpComment({
          id: 3,
          parent: 2,
          author: 'Cy',
          content: 'A reply to the reply',
          gmt: '2020-02-03 10:00:00',
        }),
        wpComment({ id: 4, approved: '0', content: 'Pending there' }),
        wpComment({ id: 5, approved: 'spam', content: 'Spam there' }),
        wpComment({ id: 6, type: 'pingback', content: 'A pingback' }),
        wpComment({ id: 7, parent: 4, content: 'Reply to a pending one', gmt: '2020-02-04 10:00:00' }),
      ].join('\n') + '</item>',
    );
    const file = wxr([post]);
    const report = await finished((await upload('comments.xml', file)).json.id as string);
    expect(report).toMatchObject({ state: 'done', imported: 1, comments: 4 });
    const imported = await byTitle('Commented on WordPress');
    const list = await comments(imported.id);
    expect(list.count).toBe(4);
    expect(list.comments.map((c: Json) => c.author.name)).toEqual(['Ann', 'Reader']);
    const [ann, orphan] = list.comments;
    expect(ann).toMatchObject({
      status: 'approved',
      parentId: null,
      content: '<p>First line<br />second line</p><p>New paragraph</p>',
      author: { name: 'Ann', handle: null, url: 'https://ann.example/', avatarUrl: null, local: false },
      via: 'WordPress',
      createdAt: '2020-02-01T10:00:00.000Z',
    });
    expect(ann.replies.map((r: Json) => [r.author.name, r.parentId])).toEqual([
      ['Ben', ann.id],
      ['Cy', ann.id],
    ]);
    expect(ann.replies[0].content).toBe('<p>A reply <a rel="nofollow ugc noopener">x</a></p>');
    // Its parent was not approved there: it stands alone here.
    expect(orphan).toMatchObject({ content: '<p>Reply to a pending one</p>', parentId: null });

    const again = await finished((await upload('comments.xml', file)).json.id as string);
    expect(again).toMatchObject({ state: 'done', updated: 1 });
    expect((await comments(imported.id)).count).toBe(4);
  });

  it('a Ghost import brings its published comments with their members names, via Ghost', async () => {
    const ghost = {
      db: [
        {
          meta: { exported_on: 1700000000000, version: '5.75.0' },
          data: {
            posts: [
              {
                id: 'g1',
                title: 'Commented on Ghost',
                slug: 'commented-on-ghost',
                html: '<p>Ghost post.</p>',
                status: 'published',
                type: 'post',
                visibility: 'public',
                published_at: '2023-06-01T08:30:00.000Z',
              },
            ],
            members: [{ id: 'm1', name: 'Dana', email: 'dana@ghost.example' }],
            comments: [
              {
                id: 'c2',
                post_id: 'g1',
                member_id: 'm1',
                parent_id: 'c1',
                status: 'published',
                html: '<p>Reply <img src=x onerror=alert(1)></p>',
                created_at: '2023-06-03T08:00:00.000Z',
              },
              {
                id: 'c1',
                post_id: 'g1',
                member_id: 'm1',
                parent_id: null,
                status: 'published',
                html: '<p>Top</p>',
                created_at: '2023-06-02T08:00:00.000Z',
              },
              {
                id: 'c3',
                post_id: 'g1',
                member_id: 'm9',
                parent_id: null,
                status: 'hidden',
                html: '<p>Hidden</p>',
                created_at: '2023-06-02T09:00:00.000Z',
              },
              {
                id: 'c4',
                post_id: 'g1',
                member_id: 'm9',
                parent_id: null,
                status: 'deleted',
                html: '<p>Gone</p>',
                created_at: '2023-06-02T09:00:00.000Z',
              },
            ],
          },
        },
      ],
    };
    const report = await finished((await upload('ghost.json', JSON.stringify(ghost))).json.id as string);
    expect(report).toMatchObject({ state: 'done', imported: 1, comments: 2 });
    const list = await comments((await byTitle('Commented on Ghost')).id);
    expect(list.count).toBe(2);
    expect(list.comments[0]).toMatchObject({
      content: '<p>Top</p>',
      author: { name: 'Dana', local: false },
      via: 'Ghost',
      status: 'approved',
    });
    expect(list.comments[0].replies).toMatchObject([
      { content: '<p>Reply </p>', parentId: list.comments[0].id },
    ]);
  });

  it('the archive carries every comment with its status, and a restore brings them back once', async () => {
    const wordpress = await byTitle('Commented on WordPress');
    // A reader's own comment, left pending, and one marked as spam: the archive keeps both.
    await api(stack, '/api/auth/register', {
      body: { username: 'commenter', password: 'reader-password-1' },
    });
    const login = await api(stack, '/api/auth/login', {
      body: { username: 'commenter', password: 'reader-password-1' },
    });
    const reader = login.json.token as string;
    const pending = await api(stack, `/api/posts/${wordpress.id}/comments`, {
      body: { content: 'Mine, pending' },
      token: reader,
    });
    const spam = await api(stack, `/api/posts/${wordpress.id}/comments`, {
      body: { content: 'Mine, spam' },
      token: reader,
    });
    await api(stack, `/api/admin/comments/${spam.json.id}/spam`, { method: 'POST', token: admin });

    const zip = Buffer.from(await (await exportArchive(stack.baseUrl, admin)).arrayBuffer());
    // The blog loses the post's comments; its archive brings them back.
    const before = (await comments(wordpress.id)).comments as Json[];
    for (const top of before)
      expect(
        (await api(stack, `/api/admin/comments/${top.id}`, { method: 'DELETE', token: admin })).status,
      ).toBe(200);
    for (const id of [pending.json.id, spam.json.id])
      await api(stack, `/api/admin/comments/${id}`, { method: 'DELETE', token: admin });
    expect((await comments(wordpress.id)).count).toBe(0);

    const report = await finished((await upload('blog.zip', zip)).json.id as string);
    expect(report.state).toBe('done');
    const back = await commentsOnceCounted(wordpress.id, 4);
    expect(back.count).toBe(4);
    expect(back.comments.map((c: Json) => [c.author.name, c.via, c.replies.length])).toEqual(
      before.map((c) => [c.author.name, c.via, c.replies.length]),
    );
    expect(back.comments[0].createdAt).toBe(before[0]!.createdAt);
    const pendingBack = (await adminList('pending')).items.filter((c: Json) => c.postId === wordpress.id);
    expect(pendingBack).toMatchObject([
      { content: '<p>Mine, pending</p>', author: { name: 'commenter', local: true } },
    ]);
    const spamBack = (await adminList('spam')).items.filter((c: Json) => c.postId === wordpress.id);
    expect(spamBack).toMatchObject([{ content: '<p>Mine, spam</p>' }]);

    // Once: the same archive again adds nothing.
    await finished((await upload('blog.zip', zip)).json.id as string);
    // Read past the public cache (an Authorization header bypasses it): a doubled restore would show.
    const again = await api(stack, `/api/posts/${wordpress.id}/comments`, { token: admin });
    expect(again.json.count).toBe(4);
    expect((await adminList('pending')).items.filter((c: Json) => c.postId === wordpress.id)).toHaveLength(1);
  });
});
