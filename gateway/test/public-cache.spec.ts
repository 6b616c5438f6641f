import express from 'express';
import { request, type IncomingHttpHeaders, type Server } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { freePort } from '@blog/server-kit/testing';
import { PublicCache } from '../src/common/public-cache.js';

const BIG = Array.from({ length: 200 }, (_, id) => ({ id, title: `Post ${id}`, tags: ['garage'] }));

/** GET without fetch's own Accept-Encoding and decompression. */
function rawGet(url: string, headers: Record<string, string>) {
  return new Promise<{ headers: IncomingHttpHeaders; body: Buffer }>((answer, reject) => {
    request(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => answer({ headers: res.headers, body: Buffer.concat(chunks) }));
    })
      .on('error', reject)
      .end();
  });
}

/** The cache in front of a plain Express handler that counts its calls and answers slowly. */
async function serve(cache: PublicCache) {
  let calls = 0;
  let version = 1;
  let failing = false;
  const app = express();
  app.use(cache.middleware());
  app.get('/api/posts', async (_req, res) => {
    calls++;
    if (failing) return void res.status(503).json({ error: 'Service unavailable' });
    const answer = { version };
    await new Promise((r) => setTimeout(r, 100));
    res.setHeader('X-Total-Count', '7');
    res.json(answer);
  });
  app.get('/api/posts/all', (_req, res) => void res.json(BIG));
  app.get('/api/posts/missing', (_req, res) => void res.status(404).json({ error: 'Post not found' }));
  const port = await freePort();
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(port, '127.0.0.1', () => resolve(s));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    calls: () => calls,
    bump: () => version++,
    fail: (on: boolean) => (failing = on),
    close: () => new Promise((r) => server.close(r)),
  };
}

describe('public cache', () => {
  it('computes a memoised value once for everyone who asks within the TTL; a write or a failure drops it', async () => {
    const cache = new PublicCache(60_000);
    let calls = 0;
    const compute = async () => {
      calls++;
      await new Promise((r) => setTimeout(r, 20));
      return { status: calls === 3 ? 503 : 200, calls };
    };
    const keep = (page: { status: number }) => page.status !== 503;
    const burst = await Promise.all(Array.from({ length: 10 }, () => cache.memo('page /', compute, keep)));
    expect(calls).toBe(1);
    expect(new Set(burst.map((p) => p.calls))).toEqual(new Set([1]));
    cache.clear();
    expect((await cache.memo('page /', compute, keep)).calls).toBe(2);
    expect((await cache.memo('page /', compute, keep)).calls).toBe(2);
    cache.clear();
    // A failed computation: the last good value answers (stale-if-error), and is not kept.
    expect(await cache.memo('page /', compute, keep)).toEqual({ status: 200, calls: 2 });
    expect((await cache.memo('page /', compute, keep)).calls).toBe(4);
    await expect(cache.memo('fails', () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(await cache.memo('fails', async () => 'back')).toBe('back');
  });

  it('sends large answers compressed as the client asks, under one ETag', async () => {
    const app = await serve(new PublicCache(60_000));
    try {
      const url = `${app.url}/api/posts/all`;
      const br = await rawGet(url, { 'accept-encoding': 'gzip, deflate, br' });
      const gzip = await rawGet(url, { 'accept-encoding': 'gzip' });
      const plain = await rawGet(url, {});
      expect([br, gzip, plain].map((r) => r.headers['content-encoding'])).toEqual(['br', 'gzip', undefined]);
      const json = JSON.stringify(BIG);
      expect(brotliDecompressSync(br.body).toString()).toBe(json);
      expect(gunzipSync(gzip.body).toString()).toBe(json);
      expect(plain.body.toString()).toBe(json);
      expect(br.body.length).toBeLessThan(json.length / 5);
      expect(new Set([br, gzip, plain].map((r) => r.headers.etag)).size).toBe(1);
      expect(br.headers.vary).toMatch(/Accept-Encoding/i);
      // A small answer is not worth it.
      const small = await rawGet(`${app.url}/api/posts`, { 'accept-encoding': 'br' });
      expect(small.headers['content-encoding']).toBeUndefined();
    } finally {
      await app.close();
    }
  });

  it('answers a burst with one handler call, with ETag, the kept headers and 304', async () => {
    const app = await serve(new PublicCache(60_000));
    try {
      const answers = await Promise.all(Array.from({ length: 20 }, () => fetch(`${app.url}/api/posts`)));
      expect(app.calls()).toBe(1);
      const bodies = await Promise.all(answers.map((a) => a.json()));
      expect(new Set(bodies.map((b) => JSON.stringify(b)))).toEqual(new Set(['{"version":1}']));
      const etag = answers[0]!.headers.get('etag')!;
      expect(
        answers.every((a) => a.headers.get('x-total-count') === '7' && a.headers.get('etag') === etag),
      ).toBe(true);
      const again = await fetch(`${app.url}/api/posts`, { headers: { 'if-none-match': etag } });
      expect(again.status).toBe(304);
      expect(app.calls()).toBe(1);
    } finally {
      await app.close();
    }
  });

  it('refreshes after the TTL, serving the previous answer meanwhile', async () => {
    const app = await serve(new PublicCache(50, { staleMs: 10_000 }));
    try {
      await fetch(`${app.url}/api/posts`);
      app.bump();
      await new Promise((r) => setTimeout(r, 80));
      const [leader, follower] = await Promise.all([
        fetch(`${app.url}/api/posts`),
        fetch(`${app.url}/api/posts`),
      ]);
      // One refreshes (new version); the other got the stale answer at once.
      expect([await leader.json(), await follower.json()].map((b) => b.version).sort()).toEqual([1, 2]);
      expect(app.calls()).toBe(2);
    } finally {
      await app.close();
    }
  });

  it('is cleared by a write, bypassed with an Authorization header, and never caches errors', async () => {
    const cache = new PublicCache(60_000);
    const app = await serve(cache);
    try {
      await fetch(`${app.url}/api/posts`);
      app.bump();
      expect(await (await fetch(`${app.url}/api/posts`)).json()).toEqual({ version: 1 });
      cache.clear();
      expect(await (await fetch(`${app.url}/api/posts`)).json()).toEqual({ version: 2 });
      await fetch(`${app.url}/api/posts`, { headers: { authorization: 'Bearer x' } });
      expect(app.calls()).toBe(3);
      for (let i = 0; i < 2; i++) expect((await fetch(`${app.url}/api/posts/missing`)).status).toBe(404);
    } finally {
      await app.close();
    }
  });

  it('serves the last good answer when the service fails (stale-if-error), for a while, and fresh ones after', async () => {
    const cache = new PublicCache(50, { staleIfErrorMs: 400 });
    const app = await serve(cache);
    try {
      const first = await fetch(`${app.url}/api/posts`);
      expect([first.status, first.headers.get('x-cache')]).toEqual([200, null]);
      cache.clear(); // a write: the answer is gone from the cache, not from what a failure may serve
      app.fail(true);
      await new Promise((r) => setTimeout(r, 60));
      const stale = await fetch(`${app.url}/api/posts`);
      expect([stale.status, stale.headers.get('x-cache'), await stale.json()]).toEqual([
        200,
        'stale',
        { version: 1 },
      ]);
      expect(stale.headers.get('x-total-count')).toBe('7');
      expect(cache.staleServed).toBe(1);
      // Never for a path that never answered, and not past staleIfErrorMs.
      expect((await fetch(`${app.url}/api/posts?page=2`)).status).toBe(503);
      await new Promise((r) => setTimeout(r, 450));
      expect((await fetch(`${app.url}/api/posts`)).status).toBe(503);
      app.fail(false);
      app.bump();
      const fresh = await fetch(`${app.url}/api/posts`);
      expect([fresh.status, fresh.headers.get('x-cache'), await fresh.json()]).toEqual([
        200,
        null,
        { version: 2 },
      ]);
    } finally {
      await app.close();
    }
  });

  it('lets go of what it can no longer serve, so a quiet blog does not keep a crawl in memory', async () => {
    const cache = new PublicCache(1000, { staleMs: 5000, staleIfErrorMs: 20_000 });
    const app = await serve(cache);
    try {
      for (const page of [1, 2, 3])
        expect((await fetch(`${app.url}/api/posts?page=${page}`)).status).toBe(200);
      await cache.memo('page /', async () => ({ status: 200, html: 'good' }));
      const start = Date.now();
      expect(cache.size).toBe(3 + 3 + 1 + 1); // answers and their last good copies, a value and its copy
      cache.prune(start + 2000); // past the TTL: only the memoised value goes (answers serve stale to 5 s)
      expect(cache.size).toBe(3 + 3 + 1);
      cache.prune(start + 10_000); // past staleMs: the answers go; the last good copies stay for failures
      expect(cache.size).toBe(3 + 1);
      cache.prune(start + 30_000); // past stale-if-error: nothing could be served any more
      expect(cache.size).toBe(0);
      // And it still answers, from the service again.
      const calls = app.calls();
      expect((await fetch(`${app.url}/api/posts?page=1`)).status).toBe(200);
      expect(app.calls()).toBe(calls + 1);
    } finally {
      await app.close();
    }
  });

  it('memoised values (pages, feeds) fall back to the last good one when computing fails', async () => {
    const cache = new PublicCache(10, { staleIfErrorMs: 400 });
    expect(await cache.memo('page /', async () => ({ status: 200, html: 'good' }))).toEqual({
      status: 200,
      html: 'good',
    });
    await new Promise((r) => setTimeout(r, 20));
    const down = { status: 503, html: 'down' };
    expect(
      await cache.memo(
        'page /',
        async () => down,
        (page) => page.status !== 503,
      ),
    ).toEqual({
      status: 200,
      html: 'good',
    });
    await new Promise((r) => setTimeout(r, 20));
    await expect(cache.memo('page /', () => Promise.reject(new Error('broker down')))).resolves.toEqual({
      status: 200,
      html: 'good',
    });
    await expect(cache.memo('page /other', () => Promise.reject(new Error('broker down')))).rejects.toThrow(
      'broker down',
    );
    await new Promise((r) => setTimeout(r, 450));
    expect(
      await cache.memo(
        'page /',
        async () => down,
        (page) => page.status !== 503,
      ),
    ).toEqual(down);
  });
});
