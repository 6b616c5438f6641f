import { createStorage, type ObjectStorage } from '@blog/server-kit';
import { PostErrors } from '@blog/contracts';
import { makeCorruptJpeg } from '../../services/media/test/fixtures.js';
import { fields, makeImage, multipart } from './support/media-fixtures.js';
import { ADMIN, api, loginAs, startTestStack, type TestStack } from './support/test-stack.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** POST /api/posts/{id}/media/{itemId}/retry: the admin's Retry on a failed upload. */
describe('retrying a failed media item through the gateway', () => {
  let stack: TestStack;
  let storage: ObjectStorage;
  let admin: string;
  let reader: string;
  let post: Json;

  const retry = (id: number | string, itemId: string, token?: string) =>
    api(stack, `/api/posts/${id}/media/${itemId}/retry`, { method: 'POST', token });
  const settled = async (id: number): Promise<Json> => {
    const until = Date.now() + 20_000;
    for (;;) {
      const current = (await api(stack, `/api/posts/${id}`, { token: admin })).json as Json;
      if (current.media.every((m: Json) => m.status !== 'pending')) return current;
      if (Date.now() > until) throw new Error(`still pending: ${JSON.stringify(current.media)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  beforeAll(async () => {
    stack = await startTestStack({ LOG_LEVEL: 'error' }, ['mail']);
    storage = await createStorage(stack.env);
    admin = await loginAs(stack, ADMIN.username, ADMIN.password);
    await api(stack, '/api/auth/register', { body: { username: 'reader', password: 'reader-password' } });
    reader = await loginAs(stack, 'reader', 'reader-password');
    const { body, contentType } = multipart([
      ...fields({ title: 'A broken upload', category: 'Projects' }),
      { name: 'files', file: { filename: 'good.png', type: 'image/png', data: await makeImage('png') } },
      { name: 'files', file: { filename: 'broken.jpg', type: 'image/jpeg', data: makeCorruptJpeg() } },
    ]);
    const response = await fetch(`${stack.baseUrl}/api/posts`, {
      method: 'POST',
      headers: { 'content-type': contentType, authorization: `Bearer ${admin}` },
      body,
    });
    expect(response.status).toBe(201);
    post = await settled(((await response.json()) as Json).id);
  });
  afterAll(() => stack?.stop());

  it('queues a failed item again; once its original reads, it turns ready', async () => {
    const [good, broken] = post.media as Json[];
    expect(good).toMatchObject({ status: 'ready' });
    expect(broken).toMatchObject({ status: 'failed', name: 'broken.jpg' });
    expect(broken!.error).toEqual(expect.any(String));

    // Mend the owner's original in storage (the only private file of a failed item), so the
    // second run can succeed: the retry must start again from that original.
    const originals = await storage.list('private/originals/');
    expect(originals).toHaveLength(2);
    for (const key of originals) {
      if ((await storage.stat(key))?.size === makeCorruptJpeg().length)
        await storage.put(key, await makeImage('jpeg'), { contentType: 'image/jpeg' });
    }

    const answer = await retry(post.id, broken!.id, admin);
    expect(answer.status).toBe(200);
    const retried = (answer.json as Json).media.find((m: Json) => m.id === broken!.id);
    expect(retried).toMatchObject({ status: 'pending', error: null });

    const after = await settled(post.id);
    expect(after.media.map((m: Json) => m.status)).toEqual(['ready', 'ready']);
    expect(after.media[1].id).toBe(broken!.id);
    expect(after.mediaReady).toBe(true);
  });

  it('refuses items that are not failed, unknown ids, guests and non-admins', async () => {
    const [good] = post.media as Json[];
    expect(await retry(post.id, good!.id, admin)).toMatchObject({
      status: 409,
      json: { error: PostErrors.mediaNotFailed },
    });
    expect(await retry(post.id, '00000000-0000-4000-8000-000000000000', admin)).toMatchObject({
      status: 404,
      json: { error: PostErrors.mediaNotFound },
    });
    expect((await retry(post.id, 'not-a-uuid', admin)).status).toBe(404);
    expect((await retry(post.id + 1000, good!.id, admin)).status).toBe(404);
    expect((await retry(post.id, good!.id)).status).toBe(401);
    expect((await retry(post.id, good!.id, reader)).status).toBe(403);
  });
});
