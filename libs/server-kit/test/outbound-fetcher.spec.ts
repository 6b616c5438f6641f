/**
 * The outbound fetcher against real HTTP servers on loopback: 127.0.0.1 stands for an allowed
 * (public) host, 127.0.0.3 for the inside of the network it must never reach.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import {
  OUTBOUND_REFUSED,
  OutboundAllowList,
  OutboundFetchError,
  outboundFetch,
  outboundUserAgent,
  type OutboundFetchOptions,
} from '../src/outbound/index.js';

const listen = async (server: Server | ReturnType<typeof createTcpServer>, host: string) => {
  await new Promise<void>((r) => server.listen(0, host, r));
  return (server.address() as AddressInfo).port;
};

/** The error an outbound fetch ends in (its body read to the end when it answers). */
async function failure(url: string, options: OutboundFetchOptions = {}): Promise<OutboundFetchError> {
  try {
    const response = await outboundFetch(url, options);
    await response.body.toArray();
  } catch (error) {
    if (error instanceof OutboundFetchError) return error;
    throw error;
  }
  throw new Error(`${url} was fetched`);
}

/** The resolver's answer for a name that does not exist (tests send nothing off this machine). */
const noSuchName = async () => {
  throw Object.assign(new Error('getaddrinfo ENOTFOUND no-such-host.example'), { code: 'ENOTFOUND' });
};

describe('outboundFetch', () => {
  const allow = OutboundAllowList.parse('127.0.0.1');
  const seen: { url: string; headers: IncomingMessage['headers'] }[] = [];
  const inside: string[] = [];
  let publicServer: Server;
  let internalServer: Server;
  let silentServer: ReturnType<typeof createTcpServer>;
  let base: string;
  let internal: string;
  let silentPort: number;
  const silentSockets: Socket[] = [];
  let closedPort: number;

  beforeAll(async () => {
    internalServer = createServer((req, res) => {
      inside.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'image/jpeg' }).end('the secret');
    });
    internal = `http://127.0.0.3:${await listen(internalServer, '127.0.0.3')}`;
    publicServer = createServer((req: IncomingMessage, res: ServerResponse) => {
      seen.push({ url: req.url ?? '', headers: req.headers });
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === '/hello') res.writeHead(200, { 'content-type': 'text/plain' }).end('hello');
      else if (url.pathname === '/to-inside')
        res.writeHead(302, { location: `${internal}/admin/secret.jpg` }).end();
      else if (url.pathname === '/to-localhost')
        res.writeHead(302, { location: `http://localhost:${url.searchParams.get('port')}/x` }).end();
      else if (url.pathname === '/to-decimal')
        res.writeHead(301, { location: `http://2130706435:${new URL(internal).port}/x` }).end();
      else if (url.pathname === '/to-mapped')
        res.writeHead(307, { location: `http://[::ffff:127.0.0.3]:${new URL(internal).port}/x` }).end();
      else if (url.pathname === '/loop') {
        const n = Number(url.searchParams.get('n') ?? 0);
        res.writeHead(302, { location: n >= 4 ? '/hello' : `/loop?n=${n + 1}` }).end();
      } else if (url.pathname === '/forever') res.writeHead(302, { location: '/forever' }).end();
      else if (url.pathname === '/big') {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        res.end(Buffer.alloc(64 * 1024, 1));
      } else if (url.pathname === '/big-declared')
        res.writeHead(200, { 'content-length': String(64 * 1024) }).end(Buffer.alloc(64 * 1024, 1));
      else if (url.pathname === '/slow-body') {
        res.writeHead(200).write('start');
        req.on('close', () => res.destroy());
      } else if (url.pathname === '/drops') {
        res.writeHead(200, { 'content-length': '1000' }).write('the first bytes');
        setTimeout(() => res.socket?.destroy(), 20);
      } else if (url.pathname === '/hangs') req.on('close', () => res.destroy());
      else if (url.pathname === '/post-303') res.writeHead(303, { location: '/hello' }).end();
      else res.writeHead(404).end('missing');
    });
    base = `http://127.0.0.1:${await listen(publicServer, '127.0.0.1')}`;
    // Accepts connections and never says a word.
    silentServer = createTcpServer((socket) => silentSockets.push(socket));
    silentPort = await listen(silentServer, '127.0.0.1');
    const closed = createTcpServer();
    closedPort = await listen(closed, '127.0.0.1');
    await new Promise((r) => closed.close(r));
  });
  afterAll(async () => {
    for (const socket of silentSockets) socket.destroy();
    for (const server of [publicServer, internalServer]) server.closeAllConnections();
    for (const server of [publicServer, internalServer, silentServer])
      await new Promise((r) => server.close(r));
  });

  it('fetches from an allowed host, naming the blog in a plain user agent', async () => {
    const response = await outboundFetch(`${base}/hello`, {
      allow,
      userAgent: outboundUserAgent('Garage notes', 'https://blog.example'),
      accept: 'text/plain',
    });
    expect(response.status).toBe(200);
    expect(Buffer.concat(await response.body.toArray()).toString()).toBe('hello');
    const request = seen.find((r) => r.url === '/hello')!;
    expect(request.headers['user-agent']).toBe('Garage notes (+https://blog.example)');
    expect(request.headers.accept).toBe('text/plain');
    expect(outboundUserAgent(undefined, undefined)).toBe('Personal blog');
    expect(outboundUserAgent('Café  notes ✨', 'http://x')).toBe('Cafe notes (+http://x)');
  });

  it('refuses loopback, private and reserved addresses in every spelling, before connecting', async () => {
    const port = new URL(internal).port;
    for (const url of [
      `${internal}/admin/secret.jpg`,
      `http://127.0.0.3:${port}/`,
      `http://2130706435:${port}/`, // 127.0.0.3 in decimal
      `http://0x7f.0.0.3:${port}/`, // hex
      `http://0177.0.0.3:${port}/`, // octal
      `http://127.3:${port}/`,
      `http://[::ffff:127.0.0.3]:${port}/`,
      `http://[::ffff:7f00:3]:${port}/`,
      `http://[64:ff9b::7f00:3]:${port}/`,
      `http://[::1]:${port}/`,
      'http://169.254.169.254/latest/meta-data/',
      'http://10.0.0.1/',
      'http://[fd00::1]/',
      'http://0.0.0.0/',
    ]) {
      const error = await failure(url, { allow });
      expect([url, error.kind, error.message]).toEqual([url, 'refused', OUTBOUND_REFUSED]);
    }
    expect(inside).toEqual([]);
  });

  it('refuses a redirect from an allowed host to an internal one, in every spelling', async () => {
    for (const path of ['/to-inside', '/to-decimal', '/to-mapped']) {
      const error = await failure(`${base}${path}`, { allow });
      expect([path, error.message]).toEqual([path, OUTBOUND_REFUSED]);
    }
    expect(inside).toEqual([]);
  });

  it('refuses a name that resolves to loopback, and connects only to the address it checked', async () => {
    // The system's resolver (localhost from the hosts file), nothing allowed: directly and after a redirect.
    const port = new URL(base).port;
    expect((await failure(`http://localhost:${port}/hello`)).message).toBe(OUTBOUND_REFUSED);
    const viaRedirect = await failure(`${base}/to-localhost?port=${port}`, {
      allow,
      resolve: async () => [
        { address: '127.0.0.1', family: 4 },
        { address: '::1', family: 6 },
      ],
    });
    expect(viaRedirect.message).toBe(OUTBOUND_REFUSED);
    // A name whose DNS answers an internal address.
    const resolve = async () => [{ address: '127.0.0.3', family: 4 }];
    expect(
      (await failure(`http://pictures.example:${new URL(internal).port}/x`, { allow, resolve })).message,
    ).toBe(OUTBOUND_REFUSED);
    // A name answering one public and one private address (a rebinding set-up).
    const mixed = async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '127.0.0.3', family: 4 },
    ];
    expect((await failure('http://pictures.example/x', { resolve: mixed })).message).toBe(OUTBOUND_REFUSED);
    // A checked name is connected to at the address checked, asked once, with its own Host header.
    let asked = 0;
    const once = async () => {
      asked++;
      return asked === 1 ? [{ address: '127.0.0.1', family: 4 }] : [{ address: '127.0.0.3', family: 4 }];
    };
    const response = await outboundFetch(`http://pictures.example:${new URL(base).port}/hello`, {
      allow,
      resolve: once,
    });
    expect(Buffer.concat(await response.body.toArray()).toString()).toBe('hello');
    expect(asked).toBe(1);
    expect(seen.at(-1)!.headers.host).toBe(`pictures.example:${new URL(base).port}`);
    expect(inside).toEqual([]);
  });

  it('allows a host named in OUTBOUND_ALLOW whatever it resolves to', async () => {
    const resolve = async () => [{ address: '127.0.0.3', family: 4 }];
    const named = OutboundAllowList.parse('old-blog.lan');
    const response = await outboundFetch(`http://old-blog.lan:${new URL(internal).port}/pic.jpg`, {
      allow: named,
      resolve,
    });
    expect(Buffer.concat(await response.body.toArray()).toString()).toBe('the secret');
    inside.length = 0;
  });

  it('reaches a public address on ports 80 and 443 only, unless allowed', async () => {
    const resolve = async () => [{ address: '93.184.216.34', family: 4 }];
    const error = await failure('http://pictures.example:8080/x', { resolve });
    expect([error.kind, error.message]).toEqual(['refused', 'refused: port 8080 (only 80 and 443)']);
  });

  it('gives the same answer for a refused, a closed, an unreachable and a silent address', async () => {
    const messages = [
      (await failure(`${internal}/x`, { allow })).message, // refused by the rules
      (await failure(`http://127.0.0.1:${closedPort}/x`, { allow })).message, // closed port
      (await failure('http://no-such-host.example/x', { resolve: noSuchName })).message, // no such name
      (await failure(`http://127.0.0.1:${silentPort}/x`, { allow, timeoutMs: 300 })).message, // accepts, says nothing
    ];
    // The silent one connected, so it timed out; connect-phase failures all read the same.
    expect(messages.slice(0, 3)).toEqual([OUTBOUND_REFUSED, OUTBOUND_REFUSED, OUTBOUND_REFUSED]);
    expect(messages[3]).toBe('timed out');
  });

  it('ends a fetch that never got connected as unreachable, not timed out', async () => {
    // A resolver that never answers stands for a host that never completes the handshake
    // (the same connect phase; a real one would send packets off this machine).
    const error = await failure('http://pictures.example/x', {
      resolve: () => new Promise(() => undefined),
      timeoutMs: 300,
    });
    expect([error.kind, error.message]).toEqual(['unreachable', OUTBOUND_REFUSED]);
  });

  it('caps the bytes: a declared length at once, a streamed body when it passes the cap', async () => {
    const declared = await failure(`${base}/big-declared`, { allow, maxBytes: 1000 });
    expect([declared.kind, declared.message]).toEqual(['too-large', 'larger than 1000 bytes']);
    const streamed = await failure(`${base}/big`, { allow, maxBytes: 1000 });
    expect([streamed.kind, streamed.message]).toEqual(['too-large', 'larger than 1000 bytes']);
    const whole = await outboundFetch(`${base}/big`, { allow, maxBytes: 64 * 1024 });
    expect(Buffer.concat(await whole.body.toArray())).toHaveLength(64 * 1024);
  });

  it('caps the time: for the answer and for the body', async () => {
    // Both would wait forever: each ends at its own 300 ms (about 300 ms each on an idle machine),
    // not the default 30 s. The bound is 10 times that, so a loaded machine does not fail it.
    const timed = async (url: string) => {
      const started = Date.now();
      const error = await failure(url, { allow, timeoutMs: 300 });
      return { error: [error.kind, error.message], ms: Date.now() - started };
    };
    const silent = await timed(`${base}/hangs`);
    expect(silent.error).toEqual(['timeout', 'timed out']);
    expect(silent.ms).toBeLessThan(3000);
    const slowBody = await timed(`${base}/slow-body`);
    expect(slowBody.error).toEqual(['timeout', 'timed out']);
    expect(slowBody.ms).toBeLessThan(3000);
  });

  it('fails a body whose connection drops half-way, without the reason', async () => {
    const error = await failure(`${base}/drops`, { allow });
    expect([error.kind, error.message]).toEqual(['network', 'network error']);
  });

  it('follows at most five redirects', async () => {
    const five = await outboundFetch(`${base}/loop?n=0`, { allow });
    expect(five.status).toBe(200);
    expect(five.url).toBe(`${base}/hello`);
    await five.body.toArray();
    const error = await failure(`${base}/forever`, { allow });
    expect([error.kind, error.message]).toEqual(['redirects', 'too many redirects']);
    const manual = await outboundFetch(`${base}/forever`, { allow, maxRedirects: 0 });
    expect([manual.status, manual.headers.location]).toEqual([302, '/forever']);
    manual.body.destroy();
  });

  it('turns a POST into a GET on 303', async () => {
    const response = await outboundFetch(`${base}/post-303`, { allow, method: 'POST', body: 'x=1' });
    expect(response.status).toBe(200);
    await response.body.toArray();
  });

  it('refuses what is not an http(s) address', async () => {
    for (const [url, message] of [
      ['file:///etc/passwd', 'only http and https addresses are fetched (file:)'],
      ['gopher://127.0.0.1/', 'only http and https addresses are fetched (gopher:)'],
      ['not a url', 'not a URL: not a url'],
      ['http://user:pw@127.0.0.1/', 'addresses with a user name or password are not fetched'],
    ] as const) {
      const error = await failure(url, { allow });
      expect([url, error.kind, error.message]).toEqual([url, 'invalid', message]);
    }
  });
});
