/**
 * What the posts specs (posts.write.http.spec.ts, posts.refusals.http.spec.ts) share: a stack
 * with its storage, the admin and a signed-in reader, a multipart write, the stored keys, and a
 * post read until the media worker has processed every item.
 */
import { createStorage, type ObjectStorage } from '@blog/server-kit';
import { multipart, type Part } from './media-fixtures.js';
import { ADMIN, api, loginAs, startTestStack, type TestStack } from './test-stack.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface PostsStack {
  stack: TestStack;
  storage: ObjectStorage;
  admin: string;
  /** A signed-in reader (role user). */
  user: string;
  /** A multipart POST or PUT, as the admin unless `token` says otherwise. */
  send(
    method: 'POST' | 'PUT',
    path: string,
    parts: Part[],
    token?: string,
  ): Promise<{ status: number; json: Json; headers: Headers }>;
  /** Every stored key: the owners' originals (private/originals/) and what the worker made (media/). */
  stored(): Promise<string[]>;
  originals(): Promise<string[]>;
  /** Reads the post as an admin until the media worker has processed every item. */
  whenReady(id: number): Promise<Json>;
}

/**
 * The file's posts stack, started before its tests (and before any beforeAll declared after
 * this call) and stopped after them; its functions may be taken out of the answer at once.
 */
export function usePostsStack(): PostsStack {
  const rig: PostsStack = {
    async send(method, path, parts, token = rig.admin) {
      const { body, contentType } = multipart(parts);
      const response = await fetch(`${rig.stack.baseUrl}${path}`, {
        method,
        headers: { 'content-type': contentType, authorization: `Bearer ${token}` },
        body,
      });
      const text = await response.text();
      return {
        status: response.status,
        json: (text ? JSON.parse(text) : undefined) as Json,
        headers: response.headers,
      };
    },
    stored: () => rig.storage.list(''),
    originals: () => rig.storage.list('private/originals/'),
    async whenReady(id) {
      const until = Date.now() + 20_000;
      for (;;) {
        const post = (await api(rig.stack, `/api/posts/${id}`, { token: rig.admin })).json as Json;
        if (post.mediaReady) return post;
        if (Date.now() > until) throw new Error(`media not ready: ${JSON.stringify(post.media)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
  } as Partial<PostsStack> as PostsStack;

  beforeAll(async () => {
    rig.stack = await startTestStack();
    rig.storage = await createStorage(rig.stack.env);
    rig.admin = await loginAs(rig.stack, ADMIN.username, ADMIN.password);
    await api(rig.stack, '/api/auth/register', { body: { username: 'reader', password: 'reader-password' } });
    rig.user = await loginAs(rig.stack, 'reader', 'reader-password');
  });
  afterAll(() => rig.stack?.stop());
  return rig;
}
