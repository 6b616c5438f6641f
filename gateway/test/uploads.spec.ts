/**
 * /uploads/* serving: the middleware mounted on a plain Express app on a free port, over a
 * LocalFolderStorage in a temp folder. Requests go through node:http with the path sent
 * verbatim (fetch would normalise `..` away before sending it). A secret file sits just
 * outside the storage root, and no traversal attempt may return its content.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import express from 'express';
import { LocalFolderStorage, newObjectKey, type GetResult, type ObjectStorage } from '@blog/server-kit';
import { uploadEtag, uploadsMiddleware } from '../src/uploads/index.js';

const SECRET = 'SECRET-OUTSIDE-THE-STORE-7f3a';

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

describe('/uploads serving', () => {
  let dir: string;
  let storage: LocalFolderStorage;
  let server: Server;
  let port: number;
  const gets: GetResult[] = [];
  const errors: unknown[] = [];

  const video = randomBytes(3 * 1024 * 1024 + 77);
  const videoKey = newObjectKey('media', 'mp4');
  const imageKey = 'media/2026/01/photo.jpg';
  const image = Buffer.from('\xff\xd8\xff\xe0 not really a jpeg', 'latin1');

  function send(
    path: string,
    options: { method?: string; headers?: Record<string, string> } = {},
  ): Promise<Reply> {
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        { host: '127.0.0.1', port, path, method: options.method ?? 'GET', headers: options.headers },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () =>
            resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }),
          );
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end();
    });
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'blog-uploads-'));
    // <dir>/store/uploads is the root; the secrets are one and two levels above it.
    await mkdir(join(dir, 'store'), { recursive: true });
    for (const file of ['store/package.json', 'store/secret', 'package.json', 'secret']) {
      await writeFile(join(dir, file), SECRET);
    }
    storage = new LocalFolderStorage(join(dir, 'store', 'uploads'));
    await storage.ensureReady();
    await storage.put(videoKey, Readable.from([video.subarray(0, 1000), video.subarray(1000)]), {
      contentType: 'video/mp4',
    });
    await storage.put(imageKey, image, { contentType: 'image/jpeg' });
    await storage.put('private/originals/2026/01/original.jpg', Buffer.from(SECRET), {
      contentType: 'image/jpeg',
    });
    await storage.put('a/secret', Buffer.from('inside a/, fine to serve'), { contentType: 'text/plain' });
    await storage.put('media/2026/01/page.html', Buffer.from('<script>alert(1)</script>'), {
      contentType: 'text/html',
    });

    // Records the streams handed out, to check a client abort destroys them.
    const spied: ObjectStorage = Object.create(storage, {
      get: {
        value: async (key: string, range?: { start: number; end?: number }) => {
          const result = await storage.get(key, range);
          if (result) gets.push(result);
          return result;
        },
      },
    });
    const app = express();
    app.use(uploadsMiddleware(spied, { onError: (error) => errors.push(error) }));
    app.use((_req, res) => res.status(418).json({ error: 'next() was called' }));
    server = await new Promise<Server>((resolve) => {
      const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
    });
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });

  afterEach(() => {
    expect(errors).toEqual([]);
  });

  it('serves a stored file with its type, length and caching headers', async () => {
    const reply = await send(`/uploads/${videoKey}`);
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('video/mp4');
    expect(reply.headers['content-length']).toBe(String(video.length));
    expect(reply.headers['accept-ranges']).toBe('bytes');
    expect(reply.headers['x-content-type-options']).toBe('nosniff');
    expect(reply.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(reply.headers.etag).toBe(uploadEtag(videoKey, video.length));
    expect(reply.headers['content-disposition']).toBeUndefined();
    expect(createHash('sha256').update(reply.body).digest('hex')).toBe(
      createHash('sha256').update(video).digest('hex'),
    );

    const photo = await send(`/uploads/${imageKey}?v=1`);
    expect(photo.status).toBe(200);
    expect(photo.headers['content-type']).toBe('image/jpeg');
    expect(photo.body.equals(image)).toBe(true);
  });

  it.each([
    ['bytes=0-99', 0, 99],
    ['bytes=1048576-2097151', 1048576, 2097151],
    ['bytes=3000000-', 3000000, 3 * 1024 * 1024 + 76],
    ['bytes=-500', 3 * 1024 * 1024 + 77 - 500, 3 * 1024 * 1024 + 76],
    ['bytes=0-0', 0, 0],
    ['bytes=100-99999999', 100, 3 * 1024 * 1024 + 76],
  ])('answers Range %s with 206 and the exact bytes', async (range, start, end) => {
    const reply = await send(`/uploads/${videoKey}`, { headers: { Range: range } });
    expect(reply.status).toBe(206);
    expect(reply.headers['content-range']).toBe(`bytes ${start}-${end}/${video.length}`);
    expect(reply.headers['content-length']).toBe(String(end - start + 1));
    expect(reply.headers['content-type']).toBe('video/mp4');
    expect(reply.body.equals(video.subarray(start, end + 1))).toBe(true);
  });

  it.each(['bytes=99999999-', 'bytes=-0', 'bytes=10-5', 'bytes=abc', 'bytes='])(
    'answers the unsatisfiable or malformed Range %s with 416',
    async (range) => {
      const reply = await send(`/uploads/${videoKey}`, { headers: { Range: range } });
      expect(reply.status).toBe(416);
      expect(reply.headers['content-range']).toBe(`bytes */${video.length}`);
      expect(reply.body.length).toBeLessThan(100);
    },
  );

  it('sends the whole file for a Range with an If-Range of another version', async () => {
    const reply = await send(`/uploads/${videoKey}`, {
      headers: { Range: 'bytes=0-9', 'If-Range': '"old"' },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.length).toBe(video.length);
    const same = await send(`/uploads/${videoKey}`, {
      headers: { Range: 'bytes=0-9', 'If-Range': uploadEtag(videoKey, video.length) },
    });
    expect(same.status).toBe(206);
    expect(same.body.equals(video.subarray(0, 10))).toBe(true);
  });

  it('answers If-None-Match with 304 and no body', async () => {
    const first = await send(`/uploads/${imageKey}`);
    const etag = first.headers.etag!;
    for (const tag of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const reply = await send(`/uploads/${imageKey}`, { headers: { 'If-None-Match': tag } });
      expect(reply.status).toBe(304);
      expect(reply.headers.etag).toBe(etag);
      expect(reply.body.length).toBe(0);
    }
    const changed = await send(`/uploads/${imageKey}`, { headers: { 'If-None-Match': '"other"' } });
    expect(changed.status).toBe(200);
  });

  it('answers HEAD with the headers and no body', async () => {
    const reply = await send(`/uploads/${videoKey}`, { method: 'HEAD' });
    expect(reply.status).toBe(200);
    expect(reply.headers['content-length']).toBe(String(video.length));
    expect(reply.headers['content-type']).toBe('video/mp4');
    expect(reply.headers.etag).toBe(uploadEtag(videoKey, video.length));
    expect(reply.body.length).toBe(0);
    const ranged = await send(`/uploads/${videoKey}`, { method: 'HEAD', headers: { Range: 'bytes=10-19' } });
    expect(ranged.status).toBe(206);
    expect(ranged.headers['content-range']).toBe(`bytes 10-19/${video.length}`);
    expect(ranged.headers['content-length']).toBe('10');
    expect((await send('/uploads/media/none.jpg', { method: 'HEAD' })).status).toBe(404);
  });

  it('answers 404 JSON for a missing key', async () => {
    for (const path of ['/uploads/media/2026/01/missing.jpg', '/uploads/', '/uploads', '/uploads/media']) {
      const reply = await send(path);
      expect({ path, status: reply.status }).toEqual({ path, status: 404 });
      expect(JSON.parse(reply.body.toString())).toEqual({ error: 'Not found' });
    }
  });

  it('never serves private/ keys, whatever the spelling', async () => {
    for (const path of [
      '/uploads/private/originals/2026/01/original.jpg',
      '/uploads/Private/originals/2026/01/original.jpg',
      '/uploads/PRIVATE/originals/2026/01/original.jpg',
      '/uploads/%70rivate/originals/2026/01/original.jpg',
      '/uploads/media/../private/originals/2026/01/original.jpg',
      '/uploads/./private/originals/2026/01/original.jpg',
    ]) {
      for (const method of ['GET', 'HEAD']) {
        const reply = await send(path, { method });
        expect({ path, method, status: reply.status }).toEqual({ path, method, status: 404 });
        expect(reply.body.toString()).not.toContain(SECRET);
      }
    }
  });

  it.each([
    '/uploads/../package.json',
    '/uploads/../secret',
    '/uploads/../../package.json',
    '/uploads/%2e%2e/%2e%2e/package.json',
    '/uploads/%2e%2e/package.json',
    '/uploads/%2E%2E/secret',
    '/uploads/a/..%2f..%2fsecret',
    '/uploads/a/..%2F..%2Fsecret',
    '/uploads/a/%2e%2e%2f%2e%2e%2fsecret',
    '/uploads/..%5c..%5csecret',
    '/uploads/a/..\\..\\secret',
    '/uploads//etc/passwd',
    '/uploads/%2fetc%2fpasswd',
    '/uploads/a/%252e%252e/%252e%252e/secret',
    '/uploads/a/./../../secret',
    '/uploads/.%2e/secret',
  ])('keeps %s inside the store', async (path) => {
    for (const method of ['GET', 'HEAD']) {
      const reply = await send(path, { method });
      expect({ path, status: reply.status }).toEqual({ path, status: 404 });
      expect(reply.body.toString('latin1')).not.toContain(SECRET);
      if (method === 'GET') expect(JSON.parse(reply.body.toString())).toEqual({ error: 'Not found' });
    }
  });

  it('serves anything but images, video and audio as a sandboxed download', async () => {
    const reply = await send('/uploads/media/2026/01/page.html');
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('text/html');
    expect(reply.headers['content-disposition']).toBe('attachment');
    expect(reply.headers['content-security-policy']).toBe("default-src 'none'; sandbox");
    expect(reply.headers['x-content-type-options']).toBe('nosniff');
  });

  it('leaves other paths and methods to the next handler', async () => {
    expect((await send('/api/health')).status).toBe(418);
    expect((await send('/uploadsx/a.jpg')).status).toBe(418);
    expect((await send(`/uploads/${imageKey}`, { method: 'POST' })).status).toBe(418);
    expect((await send(`/uploads/${imageKey}`, { method: 'DELETE' })).status).toBe(418);
    expect(await storage.stat(imageKey)).not.toBeNull();
  });

  it('destroys the storage stream when the client goes away mid-body', async () => {
    const big = 'media/2026/01/big.bin';
    await storage.put(
      big,
      Readable.from(
        (function* () {
          for (let i = 0; i < 256; i++) yield randomBytes(256 * 1024);
        })(),
      ),
      { contentType: 'video/mp4' },
    ); // 64 MB: far more than the socket buffers hold
    gets.length = 0;
    await new Promise<void>((resolve) => {
      const req = httpRequest({ host: '127.0.0.1', port, path: `/uploads/${big}` }, (res) => {
        expect(res.statusCode).toBe(200);
        res.once('data', () => {
          req.destroy();
          resolve();
        });
      });
      req.on('error', () => {});
      req.on('close', resolve);
      req.end();
    });
    expect(gets).toHaveLength(1);
    const deadline = Date.now() + 5000;
    while (!gets[0].body.destroyed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(gets[0].body.destroyed).toBe(true);
    // the server is still fine afterwards
    expect((await send(`/uploads/${imageKey}`)).status).toBe(200);
    await storage.delete(big);
  });
});
