/**
 * A remote author's avatar cached by the real media service (media.avatar.cache over TCP), from
 * a picture server on loopback (allowed here by OUTBOUND_ALLOW=127.0.0.1, as an operator's
 * exception): stored as our own 96x96 WebP, answered again without a fetch for a week, and
 * every hostile answer (a private address, 50 MB, a non-image typed as PNG, a decompression
 * bomb, a trickling body, an HTML page) ended with a clear error within a bounded time, the
 * bytes read bounded too.
 */
import type { INestMicroservice } from '@nestjs/common';
import { Patterns, type RpcErrorBody } from '@blog/contracts';
import { LocalFolderStorage, OutboundAllowList } from '@blog/server-kit';
import {
  createTestDatabase,
  freePort,
  rpcTestClient,
  type RpcTestClient,
  type TestDatabase,
} from '@blog/server-kit/testing';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { AVATAR_FOLDER, AVATAR_LIMITS, AvatarCache } from '../src/avatars/avatar-cache.js';
import { loadMediaConfig, startMediaService } from '../src/index.js';

/** A PNG chunk: length, type, data, CRC. */
function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body) >>> 0);
  return Buffer.concat([length, body, crc]);
}

/** A 30000x30000 single-colour greyscale PNG: its first rows only, a few KB that claim 900 million pixels. */
function pngBomb(): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(30_000, 0);
  header.writeUInt32BE(30_000, 4);
  header[8] = 8; // bit depth
  header[9] = 0; // greyscale
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', deflateSync(Buffer.alloc(30_001 * 64))),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** The picture server's answers; `hits` counts requests by path. */
interface PictureServer {
  url: string;
  hits: Map<string, number>;
  /** Bytes the /endless answer wrote before its client hung up. */
  endlessBytes: number;
  /** /flaky.png answers 500 while true. */
  flakyDown: boolean;
  close(): Promise<void>;
}

async function startPictureServer(face: Buffer): Promise<PictureServer> {
  const server: Server = createServer();
  const state: PictureServer = {
    url: '',
    hits: new Map(),
    endlessBytes: 0,
    flakyDown: false,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const send = (res: ServerResponse, type: string, body: Buffer | string) => {
    res.writeHead(200, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
    res.end(body);
  };
  const timers = new Set<NodeJS.Timeout>();
  server.on('close', () => timers.forEach(clearInterval));
  server.on('request', (req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    state.hits.set(path, (state.hits.get(path) ?? 0) + 1);
    switch (path) {
      case '/face.png':
        return send(res, 'image/png', face);
      case '/flaky.png':
        if (state.flakyDown) {
          res.writeHead(500).end();
          return;
        }
        return send(res, 'image/png', face);
      case '/moved':
        res.writeHead(302, { location: '/face.png' }).end();
        return;
      case '/fifty-megabytes.png':
        // Declared: refused before a byte of the body is read.
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(50 * 1024 * 1024) });
        res.end(face);
        return;
      case '/endless.png': {
        // No length: 64 KB after 64 KB until the client hangs up (50 MB at most).
        res.writeHead(200, { 'content-type': 'image/png' });
        const block = Buffer.alloc(64 * 1024, 7);
        const more = () => {
          while (state.endlessBytes < 50 * 1024 * 1024 && !res.destroyed) {
            state.endlessBytes += block.length;
            if (!res.write(block)) return res.once('drain', more);
          }
          res.end();
        };
        res.on('close', () => res.destroy());
        more();
        return;
      }
      case '/text.png':
        return send(res, 'image/png', 'this is not a picture at all, only words. '.repeat(50));
      case '/bomb.png':
        return send(res, 'image/png', pngBomb());
      case '/page.html':
        return send(res, 'text/html; charset=utf-8', '<!doctype html><title>Hello</title><img src=x>');
      case '/drawing.svg':
        return send(res, 'image/svg+xml', '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>');
      case '/slow.png': {
        // The headers at once, then one byte every 300 ms: never finished within the limit.
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(face.length) });
        let sent = 0;
        const timer = setInterval(() => {
          if (res.destroyed || sent >= face.length) return clearInterval(timer);
          res.write(face.subarray(sent, ++sent));
        }, 300);
        timers.add(timer);
        res.on('close', () => clearInterval(timer));
        return;
      }
      default:
        res.writeHead(404, { 'content-type': 'text/plain' }).end('no such picture');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}

/** A 300x200 PNG: left half red, right half blue (cropped to cover, the square keeps both). */
async function makeFace(): Promise<Buffer> {
  return sharp({ create: { width: 300, height: 200, channels: 3, background: { r: 220, g: 0, b: 0 } } })
    .composite([
      {
        input: { create: { width: 150, height: 200, channels: 3, background: { r: 0, g: 0, b: 220 } } },
        left: 150,
        top: 0,
      },
    ])
    .png()
    .withExif({ IFD0: { Make: 'RemoteCam' } })
    .toBuffer();
}

describe('media.avatar.cache', () => {
  let db: TestDatabase;
  let dataDir: string;
  let media: INestMicroservice;
  let rpc: RpcTestClient;
  let pictures: PictureServer;
  let face: Buffer;

  beforeAll(async () => {
    face = await makeFace();
    pictures = await startPictureServer(face);
    db = await createTestDatabase('avatars');
    dataDir = await mkdtemp(join(tmpdir(), 'avatars-'));
    const port = await freePort();
    const env = {
      DATABASE_URL: db.url,
      DATA_DIR: dataDir,
      MEDIA_PORT: String(port),
      LOG_LEVEL: 'error',
      OUTBOUND_ALLOW: '127.0.0.1',
    };
    media = await startMediaService(loadMediaConfig(env), env);
    rpc = rpcTestClient(port);
  }, 60_000);

  afterAll(async () => {
    rpc?.close();
    await media?.close();
    await pictures?.close();
    await db?.drop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  const cache = (url: string) => rpc.send<{ key: string }>(Patterns.media.cacheAvatar, { url });
  /** The refusal and how long it took. */
  const refusal = async (url: string): Promise<{ error: RpcErrorBody; ms: number }> => {
    const started = Date.now();
    const error = await rpc.failure(Patterns.media.cacheAvatar, { url });
    return { error, ms: Date.now() - started };
  };
  const stored = (key: string) => readFile(join(dataDir, 'uploads', key));

  it('stores our own 96x96 WebP of the picture, without its metadata, under a public key', async () => {
    const { key } = await cache(`${pictures.url}/face.png`);
    expect(key).toMatch(new RegExp(`^${AVATAR_FOLDER}/[0-9a-f]{64}/\\d{12}\\.webp$`));
    const bytes = await stored(key);
    expect(bytes.equals(face)).toBe(false);
    expect(bytes.includes(Buffer.from('RemoteCam'))).toBe(false);
    const meta = await sharp(bytes).metadata();
    expect([meta.format, meta.width, meta.height, meta.exif]).toEqual(['webp', 96, 96, undefined]);
    // Cropped to cover: the square's left edge red, its right edge blue.
    const { data } = await sharp(bytes).raw().toBuffer({ resolveWithObject: true });
    const pixel = (x: number, y: number) => [...data.subarray((y * 96 + x) * 3, (y * 96 + x) * 3 + 3)];
    expect(pixel(2, 48)[0]).toBeGreaterThan(150);
    expect(pixel(93, 48)[2]).toBeGreaterThan(150);
  });

  it('answers the same URL again without a fetch, and callers at once share one fetch', async () => {
    const url = `${pictures.url}/face.png?same`;
    const before = pictures.hits.get('/face.png') ?? 0;
    const [a, b, c] = await Promise.all([cache(url), cache(url), cache(url)]);
    expect(new Set([a.key, b.key, c.key]).size).toBe(1);
    expect(await cache(url)).toEqual(a);
    expect(pictures.hits.get('/face.png')).toBe(before + 1);
  });

  it('fetches again after a week under a new key, the old copy kept; an older copy answers when the server fails', async () => {
    const url = `${pictures.url}/flaky.png`;
    const { key: first } = await cache(url);
    // The same storage as the service's, a clock eight days on.
    const storage = new LocalFolderStorage(join(dataDir, 'uploads'));
    const later = new AvatarCache(storage, {
      allow: OutboundAllowList.parse('127.0.0.1'),
      now: () => Date.now() + 8 * 24 * 3600 * 1000,
    });
    const second = await later.cache(url);
    expect(second).not.toBe(first);
    expect(second.slice(0, second.lastIndexOf('/'))).toBe(first.slice(0, first.lastIndexOf('/')));
    expect(pictures.hits.get('/flaky.png')).toBe(2);
    expect((await stored(first)).length).toBeGreaterThan(0);
    // A week after that the server fails: the newest copy still answers.
    pictures.flakyDown = true;
    const muchLater = new AvatarCache(storage, {
      allow: OutboundAllowList.parse('127.0.0.1'),
      now: () => Date.now() + 16 * 24 * 3600 * 1000,
    });
    expect(await muchLater.cache(url)).toBe(second);
    expect(pictures.hits.get('/flaky.png')).toBe(3);
  });

  it('follows a redirect (checked again by the fetcher)', async () => {
    const { key } = await cache(`${pictures.url}/moved`);
    expect((await sharp(await stored(key)).metadata()).width).toBe(96);
  });

  it('refuses loopback when OUTBOUND_ALLOW does not name it, without a request reaching the server', async () => {
    const storage = new LocalFolderStorage(join(dataDir, 'uploads'));
    const strict = new AvatarCache(storage);
    const before = pictures.hits.get('/face.png');
    await expect(strict.cache(`${pictures.url}/face.png?strict`)).rejects.toMatchObject({
      body: { status: 422, error: expect.stringMatching(/not cached: refused: private address/) },
    });
    expect(pictures.hits.get('/face.png')).toBe(before);
  });

  describe('hostile answers end in a clear error, in bounded time', () => {
    it('a private address other than the allowed one (cloud metadata)', async () => {
      const { error, ms } = await refusal('http://169.254.169.254/latest/meta-data/avatar.png');
      expect(error).toMatchObject({ status: 422, error: expect.stringMatching(/refused: private address/) });
      expect(ms).toBeLessThan(2_000);
    });

    it('a declared 50 MB body, refused before it is read', async () => {
      const { error, ms } = await refusal(`${pictures.url}/fifty-megabytes.png`);
      expect(error).toMatchObject({ status: 422, error: expect.stringMatching(/larger than 2 MB/) });
      expect(ms).toBeLessThan(2_000);
    });

    it('an endless body without a length, cut past 2 MB', async () => {
      const { error, ms } = await refusal(`${pictures.url}/endless.png`);
      expect(error).toMatchObject({ status: 422, error: expect.stringMatching(/larger than 2 MB/) });
      expect(ms).toBeLessThan(3_000);
      // What the server managed to write before the hang-up: socket buffers past the cap, not 50 MB.
      expect(pictures.endlessBytes).toBeLessThan(12 * 1024 * 1024);
    });

    it('words typed image/png', async () => {
      const { error, ms } = await refusal(`${pictures.url}/text.png`);
      expect(error).toMatchObject({ status: 422, error: expect.stringMatching(/not a readable image/) });
      expect(ms).toBeLessThan(2_000);
    });

    it('a decompression bomb (a 30000x30000 PNG of a few KB), refused before decoding', async () => {
      const rssBefore = process.memoryUsage().rss;
      const { error, ms } = await refusal(`${pictures.url}/bomb.png`);
      expect(error).toMatchObject({ status: 422, error: expect.stringMatching(/more than \d+ pixels/) });
      expect(ms).toBeLessThan(2_000);
      // 900 million pixels decoded would be 900 MB at least.
      expect(process.memoryUsage().rss - rssBefore).toBeLessThan(200 * 1024 * 1024);
    });

    // The body would take minutes (a byte every 300 ms). Time bounds are at least 10 times what a
    // case takes on an idle machine; a lower bound holds on a loaded one too.
    it('a body that trickles, ended by the 5 s limit', async () => {
      const { error, ms } = await refusal(`${pictures.url}/slow.png`);
      expect(error).toMatchObject({ status: 422, error: expect.stringMatching(/took too long/) });
      expect(ms).toBeGreaterThanOrEqual(AVATAR_LIMITS.timeoutMs - 500);
      expect(ms).toBeLessThan(10 * AVATAR_LIMITS.timeoutMs);
    }, 90_000);

    it("a body that trickles, ended by the cache's own limit rather than the fetcher's 30 s", async () => {
      const quick = new AvatarCache(new LocalFolderStorage(join(dataDir, 'uploads')), {
        allow: OutboundAllowList.parse('127.0.0.1'),
        limits: { timeoutMs: 500 },
      });
      const started = Date.now();
      await expect(quick.cache(`${pictures.url}/slow.png?quick`)).rejects.toMatchObject({
        body: { status: 422, error: expect.stringMatching(/took too long/) },
      });
      expect(Date.now() - started).toBeGreaterThanOrEqual(450);
      expect(Date.now() - started).toBeLessThan(5_000);
    });

    it('an HTML page, an SVG drawing and a missing picture', async () => {
      const page = await refusal(`${pictures.url}/page.html`);
      expect(page.error).toMatchObject({
        status: 422,
        error: expect.stringMatching(/not a PNG.*\(text\/html\)/),
      });
      const svg = await refusal(`${pictures.url}/drawing.svg`);
      expect(svg.error).toMatchObject({ status: 422, error: expect.stringMatching(/image\/svg\+xml/) });
      const missing = await refusal(`${pictures.url}/nobody.png`);
      expect(missing.error).toMatchObject({ status: 422, error: expect.stringMatching(/answered 404/) });
      for (const { ms } of [page, svg, missing]) expect(ms).toBeLessThan(2_000);
    });

    it('not an http(s) URL: a 400 naming the field', async () => {
      const { error } = await refusal('file:///etc/passwd');
      expect(error).toMatchObject({ status: 400, field: 'url' });
    });
  });

  it('stored nothing for the refused answers', async () => {
    const storage = new LocalFolderStorage(join(dataDir, 'uploads'));
    // face.png, face.png?same and moved (each URL its own folder), and flaky.png twice.
    const keys = await storage.list(`${AVATAR_FOLDER}/`);
    expect(keys).toHaveLength(5);
  });
});
