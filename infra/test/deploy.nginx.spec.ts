/**
 * The nginx config (infra/nginx/nginx.conf): read, and, when `nginx` is installed (.ci/run
 * installs it), checked with `nginx -t` and serving a test build in front of a fake gateway.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { withinOneSecond } from '../../e2e/support/microcache.js';
import { freePort, ifInstalled, NGINX_CONF, quantity, which } from './support/deploy.js';

describe('nginx config (infra/nginx/nginx.conf)', () => {
  const conf = readFileSync(NGINX_CONF, 'utf8');
  const UPSTREAM = 'server gateway:3000;';

  /**
   * The committed file as this machine can run it: the upstream host (`gateway`, which does
   * not resolve here) pointed at 127.0.0.1, and the pid file and temporary directories (under
   * /tmp in the image) moved into `dir`, so runs leave nothing behind and need no root.
   */
  function localConfig(dir: string, upstreamPort = 3000): string {
    let text = replaceOnce(conf, UPSTREAM, `server 127.0.0.1:${upstreamPort};`);
    text = replaceOnce(text, 'pid /tmp/nginx.pid;', `pid ${dir}/nginx.pid;`);
    const temporary = text.match(/ \/tmp\/nginx-/g) ?? [];
    expect(temporary).toHaveLength(6);
    return text.replaceAll(' /tmp/nginx-', ` ${dir}/nginx-`);
  }

  function replaceOnce(text: string, from: string | RegExp, to: string): string {
    const count = typeof from === 'string' ? text.split(from).length - 1 : (text.match(from) ?? []).length;
    expect([String(from), count]).toEqual([String(from), 1]);
    return text.replace(from, to);
  }

  it('loads the MIME table, passes pages to the gateway and streams large uploads to it', () => {
    expect(conf).toMatch(/^\s*include\s+\/etc\/nginx\/mime\.types;/m);
    expect(conf).toMatch(/try_files \$uri @pages;/);
    expect(conf).toMatch(/^\s*gzip_static on;/m);
    expect(conf).toMatch(/proxy_request_buffering off;/);
    expect(conf).toMatch(/proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;/);
    expect(conf).toMatch(/location ~ \^\/\(api\|uploads\)/);
    const bodySize = quantity(/client_max_body_size\s+(\d+)m;/.exec(conf)![1] + 'Mi');
    expect(bodySize).toBeGreaterThanOrEqual(200 * 1024 ** 2); // several 100 MB files per post
    expect(bodySize).toBeLessThanOrEqual(1024 ** 3);
    expect(Number(/proxy_read_timeout\s+(\d+)s;/.exec(conf)![1])).toBeGreaterThanOrEqual(120);
    expect(conf).not.toMatch(/^\s*daemon\s/m); // the image's CMD sets it
  });

  const nginx = ifInstalled('nginx');

  nginx('passes `nginx -t`', () => {
    const dir = mkdtempSync(join(tmpdir(), 'blog-nginx-t-'));
    try {
      const file = join(dir, 'nginx.conf');
      writeFileSync(file, localConfig(dir));
      // stdout to /dev/null: nginx opens /dev/stdout for the access log, which fails on
      // a socket (how Node connects a child's stdout); containers give it a FIFO.
      const result = spawnSync('nginx', ['-t', '-e', 'stderr', '-c', file], {
        stdio: ['ignore', 'ignore', 'pipe'],
        encoding: 'utf8',
        timeout: 10000,
      });
      expect(result.stderr).toContain('test is successful');
      expect(result.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  describe('serving a build', () => {
    let dir: string;
    let nginxProcess: ChildProcess | undefined;
    let nginxLog = '';
    let gateway: Server;
    let port: number;
    const seen: {
      method?: string;
      url?: string;
      headers: IncomingHttpHeaders;
      bytes: number;
      done: boolean;
    }[] = [];
    const script = `export const app = ${JSON.stringify('x'.repeat(4000))};\n`;
    let beaconsPassed = 0;

    beforeAll(async () => {
      if (!which('nginx')) return;
      dir = mkdtempSync(join(tmpdir(), 'blog-nginx-'));
      chmodSync(dir, 0o755); // nginx workers may run as another user
      const html = join(dir, 'html');
      mkdirSync(join(html, 'assets'), { recursive: true });
      writeFileSync(join(html, 'index.html'), '<!doctype html><div id="root">app shell</div>');
      writeFileSync(join(html, 'assets/index-Ab12Cd34.js'), script);
      // The build's gzip twin, told apart from nginx's own compression by its last line.
      writeFileSync(join(html, 'assets/index-Ab12Cd34.js.gz'), gzipSync(`${script}// precompressed\n`));
      writeFileSync(join(html, 'banner.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');

      gateway = createServer((req, res) => {
        if (req.url === '/api/views') {
          // A beacon, as the gateway answers it.
          beaconsPassed++;
          res.writeHead(204).end();
          req.resume();
          return;
        }
        const record = { method: req.method, url: req.url, headers: req.headers, bytes: 0, done: false };
        seen.push(record);
        if (req.url === '/no-such-page') {
          res.writeHead(404, { 'content-type': 'text/html' }).end('<!doctype html>not found');
          req.resume();
          return;
        }
        if (req.url?.startsWith('/post/slow')) {
          // A slow page: requests arriving meanwhile wait on the cache lock.
          setTimeout(
            () => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html>slow'),
            300,
          );
          req.resume();
          return;
        }
        if (req.url?.startsWith('/api/stream') || req.url?.startsWith('/api/posts?upload')) {
          // Answer at once: the test only checks that the request arrived before its body.
          res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
          req.resume();
          return;
        }
        req.on('data', (chunk: Buffer) => (record.bytes += chunk.length));
        req.on('end', () => {
          record.done = true;
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ url: req.url, bytes: record.bytes }));
        });
      });
      await new Promise<void>((ready) => gateway.listen(0, '127.0.0.1', ready));
      const gatewayPort = (gateway.address() as AddressInfo).port;

      port = await freePort();
      let text = localConfig(dir, gatewayPort);
      text = replaceOnce(text, /listen 8080;/, `listen 127.0.0.1:${port};`);
      text = replaceOnce(text, 'root /usr/share/nginx/html;', `root ${html};`);
      const file = join(dir, 'nginx.conf');
      writeFileSync(file, text);

      // The access log goes to /dev/stdout, which nginx cannot open on a socket (Node's
      // default pipes): give it a file, as containers give it a FIFO.
      const accessLog = openSync(join(dir, 'access.log'), 'w');
      nginxProcess = spawn('nginx', ['-e', 'stderr', '-c', file, '-g', 'daemon off;'], {
        stdio: ['ignore', accessLog, 'pipe'],
      });
      closeSync(accessLog);
      nginxProcess.stderr!.on('data', (chunk) => (nginxLog += chunk));
      const deadline = Date.now() + 5000;
      for (;;) {
        const up = await new Promise<boolean>((answer) => {
          const socket = connect(port, '127.0.0.1');
          socket.on('connect', () => answer(socket.end() && true));
          socket.on('error', () => answer(false));
        });
        if (up) break;
        if (Date.now() > deadline || nginxProcess.exitCode !== null)
          throw new Error(`nginx did not start:\n${nginxLog}`);
        await new Promise((wait) => setTimeout(wait, 50));
      }
    });

    afterAll(async () => {
      if (nginxProcess && nginxProcess.exitCode === null) {
        const exited = new Promise((done) => nginxProcess!.once('exit', done));
        nginxProcess.kill('SIGQUIT');
        await exited;
      }
      await new Promise((done) => (gateway ? gateway.close(done) : done(undefined)));
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    function get(
      path: string,
      headers: Record<string, string> = {},
      method = 'GET',
      body?: Buffer,
    ): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
      return new Promise((answer, reject) => {
        const req = request({ host: '127.0.0.1', port, path, method, headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk) => chunks.push(chunk));
          res.on('end', () =>
            answer({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }),
          );
        });
        req.on('error', reject);
        req.setTimeout(5000, () => req.destroy(new Error(`${method} ${path}: no answer in 5 s`)));
        req.end(body);
      });
    }

    nginx(
      'passes every page to the gateway (its tags and its 404) and serves real files itself',
      async () => {
        for (const path of [
          '/',
          '/garage/automobiles',
          '/admin/users',
          '/post/42',
          '/rss.xml',
          '/sitemap.xml',
        ]) {
          const res = await get(path, { 'x-forwarded-proto': 'https' });
          expect([path, res.status]).toEqual([path, 200]);
          const request = seen.at(-1)!;
          expect(request.url).toBe(path);
          expect(request.headers['x-forwarded-proto']).toBe('https');
          expect(request.headers['x-request-id']).toMatch(/^[A-Za-z0-9._-]{8,128}$/);
        }
        expect((await get('/no-such-page')).status).toBe(404);
        const before = seen.length;
        const file = await get('/banner.svg');
        expect(file.status).toBe(200);
        expect(file.headers['content-type']).toMatch(/^image\/svg\+xml/);
        expect(seen.length).toBe(before);
        // The bare shell has no page's tags.
        const shell = await get('/index.html');
        expect([shell.status, shell.headers.location]).toEqual([301, '/']);
      },
    );

    nginx('serves hashed assets as JavaScript, compressed and cached for a year', async () => {
      const res = await get('/assets/index-Ab12Cd34.js', { 'accept-encoding': 'gzip' });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^(application|text)\/javascript/);
      expect(res.headers['content-encoding']).toBe('gzip');
      expect(gunzipSync(res.body).toString()).toContain('// precompressed');
      expect(res.headers['cache-control']).toMatch(/max-age=31536000/);
      expect(res.headers['cache-control']).toMatch(/immutable/);
      // A missing asset is a 404, not the app shell (which the browser would refuse as a script).
      expect((await get('/assets/index-gone.js')).status).toBe(404);
    });

    nginx('proxies /api and /uploads to the gateway with the client address and a request id', async () => {
      const health = await get('/api/health', { 'x-forwarded-for': '203.0.113.9' });
      expect(health.status).toBe(200);
      const request = seen.find((r) => r.url === '/api/health')!;
      expect(request.headers['x-forwarded-for']).toBe('203.0.113.9, 127.0.0.1');
      expect(request.headers['x-real-ip']).toBe('127.0.0.1');
      expect(request.headers['x-request-id']).toMatch(/^[A-Za-z0-9._-]{8,128}$/);
      const kept = await get('/api/health', { 'x-request-id': 'client-request-1' });
      expect(kept.status).toBe(200);
      expect(seen.at(-1)!.headers['x-request-id']).toBe('client-request-1');
      const upload = await get('/uploads/2026/photo.jpg');
      expect(upload.status).toBe(200);
      expect(seen.at(-1)!.url).toBe('/uploads/2026/photo.jpg');
    });

    nginx('passes request bodies far above nginx’s 1 MB default', async () => {
      const body = Buffer.alloc(5 * 1024 * 1024, 7);
      const res = await get('/api/posts', { 'content-type': 'application/octet-stream' }, 'POST', body);
      expect(res.status).toBe(200);
      expect(JSON.parse(res.body.toString())).toEqual({ url: '/api/posts', bytes: body.length });
    });

    /** Sends only the head of a request declaring `length` bytes; resolves with the first response line. */
    function declareUpload(
      path: string,
      length: number,
      sendFirstKb: boolean,
    ): Promise<{ line: string; close: () => void }> {
      return new Promise((answer, reject) => {
        const socket = connect(port, '127.0.0.1', () => {
          socket.write(
            `POST ${path} HTTP/1.1\r\nHost: blog.test\r\nContent-Type: application/octet-stream\r\n` +
              `Content-Length: ${length}\r\n\r\n`,
          );
          if (sendFirstKb) socket.write(Buffer.alloc(1024));
        });
        // No answer within 3 s (nginx waiting for the whole body) reads as an empty line.
        const timer = setTimeout(() => answer({ line: '', close: () => socket.destroy() }), 3000);
        let data = '';
        socket.on('data', (chunk) => {
          data += chunk;
          if (data.includes('\r\n')) {
            clearTimeout(timer);
            answer({ line: data.split('\r\n')[0], close: () => socket.destroy() });
          }
        });
        socket.on('error', reject);
      });
    }

    nginx('microcaches public reads for 1 s with a lock, never a signed-in request or a write', async () => {
      const hits = (url: string) => seen.filter((r) => r.url === url && r.method === 'GET').length;
      // Each check's reads land within one second (the cache key's second: withinOneSecond).
      for (const url of [
        '/api/posts?limit=15&m=1',
        '/api/site?m=1',
        '/post/7-micro',
        '/rss.xml?m=1',
        '/sitemap.xml?m=1',
      ]) {
        const { first, second, gatewayReads } = await withinOneSecond(async () => {
          const before = hits(url);
          const first = await get(url);
          const second = await get(url);
          return { first, second, gatewayReads: hits(url) - before };
        });
        expect([url, first.headers['x-cache-status'], second.headers['x-cache-status']]).toEqual([
          url,
          'MISS',
          'HIT',
        ]);
        expect([url, second.body.toString()]).toEqual([url, first.body.toString()]);
        expect([url, gatewayReads]).toEqual([url, 1]);
      }
      // Signed in: always the gateway, never stored (the next visitor's read is still a hit).
      const url = '/api/posts?limit=15&m=2';
      const signedIn = await withinOneSecond(async () => {
        const before = hits(url);
        const statuses = [(await get(url)).headers['x-cache-status']];
        for (let i = 0; i < 2; i++)
          statuses.push((await get(url, { authorization: 'Bearer admin-token' })).headers['x-cache-status']);
        statuses.push((await get(url)).headers['x-cache-status']);
        return { statuses, gatewayReads: hits(url) - before };
      });
      expect(signedIn).toEqual({ statuses: ['MISS', 'BYPASS', 'BYPASS', 'HIT'], gatewayReads: 3 });
      // A write goes through.
      const before = seen.length;
      const readsBefore = hits(url);
      const write = await get(url, { 'content-type': 'application/json' }, 'POST', Buffer.from('{}'));
      // (POST is not a cacheable method: nginx does not even look the cache up.)
      expect([write.status, write.headers['x-cache-status'], seen.length]).toEqual([
        200,
        undefined,
        before + 1,
      ]);
      // Then the entry is refreshed from the gateway (nginx counts whole seconds: a 1 s
      // entry expires once the clock's second after the next has begun, 1 to 2 s later).
      await new Promise((wait) => setTimeout(wait, 2050));
      expect((await get(url)).headers['x-cache-status']).not.toBe('HIT');
      for (const until = Date.now() + 2000; hits(url) === readsBefore && Date.now() < until;)
        await new Promise((wait) => setTimeout(wait, 20));
      expect(hits(url)).toBe(readsBefore + 1);
      // Twenty visitors at once on a slow page (300 ms): one request reaches the gateway.
      const crowd = await withinOneSecond(async (attempt) => {
        const page = `/post/slow-${attempt}`;
        const answers = await Promise.all(Array.from({ length: 20 }, () => get(page)));
        return { statuses: answers.map((a) => a.status), gatewayReads: hits(page) };
      });
      expect(crowd).toEqual({ statuses: Array(20).fill(200), gatewayReads: 1 });
      // Other API calls and uploads are not cached.
      expect((await get('/api/health')).headers['x-cache-status']).toBeUndefined();
      expect((await get('/uploads/media/a.jpg')).headers['x-cache-status']).toBeUndefined();
    });

    nginx('streams a 400 MB upload to the gateway as it arrives and refuses 600 MB at once', async () => {
      // Only 1 KB of the declared 400 MB is ever sent: the gateway sees the request only
      // because nginx does not buffer request bodies.
      const streamed = await declareUpload('/api/stream', 400 * 1024 * 1024, true);
      streamed.close();
      expect(streamed.line).toBe('HTTP/1.1 200 OK');
      expect(seen.some((r) => r.url === '/api/stream')).toBe(true);

      // Posts are written in the microcached location: their uploads stream all the same.
      const post = await declareUpload('/api/posts?upload', 400 * 1024 * 1024, true);
      post.close();
      expect(post.line).toBe('HTTP/1.1 200 OK');

      const tooLarge = await declareUpload('/api/stream-too-large', 600 * 1024 * 1024, false);
      tooLarge.close();
      expect(tooLarge.line).toBe('HTTP/1.1 413 Request Entity Too Large');
      expect(seen.some((r) => r.url === '/api/stream-too-large')).toBe(false);
    });

    nginx(
      'answers a flood of beacons from one address with 204 and passes on at most its limit',
      async () => {
        const beacon = (i: number) =>
          get(
            '/api/views',
            // A forged X-Forwarded-For from an untrusted address changes nothing: one client.
            { 'content-type': 'application/json', 'x-forwarded-for': `198.51.100.${i % 250}` },
            'POST',
            Buffer.from('{"path":"/"}'),
          );
        const statuses: number[] = [];
        const started = Date.now();
        for (let i = 0; i < 300; i += 50)
          statuses.push(
            ...(await Promise.all(Array.from({ length: 50 }, (_, j) => beacon(i + j)))).map((r) => r.status),
          );
        const seconds = Math.ceil((Date.now() - started) / 1000);
        expect(statuses.filter((status) => status !== 204)).toEqual([]);
        // The burst (60) and at most one a second after it, for as many seconds as the flood took
        // (under one on an idle machine, more on a loaded one); the rest answered by nginx itself.
        expect(beaconsPassed).toBeGreaterThanOrEqual(60);
        expect(beaconsPassed).toBeLessThanOrEqual(60 + seconds + 1);
        // A refused beacon leaves no line naming its address.
        expect(nginxLog.split('\n').filter((l) => /api\/views|limiting/.test(l))).toEqual([]);
      },
    );
  });
});
