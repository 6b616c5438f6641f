import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OutboundAllowList } from '@blog/server-kit';
import { summaryHtml } from '../src/federation/blog-ports.js';
import { runWithPolicyFetch } from '../src/federation/delivery-fetch.js';
import { renderMessage } from '../src/federation/fedify-logs.js';

/**
 * The federation runtime's small rules: the workers' fetch policy, the actor's summary, log lines.
 * G-numbers are the gotchas of docs/design/fediverse.md.
 */
describe('the federation runtime pieces', () => {
  let server: Server;
  let url: string;
  const seen: string[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      res.writeHead(202).end();
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  describe("the queue workers' fetch (Fedify's delivery POSTs, G11)", () => {
    const none = OutboundAllowList.parse('');
    const loopback = OutboundAllowList.parse('127.0.0.1');

    it('refuses a private address in the scope, and in work the scope starts later (timers)', async () => {
      seen.length = 0;
      await expect(
        runWithPolicyFetch(none, {}, () => fetch(`${url}/inbox`, { method: 'POST', body: '{}' })),
      ).rejects.toThrow(TypeError);
      const later = runWithPolicyFetch(
        none,
        {},
        () =>
          new Promise<Response>((resolve, reject) =>
            setTimeout(() => fetch(`${url}/later`).then(resolve, reject), 10),
          ),
      );
      await expect(later).rejects.toMatchObject({ cause: expect.objectContaining({ kind: 'refused' }) });
      expect(seen).toEqual([]);
    });

    it('lets through what OUTBOUND_ALLOW names', async () => {
      seen.length = 0;
      const response = await runWithPolicyFetch(loopback, {}, () =>
        fetch(`${url}/inbox`, { method: 'POST', body: '{}' }),
      );
      expect(response.status).toBe(202);
      expect(seen).toEqual(['POST /inbox']);
    });

    it("leaves the process's other fetch calls as they were", async () => {
      seen.length = 0;
      runWithPolicyFetch(none, {}, () => undefined);
      expect((await fetch(`${url}/outside`)).status).toBe(202);
      expect(seen).toEqual(['GET /outside']);
    });
  });

  it("escapes the welcome text into the actor's summary, a paragraph per blank line", () => {
    expect(summaryHtml("Hi, I'm <b>here</b> & there.\nSecond line.\n\nNext paragraph.")).toBe(
      '<p>Hi, I&#39;m &#60;b&#62;here&#60;/b&#62; &#38; there.<br>Second line.</p><p>Next paragraph.</p>',
    );
    expect(summaryHtml('')).toBe('');
  });

  it("renders Fedify's log messages without dumping objects (no keys or documents in the logs)", () => {
    const privateKey = { algorithm: { name: 'RSASSA-PKCS1-v1_5' }, secret: 'do-not-log' };
    const line = renderMessage({
      message: [
        'Failed to send ',
        new URL('https://a.example/inbox'),
        ' with ',
        privateKey,
        ': ',
        new Error('boom'),
        '',
      ],
    });
    expect(line).toBe('Failed to send https://a.example/inbox with [Object]: boom');
    expect(line).not.toContain('do-not-log');
  });
});
