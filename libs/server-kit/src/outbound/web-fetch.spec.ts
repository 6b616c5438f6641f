import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OutboundAllowList } from './address-policy.js';
import { OutboundFetchError } from './outbound-fetcher.js';
import { webFetch } from './web-fetch.js';

/** webFetch on a real loopback server: the policy decides, redirects come back, bodies and headers pass. */
describe('webFetch', () => {
  let server: Server;
  let base = '';
  let hits = 0;

  beforeAll(async () => {
    server = createServer((req, res) => {
      hits++;
      if (req.url === '/moved') return res.writeHead(302, { location: '/elsewhere' }).end();
      if (req.url === '/empty') return res.writeHead(204).end();
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        res.writeHead(200, {
          'content-type': 'application/json',
          'x-seen-agent': req.headers['user-agent'] ?? '',
        });
        res.end(JSON.stringify({ method: req.method, body: Buffer.concat(chunks).toString('utf8') }));
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => server?.close());

  it('refuses a private address when nothing is allowed: a TypeError as fetch throws, no request sent', async () => {
    const before = hits;
    const error = await webFetch(new OutboundAllowList())(`${base}/doc`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as TypeError).cause).toBeInstanceOf(OutboundFetchError);
    expect(hits).toBe(before);
  });

  it('with the address allowed: method, body, headers and url come through', async () => {
    const fetchFn = webFetch(new OutboundAllowList(['127.0.0.1']), { userAgent: 'Test blog' });
    const res = await fetchFn(`${base}/inbox`, { method: 'POST', body: '{"a":1}' });
    expect(res.status).toBe(200);
    expect(res.url).toBe(`${base}/inbox`);
    expect(res.headers.get('x-seen-agent')).toBe('Test blog');
    expect(await res.json()).toEqual({ method: 'POST', body: '{"a":1}' });
  });

  it('returns a redirect instead of following it, and a 204 without a body', async () => {
    const fetchFn = webFetch(new OutboundAllowList(['127.0.0.1']));
    const moved = await fetchFn(`${base}/moved`);
    expect(moved.status).toBe(302);
    expect(moved.headers.get('location')).toBe('/elsewhere');
    const empty = await fetchFn(`${base}/empty`);
    expect(empty.status).toBe(204);
    expect(empty.body).toBeNull();
  });
});
