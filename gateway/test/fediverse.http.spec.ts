/**
 * The gateway's side of the federation, through the real gateway, services and built web app:
 * webfinger and the actor answered by social over RPC with their content types; the gateway's
 * own rules before anything is forwarded (405, 413 by length and by a chunked body's growth,
 * 415, 429 per address with Retry-After, a server's count spent only by verified POSTs); a post's
 * stable URL answering the Article to ActivityPub clients and the page to browsers, never one for
 * the other; the page's alternate link for a visible post only; 503 with Retry-After when social
 * is down.
 */
import {
  FEDERATION_INBOX_POSTS_PER_ADDRESS_PER_MINUTE,
  FEDERATION_INBOX_POSTS_PER_SERVER_PER_MINUTE,
  FEDERATION_MAX_BODY_BYTES,
  FEDERATION_READS_PER_ADDRESS_PER_MINUTE,
  FederationErrors,
} from '@blog/contracts';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { startPeer, type Peer } from '../../libs/federation/test/support/peer.js';
import { fields, multipart } from './support/media-fixtures.js';
import {
  ACTIVITY_JSON,
  freshMinute,
  raw,
  signatureHeader,
  SITE_URL,
  startFediverseStack,
  type RawAnswer,
} from './support/fediverse.js';
import { ADMIN, loginAs, type TestStack } from './support/test-stack.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const DIST = join(import.meta.dirname, '../../web/dist');
const ALTERNATE = /<link rel="alternate" type="application\/activity\+json" href="([^"]*)" \/>/;

/** `count` requests made by `make(i)`, 25 at a time: their statuses in order. */
async function many(count: number, make: (i: number) => Promise<RawAnswer>): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < count; i += 25) {
    const batch = Array.from({ length: Math.min(25, count - i) }, (_, j) => make(i + j));
    statuses.push(...(await Promise.all(batch)).map((answer) => answer.status));
  }
  return statuses;
}

describe('federation through the gateway', () => {
  let stack: TestStack;
  let admin: string;
  let published: Json;
  let draft: Json;

  const create = async (values: Record<string, string>): Promise<Json> => {
    const { body, contentType } = multipart(fields(values));
    const response = await fetch(`${stack.baseUrl}/api/posts`, {
      method: 'POST',
      headers: { 'content-type': contentType, authorization: `Bearer ${admin}` },
      body,
    });
    const json = (await response.json()) as Json;
    if (response.status !== 201) throw new Error(`create failed: ${response.status} ${JSON.stringify(json)}`);
    return json;
  };
  /** An inbox POST the gateway refuses by its length alone (nothing is sent, nothing forwarded). */
  const oversized = (from: string, headers: Record<string, string> = {}) =>
    raw(stack, '/ap/inbox', {
      method: 'POST',
      headers: {
        'content-type': ACTIVITY_JSON,
        'content-length': String(FEDERATION_MAX_BODY_BYTES + 1),
        'x-forwarded-for': from,
        ...headers,
      },
    });

  beforeAll(async () => {
    stack = await startFediverseStack({ WEB_DIST: DIST });
    admin = await loginAs(stack, ADMIN.username, ADMIN.password);
    published = await create({ title: 'Fitted new tyres', content: 'Four of them.', category: 'Projects' });
    draft = await create({ title: 'Not yet', content: 'Soon.', category: 'Projects', status: 'draft' });
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('answers webfinger (JRD) and the actor (activity+json) from social, ids on SITE_URL', async () => {
    const finger = await raw(stack, `/.well-known/webfinger?resource=acct:blog@${new URL(SITE_URL).host}`);
    expect(finger.status).toBe(200);
    expect(finger.headers['content-type']).toMatch(/^application\/jrd\+json/);
    const self = (JSON.parse(finger.body) as Json).links.find((link: Json) => link.rel === 'self');
    expect(self).toEqual({ rel: 'self', type: ACTIVITY_JSON, href: `${SITE_URL}/ap/actor/blog` });

    const actor = await raw(stack, '/ap/actor/blog', { headers: { accept: ACTIVITY_JSON } });
    expect(actor.status).toBe(200);
    expect(actor.headers['content-type']).toMatch(/^application\/activity\+json/);
    expect(JSON.parse(actor.body)).toMatchObject({
      id: `${SITE_URL}/ap/actor/blog`,
      type: 'Person',
      inbox: `${SITE_URL}/ap/actor/blog/inbox`,
    });
    const head = await raw(stack, '/ap/actor/blog', { method: 'HEAD', headers: { accept: ACTIVITY_JSON } });
    expect([head.status, head.body]).toEqual([200, '']);
    // A browser on the actor's URL: the blog's own 404, and the gateway keeps running (G3 in
    // docs/design/fediverse.md).
    const browser = await raw(stack, '/ap/actor/blog', { headers: { accept: 'text/html' } });
    expect(browser.status).toBe(404);
    expect((await raw(stack, '/api/health')).status).toBe(200);
  });

  it('answers a post’s stable URL with the Article to ActivityPub clients and the page to browsers, never one for the other', async () => {
    const path = `/post/${published.id}`;
    const asBrowser = () => raw(stack, path, { headers: { accept: 'text/html,application/xhtml+xml' } });
    const asClient = () => raw(stack, path, { headers: { accept: ACTIVITY_JSON } });
    for (const read of [asBrowser, asClient, asClient, asBrowser, asBrowser, asClient]) {
      const answer = await read();
      expect(answer.headers.vary).toMatch(/\bAccept\b/i);
      if (read === asBrowser) {
        // The stable URL sends a reader to the post's page.
        expect(answer.status).toBe(302);
        expect(answer.headers.location).toBe(published.url);
        expect(answer.headers['content-type'] ?? '').not.toMatch(/json/);
      } else {
        expect(answer.status).toBe(200);
        expect(answer.headers['content-type']).toMatch(/^application\/activity\+json/);
        expect(JSON.parse(answer.body)).toMatchObject({ id: `${SITE_URL}${path}`, type: 'Article' });
      }
    }
    const page = await raw(stack, published.url as string);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
  });

  it('links a visible post’s Article from its page, and a draft’s never', async () => {
    const page = await raw(stack, published.url as string);
    expect(ALTERNATE.exec(page.body)?.[1]).toBe(`${SITE_URL}/post/${published.id}`);
    const draftPath = `/projects/${draft.slug}`;
    const asAdmin = await raw(stack, draftPath, { headers: { authorization: `Bearer ${admin}` } });
    expect(asAdmin.status).toBe(200);
    expect(asAdmin.body).toContain('Not yet');
    expect(asAdmin.body).not.toMatch(ALTERNATE);
    const guest = await raw(stack, draftPath);
    expect(guest.status).toBe(404);
    expect(guest.body).not.toMatch(ALTERNATE);
    // Nor does an ActivityPub client get the draft's Article: the blog's own route answers, as for
    // an unknown id (to the home page).
    const asClient = await raw(stack, `/post/${draft.id}`, { headers: { accept: ACTIVITY_JSON } });
    expect([asClient.status, asClient.headers.location]).toEqual([302, '/']);
    expect(asClient.body).not.toContain('Not yet');
  });

  it('answers 405 to any method but GET, HEAD and POST', async () => {
    for (const [method, path] of [
      ['PUT', '/ap/inbox'],
      ['DELETE', '/ap/actor/blog'],
      ['PATCH', '/.well-known/webfinger'],
      ['OPTIONS', '/.well-known/nodeinfo'],
    ] as const) {
      const answer = await raw(stack, path, { method, headers: { 'x-forwarded-for': '198.51.100.1' } });
      expect([method, path, answer.status, answer.headers.allow]).toEqual([
        method,
        path,
        405,
        'GET, HEAD, POST',
      ]);
      expect(JSON.parse(answer.body)).toEqual({ error: FederationErrors.methodNotAllowed });
    }
  });

  it('answers 413 to an inbox body past the cap, by its length or as it grows, without reading on', async () => {
    const byLength = await raw(stack, '/ap/inbox', {
      method: 'POST',
      headers: { 'content-type': ACTIVITY_JSON, 'x-forwarded-for': '198.51.100.2' },
      body: Buffer.alloc(FEDERATION_MAX_BODY_BYTES + 1, ' '),
    });
    expect(byLength.status).toBe(413);
    expect(byLength.headers.connection).toBe('close');
    const chunked = await raw(stack, '/ap/actor/blog/inbox', {
      method: 'POST',
      headers: { 'content-type': ACTIVITY_JSON, 'x-forwarded-for': '198.51.100.2' },
      body: 'endless',
      timeoutMs: 5000,
    });
    expect(chunked.status).toBe(413);
    expect(chunked.headers.connection).toBe('close');
    expect(chunked.ms).toBeLessThan(2000);
  });

  it('answers 408 to a body that drips in slower than the gateway waits', async () => {
    const { port } = new URL(stack.baseUrl);
    const started = performance.now();
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest({
        host: '127.0.0.1',
        port: Number(port),
        path: '/ap/inbox',
        method: 'POST',
        headers: { 'content-type': ACTIVITY_JSON, 'x-forwarded-for': '198.51.100.4' },
        agent: false,
      });
      const drip = setInterval(() => req.write(' '), 500);
      req.on('response', (res) => {
        clearInterval(drip);
        req.destroy();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', (error) => {
        clearInterval(drip);
        reject(error);
      });
    });
    expect(status).toBe(408);
    expect(performance.now() - started).toBeGreaterThan(9000);
  }, 30_000);

  it('answers 431 past the headers the federation takes (200, each at most 8 KB)', async () => {
    const many = Object.fromEntries(Array.from({ length: 201 }, (_, i) => [`x-extra-${i}`, 'a']));
    expect((await raw(stack, '/ap/actor/blog', { headers: { accept: ACTIVITY_JSON, ...many } })).status).toBe(
      431,
    );
    const long = { accept: ACTIVITY_JSON, 'x-long': 'a'.repeat(8193) };
    expect((await raw(stack, '/ap/actor/blog', { headers: long })).status).toBe(431);
    const fine = { accept: ACTIVITY_JSON, 'x-long': 'a'.repeat(8192) };
    expect((await raw(stack, '/ap/actor/blog', { headers: fine })).status).toBe(200);
  });

  it('answers 415 to an inbox body that is not ActivityStreams JSON', async () => {
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/activity+jsonx',
      '',
    ]) {
      const answer = await raw(stack, '/ap/inbox', {
        method: 'POST',
        headers: { ...(type ? { 'content-type': type } : {}), 'x-forwarded-for': '198.51.100.3' },
        body: '{"type":"Follow"}',
      });
      expect([type, answer.status]).toEqual([type, 415]);
    }
  });

  it('limits inbox POSTs per address: 429 with Retry-After past the minute’s count, other addresses unaffected', async () => {
    await freshMinute();
    const statuses = await many(FEDERATION_INBOX_POSTS_PER_ADDRESS_PER_MINUTE, () =>
      oversized('203.0.113.10'),
    );
    expect(new Set(statuses)).toEqual(new Set([413]));
    const limited = await oversized('203.0.113.10');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(JSON.parse(limited.body)).toEqual({ error: FederationErrors.tooManyRequests });
    // Another address is not held back.
    expect((await oversized('203.0.113.11')).status).toBe(413);
  }, 60_000);

  it("does not let junk that only names a server's key spend that server's minute: its signed reply still lands", async () => {
    await freshMinute(40_000);
    const peer: Peer = await startPeer();
    try {
      const alice = await peer.account('alice');
      const follow = (n: number) => ({
        '@context': 'https://www.w3.org/ns/activitystreams',
        id: `${peer.origin}/follows/${n}`,
        type: 'Follow',
        actor: alice.actorId,
        object: `${SITE_URL}/ap/actor/blog`,
      });
      // Three addresses, each its whole minute of well-formed but unverifiable POSTs naming alice's key:
      // more than the server's own minute.
      const junk = { signature: signatureHeader(alice.keyId) };
      const statuses = await many(3 * FEDERATION_INBOX_POSTS_PER_ADDRESS_PER_MINUTE, (i) =>
        raw(stack, '/ap/inbox', {
          method: 'POST',
          headers: {
            'content-type': ACTIVITY_JSON,
            'x-forwarded-for': `198.51.100.${7 + (i % 3)}`,
            ...junk,
          },
          body: JSON.stringify(follow(i)),
        }),
      );
      expect(new Set(statuses)).toEqual(new Set([401]));
      expect(3 * FEDERATION_INBOX_POSTS_PER_ADDRESS_PER_MINUTE).toBeGreaterThan(
        FEDERATION_INBOX_POSTS_PER_SERVER_PER_MINUTE,
      );
      // Alice's server then sends a correctly signed Follow from a third address: taken.
      const signed = await peer.signedPost(
        `${SITE_URL}/ap/inbox`,
        follow(9999),
        alice.rsa.privateKey,
        alice.keyId,
      );
      const headers: Record<string, string> = { 'x-forwarded-for': '198.51.100.20' };
      signed.headers.forEach((value, key) => (headers[key] = value));
      const answer = await raw(stack, '/ap/inbox', { method: 'POST', headers, body: await signed.text() });
      expect(answer.status).toBe(202);
    } finally {
      await peer.close();
    }
  }, 120_000);

  it('limits other federation requests per address (429 with Retry-After)', async () => {
    await freshMinute();
    const from = { 'x-forwarded-for': '2001:db8:7:7::1' };
    const statuses = await many(FEDERATION_READS_PER_ADDRESS_PER_MINUTE, (i) =>
      // Another host of the same /64 each time: they count together.
      raw(stack, '/.well-known/nodeinfo', {
        headers: { 'x-forwarded-for': `2001:db8:7:7::${(i % 200) + 1}` },
      }),
    );
    expect(statuses).not.toContain(429);
    const limited = await raw(stack, '/.well-known/nodeinfo', { headers: from });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // The blog's own routes are not federation requests: never limited by it.
    expect((await raw(stack, '/api/posts?limit=1', { headers: from })).status).toBe(200);
    expect(
      (await raw(stack, '/.well-known/nodeinfo', { headers: { 'x-forwarded-for': '2001:db8:8::1' } })).status,
    ).not.toBe(429);
  }, 60_000);

  it('answers 503 with Retry-After when social is down, and the rest of the site keeps answering', async () => {
    await stack.services.social!.close();
    const answer = await raw(stack, '/ap/actor/blog', { headers: { accept: ACTIVITY_JSON } });
    expect(answer.status).toBe(503);
    expect(answer.headers['retry-after']).toBe('5');
    expect(answer.ms).toBeLessThan(6000);
    expect((await raw(stack, '/api/posts?limit=1')).status).toBe(200);
  });
});
