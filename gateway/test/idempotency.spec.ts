import type { INestApplication } from '@nestjs/common';
import { IdempotencyErrors } from '@blog/contracts';
import { createStorage, IdempotencyLedger, type ObjectStorage } from '@blog/server-kit';
import { freePort } from '@blog/server-kit/testing';
import pg from 'pg';
import { createGateway, loadGatewayConfig } from '../src/index.js';
import { fields, makeImage, multipart, type Part } from './support/media-fixtures.js';
import { ADMIN, api, loginAs, startTestStack, type TestStack } from './support/test-stack.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * Idempotency-Key on the admin's writes, against the real services, PostgreSQL and storage:
 * a retried write is done once, whichever gateway replica the retry reaches.
 */
describe('Idempotency-Key: a retried write is done once', () => {
  let stack: TestStack;
  let storage: ObjectStorage;
  let admin: string;
  let db: pg.Client;
  /** A second gateway replica over the same services (keys live in PostgreSQL, not in a gateway). */
  let replica: INestApplication;
  let replicaUrl: string;
  let images: Buffer[];

  const postForm = (title: string, content = 'Written once.'): Part[] => [
    ...fields({ title, content, category: 'Garage', submenu1: 'Automobiles' }),
    { name: 'files', file: { filename: 'a.jpg', type: 'image/jpeg', data: images[0]! } },
    { name: 'files', file: { filename: 'b.png', type: 'image/png', data: images[1]! } },
  ];
  const send = async (
    method: string,
    path: string,
    { parts, key, base = stack.baseUrl }: { parts?: Part[]; key?: string; base?: string } = {},
  ) => {
    const headers: Record<string, string> = { authorization: `Bearer ${admin}` };
    if (key !== undefined) headers['idempotency-key'] = key;
    let body: Buffer | undefined;
    if (parts) {
      const form = multipart(parts);
      headers['content-type'] = form.contentType;
      body = form.body;
    }
    const response = await fetch(`${base}${path}`, { method, headers, body });
    const text = await response.text();
    return {
      status: response.status,
      json: (text ? JSON.parse(text) : undefined) as Json,
      replayed: response.headers.get('idempotent-replayed') === 'true',
    };
  };
  const postsTitled = async (title: string): Promise<number> =>
    Number((await db.query('SELECT count(*) FROM posts.posts WHERE title = $1', [title])).rows[0].count);
  const originals = () => storage.list('private/originals/');

  beforeAll(async () => {
    stack = await startTestStack();
    storage = await createStorage(stack.env);
    admin = await loginAs(stack, ADMIN.username, ADMIN.password);
    db = new pg.Client({ connectionString: stack.env.DATABASE_URL });
    await db.connect();
    const port = await freePort();
    replica = await createGateway(loadGatewayConfig({ ...stack.env, PORT: String(port) }), stack.env);
    replicaUrl = `http://127.0.0.1:${port}`;
    images = [await makeImage('jpeg'), await makeImage('png', 80, 40)];
  });
  afterAll(async () => {
    await replica?.close();
    await db?.end();
    await stack?.stop();
  });

  it('the same key twice creates one post, its files stored once, even through another gateway replica', async () => {
    const before = (await originals()).length;
    const first = await send('POST', '/api/posts', { parts: postForm('Once only'), key: 'create-1' });
    expect(first.status).toBe(201);
    expect(first.replayed).toBe(false);
    const again = await send('POST', '/api/posts', {
      parts: postForm('Once only'),
      key: 'create-1',
      base: replicaUrl,
    });
    expect(again.status).toBe(201);
    expect(again.replayed).toBe(true);
    expect(again.json.id).toBe(first.json.id);
    expect(again.json.slug).toBe(first.json.slug);
    expect(await postsTitled('Once only')).toBe(1);
    expect((await originals()).length).toBe(before + 2);
  });

  it('the same key with another request answers 422 and changes nothing', async () => {
    const before = (await originals()).length;
    const other = await send('POST', '/api/posts', {
      parts: postForm('Once only', 'A different text.'),
      key: 'create-1',
    });
    expect(other.status).toBe(422);
    expect(other.json).toEqual({ error: IdempotencyErrors.reused });
    expect(await postsTitled('Once only')).toBe(1);
    expect((await originals()).length).toBe(before);
    // The same key on another route is another request too.
    const update = await send('PUT', '/api/posts/1', { parts: postForm('Once only'), key: 'create-1' });
    expect(update.status).toBe(422);
  });

  it('two concurrent requests with one key create one post, and the loser leaves no files behind', async () => {
    const before = (await originals()).length;
    const answers = await Promise.all(
      [stack.baseUrl, replicaUrl, stack.baseUrl].map((base) =>
        send('POST', '/api/posts', { parts: postForm('Raced'), key: 'race-1', base }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201]);
    expect(new Set(answers.map((a) => a.json.id)).size).toBe(1);
    expect(answers.filter((a) => !a.replayed)).toHaveLength(1);
    expect(await postsTitled('Raced')).toBe(1);
    expect((await originals()).length).toBe(before + 2);
  });

  it('an update, a media retry and a delete replay their first answer', async () => {
    const created = await send('POST', '/api/posts', { parts: postForm('To change'), key: 'c-2' });
    const id = created.json.id as number;
    // A media item that is not failed cannot be retried: the error is not remembered.
    const itemId = created.json.media[0].id as string;
    const notFailed = await send('POST', `/api/posts/${id}/media/${itemId}/retry`, { key: 'r-2' });
    expect(notFailed.status).toBe(409);
    await db.query(`UPDATE posts.media_items SET status = 'failed', error = 'x' WHERE id = $1`, [itemId]);
    const retry = await send('POST', `/api/posts/${id}/media/${itemId}/retry`, { key: 'r-2' });
    expect(retry.status).toBe(200);
    expect(retry.replayed).toBe(false);
    const retryAgain = await send('POST', `/api/posts/${id}/media/${itemId}/retry`, { key: 'r-2' });
    expect(retryAgain).toMatchObject({ status: 200, replayed: true, json: { id } });

    const parts = [
      ...fields({ title: 'Changed', content: 'New text.', category: 'Garage', submenu1: 'Automobiles' }),
    ];
    const updated = await send('PUT', `/api/posts/${id}`, { parts, key: 'u-2' });
    expect(updated.status).toBe(200);
    // Meanwhile another edit; the retried first one must not undo it.
    await send('PUT', `/api/posts/${id}`, {
      parts: [
        ...fields({ title: 'Changed again', content: 'x', category: 'Garage', submenu1: 'Automobiles' }),
      ],
    });
    const retried = await send('PUT', `/api/posts/${id}`, { parts, key: 'u-2', base: replicaUrl });
    expect(retried).toMatchObject({ status: 200, replayed: true, json: { id, title: 'Changed' } });
    expect((await api(stack, `/api/posts/${id}`, { token: admin })).json.title).toBe('Changed again');

    const deleted = await send('DELETE', `/api/posts/${id}`, { key: 'd-2' });
    expect(deleted).toMatchObject({ status: 200, replayed: false, json: { success: true } });
    const deletedAgain = await send('DELETE', `/api/posts/${id}`, { key: 'd-2', base: replicaUrl });
    expect(deletedAgain).toMatchObject({ status: 200, replayed: true, json: { success: true } });
    expect((await send('DELETE', `/api/posts/${id}`)).status).toBe(404);
  });

  it('settings: the same key replays, another body under it is a 422', async () => {
    const put = (body: unknown, key: string) =>
      api(stack, '/api/settings', {
        method: 'PUT',
        body,
        token: admin,
        headers: { 'idempotency-key': key },
      });
    const first = await put({ settings: { image_quality: 70 } }, 's-1');
    expect(first.status).toBe(200);
    await put({ settings: { image_quality: 90 } }, 's-2');
    const again = await put({ settings: { image_quality: 70 } }, 's-1');
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.json).toMatchObject({ image_quality: 70 });
    expect((await api(stack, '/api/settings', { token: admin })).json).toMatchObject({ image_quality: 90 });
    expect((await put({ settings: { image_quality: 75 } }, 's-1')).status).toBe(422);
  });

  it('refuses a key that is empty, too long or not printable, before doing anything', async () => {
    for (const key of ['', 'k'.repeat(201), 'tab\there']) {
      const response = await send('POST', '/api/posts', { parts: postForm('Bad key'), key });
      expect(response.status).toBe(400);
      expect(response.json).toEqual({ error: IdempotencyErrors.invalidKey });
    }
    expect(await postsTitled('Bad key')).toBe(0);
    expect(
      (await send('POST', '/api/posts', { parts: postForm('Long key'), key: 'k'.repeat(200) })).status,
    ).toBe(201);
  });

  it('forgets a key after 24 hours: the same key then makes a new post', async () => {
    const first = await send('POST', '/api/posts', { parts: postForm('Day old'), key: 'old-1' });
    await db.query(
      `UPDATE posts.idempotency_keys SET created_at = now() - interval '24 hours 1 minute' WHERE key = 'old-1'`,
    );
    const later = await send('POST', '/api/posts', { parts: postForm('Day old'), key: 'old-1' });
    expect(later.status).toBe(201);
    expect(later.replayed).toBe(false);
    expect(later.json.id).not.toBe(first.json.id);
    expect(await postsTitled('Day old')).toBe(2);
    // The hourly purge removes what is past its time and keeps the rest.
    await db.query(
      `UPDATE posts.idempotency_keys SET created_at = now() - interval '2 days' WHERE key = 'c-2'`,
    );
    expect(await stack.services.posts.get(IdempotencyLedger).purge()).toBe(1);
    const { rows } = await db.query(`SELECT key FROM posts.idempotency_keys`);
    expect(rows.map((r) => r.key)).not.toContain('c-2');
    expect(rows.map((r) => r.key)).toContain('old-1');
  });
});
