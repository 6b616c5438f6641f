/**
 * Mastodon's domain-block CSV through the real gateway and services: import (suspend blocks,
 * silence and noop skipped, wrong lines reported by number, idempotent, comments of a newly
 * blocked server removed), export (the same CSV, as an attachment), hostile files refused
 * changing nothing, admins only.
 */
import { BLOCKLIST_CSV_HEADER, Patterns, type BlockListResult } from '@blog/contracts';
import { ClientProxyFactory, Transport, type ClientProxy } from '@nestjs/microservices';
import { firstValueFrom } from 'rxjs';
import { fields, multipart } from './support/media-fixtures.js';
import { ADMIN, api, loginAs, startTestStack, type TestStack } from './support/test-stack.js';

describe('fediverse blocklist import and export', () => {
  let stack: TestStack;
  let posts: ClientProxy;
  let admin: string;
  let reader: string;

  const importCsv = (body: string | Buffer, token = admin, type = 'text/csv') =>
    fetch(`${stack.baseUrl}/api/admin/fediverse/blocks/import`, {
      method: 'POST',
      headers: { 'content-type': type, authorization: `Bearer ${token}` },
      body,
    }).then(async (response) => ({
      status: response.status,
      json: (await response.json()) as Record<string, unknown>,
    }));
  const blockedDomains = async () =>
    (
      (await api(stack, '/api/admin/fediverse/blocks', { token: admin })).json as unknown as BlockListResult
    ).items
      .map((block) => block.domain)
      .sort();

  beforeAll(async () => {
    stack = await startTestStack();
    posts = ClientProxyFactory.create({
      transport: Transport.TCP,
      options: { host: '127.0.0.1', port: Number(stack.env.POSTS_PORT) },
    });
    admin = await loginAs(stack, ADMIN.username, ADMIN.password);
    await api(stack, '/api/auth/register', { body: { username: 'reader', password: 'reader-password-1' } });
    reader = await loginAs(stack, 'reader', 'reader-password-1');
  });
  afterAll(async () => {
    posts?.close();
    await stack?.stop();
  });

  it('refuses a visitor (401) and a reader (403), and imports nothing for them', async () => {
    const csv = `${BLOCKLIST_CSV_HEADER}\nspam.example,suspend,false,false,,false\n`;
    for (const [path, method] of [
      ['/api/admin/fediverse/blocks/import', 'POST'],
      ['/api/admin/fediverse/blocks/export', 'GET'],
    ] as const) {
      const body = method === 'POST' ? csv : undefined;
      const headers = { 'content-type': 'text/csv' };
      expect((await fetch(`${stack.baseUrl}${path}`, { method, body, headers })).status).toBe(401);
      expect(
        (
          await fetch(`${stack.baseUrl}${path}`, {
            method,
            body,
            headers: { ...headers, authorization: `Bearer ${reader}` },
          })
        ).status,
      ).toBe(403);
    }
    expect(await blockedDomains()).toEqual([]);
  });

  it('imports Mastodon’s CSV: suspend blocks (and removes comments), silence and noop skipped, bad lines by number; again changes nothing', async () => {
    const { body, contentType } = multipart(
      fields({ content: 'Text.', category: 'More', title: 'Spoken of' }),
    );
    const created = await fetch(`${stack.baseUrl}/api/posts`, {
      method: 'POST',
      headers: { 'content-type': contentType, authorization: `Bearer ${admin}` },
      body,
    });
    const postId = ((await created.json()) as { id: number }).id;
    await firstValueFrom(
      posts.send(Patterns.posts.commentCreateRemote, {
        requestId: 'test',
        data: {
          postId,
          remoteObjectId: 'https://spam.example/notes/1',
          actor: { uri: 'https://spam.example/users/troll', name: 'troll', handle: '@troll@spam.example' },
          html: '<p>Buy now</p>',
        },
      }),
    );
    const csv = [
      BLOCKLIST_CSV_HEADER,
      'spam.example,suspend,true,true,"Spam, lots of it",false',
      'Loud.Example.,suspend,false,false,,false',
      'quiet.example,silence,false,false,,false',
      'meh.example,noop,false,false,,false',
      'not a domain,suspend,false,false,,false',
      'bad*.example,suspend,false,false,,true',
      'odd.example,destroy,false,false,,false',
      'spam.example,suspend,false,false,,false',
      '',
    ].join('\n');
    const first = await importCsv(csv);
    expect(first.status).toBe(200);
    expect(first.json).toEqual({
      added: 2,
      skipped: 3,
      removedComments: 1,
      errors: [
        { line: 6, message: expect.stringMatching(/not a domain/) },
        { line: 7, message: expect.stringMatching(/not a domain/) },
        { line: 8, message: 'severity must be suspend, silence or noop' },
      ],
    });
    expect(await blockedDomains()).toEqual(['loud.example', 'spam.example']);

    const again = await importCsv(csv);
    expect(again.json).toMatchObject({ added: 0, skipped: 5, removedComments: 0 });
    expect(await blockedDomains()).toEqual(['loud.example', 'spam.example']);

    // A form's field "file", and a list without Mastodon's header (one domain a line).
    const form = new FormData();
    form.append('file', new Blob(['plain.example\nother.example\n'], { type: 'text/csv' }), 'blocks.csv');
    const multi = await fetch(`${stack.baseUrl}/api/admin/fediverse/blocks/import`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}` },
      body: form,
    });
    expect(multi.status).toBe(200);
    expect(await multi.json()).toMatchObject({ added: 2, skipped: 0, errors: [] });
  });

  it('exports the server blocks as the same CSV, an attachment that imports back to the same list', async () => {
    const response = await fetch(`${stack.baseUrl}/api/admin/fediverse/blocks/export`, {
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(response.headers.get('content-disposition')).toMatch(
      /^attachment; filename="domain_blocks\.csv"$/,
    );
    const text = await response.text();
    const lines = text.trim().split('\n');
    expect(lines[0]).toBe(BLOCKLIST_CSV_HEADER);
    expect(lines.slice(1).sort()).toEqual([
      'loud.example,suspend,false,false,,false',
      'other.example,suspend,false,false,,false',
      'plain.example,suspend,false,false,,false',
      'spam.example,suspend,false,false,,false',
    ]);
    const before = await blockedDomains();
    expect((await importCsv(text)).json).toMatchObject({ added: 0, skipped: 4, errors: [] });
    expect(await blockedDomains()).toEqual(before);
  });

  it('refuses hostile files whole, changing nothing: too large, too many lines, binary, not CSV, empty', async () => {
    const before = await blockedDomains();
    const huge = await importCsv(`${BLOCKLIST_CSV_HEADER}\n${'a'.repeat(1024 * 1024 + 10)}`);
    expect(huge.status).toBe(413);
    const many = await importCsv(Array.from({ length: 20_001 }, (_, i) => `host${i}.example`).join('\n'));
    expect(many.status).toBe(400);
    expect(many.json.error).toMatch(/at most 20,000 lines/);
    const binary = await importCsv(
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff, 0xfe]),
    );
    expect(binary.status).toBe(400);
    expect(binary.json.error).toMatch(/not text in UTF-8/);
    const nul = await importCsv('evil.example\u0000,suspend');
    expect(nul.status).toBe(400);
    const unclosed = await importCsv(`${BLOCKLIST_CSV_HEADER}\n"evil.example,suspend`);
    expect(unclosed.status).toBe(400);
    expect(unclosed.json.error).toMatch(/not valid CSV/);
    expect((await importCsv('')).status).toBe(400);
    expect((await importCsv('{"domain":"x.example"}', admin, 'application/json')).status).toBe(415);
    expect(await blockedDomains()).toEqual(before);
  });
});
