import { Patterns } from '@blog/contracts';
import { createRpcClient, sendTyped } from '@blog/server-kit';
import type { ClientProxy } from '@nestjs/microservices';
import { fields, multipart } from './support/media-fixtures.js';
import { ADMIN, api, loginAs, startTestStack, type TestStack } from './support/test-stack.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const ALICE = { uri: 'https://social.example/users/alice', name: 'Alice', handle: '@alice@social.example' };

/**
 * Fediverse replies through the real gateway and posts service: only http(s) author links reach
 * the public comments API, and an approved reply's change waits for the owner.
 */
describe('remote comments through the gateway: links and changes', () => {
  let stack: TestStack;
  let rpc: ClientProxy;
  let admin: string;
  let postId: number;
  let request = 0;

  const createRemote = (remoteObjectId: string, url: string | null, html: string) =>
    sendTyped(
      rpc,
      Patterns.posts.commentCreateRemote,
      { postId, remoteObjectId, actor: { ...ALICE, url }, html },
      { requestId: `remote-${++request}`, timeoutMs: 10_000 },
    );
  const updateRemote = (remoteObjectId: string, actorUri: string, html: string) =>
    sendTyped(
      rpc,
      Patterns.posts.commentUpdateRemote,
      { remoteObjectId, actorUri, html },
      { requestId: `remote-${++request}`, timeoutMs: 10_000 },
    );
  const publicComment = async (id: number) =>
    ((await api(stack, `/api/posts/${postId}/comments`)).json as Json).comments.find(
      (c: Json) => c.id === id,
    ) as Json | undefined;
  const approve = async (id: number) =>
    expect(
      (await api(stack, `/api/admin/comments/${id}/approve`, { method: 'POST', token: admin })).status,
    ).toBe(200);

  beforeAll(async () => {
    stack = await startTestStack({ SITE_URL: 'https://blog.example' }, ['mail', 'social']);
    admin = await loginAs(stack, ADMIN.username, ADMIN.password);
    const { body, contentType } = multipart(
      fields({ content: 'Text.', category: 'More', title: 'Replies', date: '2024-01-01T10:00:00Z' }),
    );
    const created = await fetch(`${stack.baseUrl}/api/posts`, {
      method: 'POST',
      headers: { 'content-type': contentType, authorization: `Bearer ${admin}` },
      body,
    });
    expect(created.status).toBe(201);
    postId = ((await created.json()) as Json).id as number;
    rpc = createRpcClient({ TRANSPORT: 'tcp' } as never, 'test', {
      host: '127.0.0.1',
      port: Number(stack.env.POSTS_PORT),
    });
  });
  afterAll(async () => {
    await rpc?.close();
    await stack?.stop();
  });

  it('answers a data: or vbscript: author link as null in the public comments, an https one as sent', async () => {
    const hostile = await createRemote(
      'https://social.example/notes/data',
      'data:text/html,<script>alert(document.cookie)</script>',
      '<p>Hello</p>',
    );
    const vb = await createRemote('https://social.example/notes/vb', 'vbscript:msgbox(1)', '<p>Hi</p>');
    const fine = await createRemote(
      'https://social.example/notes/ok',
      'https://social.example/@alice',
      '<p>Yo</p>',
    );
    for (const made of [hostile, vb, fine]) await approve(made.comment!.id);
    expect((await publicComment(hostile.comment!.id))!.author.url).toBeNull();
    expect((await publicComment(vb.comment!.id))!.author.url).toBeNull();
    expect((await publicComment(fine.comment!.id))!.author.url).toBe('https://social.example/@alice');
  });

  it('keeps the approved text public while a change waits, shows both to the owner, then applies it', async () => {
    const made = await createRemote('https://social.example/notes/edit', null, '<p>Nice post</p>');
    const id = made.comment!.id;
    await approve(id);
    const phishing = '<p>Locked out? <a href="https://evil.example/login">Sign in</a></p>';
    expect(
      (await updateRemote('https://social.example/notes/edit', ALICE.uri, phishing)).comment,
    ).toMatchObject({ status: 'pending', content: '<p>Nice post</p>' });
    expect(await publicComment(id)).toMatchObject({ status: 'approved', content: '<p>Nice post</p>' });
    const pending = (await api(stack, '/api/admin/comments?status=pending', { token: admin })).json as Json;
    expect(pending.items.find((c: Json) => c.id === id)).toMatchObject({
      status: 'pending',
      content: '<p>Nice post</p>',
      proposedContent: expect.stringContaining('https://evil.example/login') as unknown,
    });

    // Refused (the delete route on a changed comment): the approved text stays.
    expect((await api(stack, `/api/admin/comments/${id}`, { method: 'DELETE', token: admin })).status).toBe(
      200,
    );
    expect(await publicComment(id)).toMatchObject({ status: 'approved', content: '<p>Nice post</p>' });

    await updateRemote('https://social.example/notes/edit', ALICE.uri, '<p>Nice post, truly</p>');
    await approve(id);
    expect(await publicComment(id)).toMatchObject({ content: '<p>Nice post, truly</p>' });
  });
});
