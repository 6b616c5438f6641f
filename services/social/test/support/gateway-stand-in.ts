import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { Patterns, type FederationHttpAnswer, type FederationHttpRequest } from '@blog/contracts';

/** A federation answer as a test reads it. */
export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: Record<string, unknown>;
}

/** The answer of social.federation.http decoded; 'pass' when the blog's own routes answer. */
export function decodeAnswer(answer: FederationHttpAnswer): Answer | 'pass' {
  if (answer.pass) return 'pass';
  const text = answer.body === null ? '' : Buffer.from(answer.body, 'base64').toString('utf8');
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    /* not JSON */
  }
  return { status: answer.status, headers: new Headers(answer.headers), text, json };
}

/** Polls `check` until it answers something truthy (the inbox queue works after the 202). */
export async function eventually<T>(check: () => Promise<T>, timeoutMs = 10_000): Promise<NonNullable<T>> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * A loopback stand-in for the gateway at `site` (127.0.0.1:port): every request goes to the
 * social service over social.federation.http, as the gateway hands them over, so a remote
 * fixture can fetch the blog's key and documents. A `pass` answer is a 404 here.
 */
export async function startGatewayStandIn(
  port: number,
  site: string,
  send: (pattern: string, request: FederationHttpRequest) => Promise<FederationHttpAnswer>,
): Promise<Server> {
  const front = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const headers: [string, string][] = [];
      for (let i = 0; i < req.rawHeaders.length; i += 2)
        headers.push([req.rawHeaders[i]!.toLowerCase(), req.rawHeaders[i + 1]!]);
      const body = Buffer.concat(chunks);
      const request: FederationHttpRequest = {
        method: req.method as FederationHttpRequest['method'],
        url: `${site}${req.url}`,
        headers,
        body: body.length > 0 ? body.toString('base64') : undefined,
      };
      send(Patterns.social.http, request).then(
        (answer) => {
          if (answer.pass) return void res.writeHead(404).end();
          res.writeHead(answer.status, answer.headers);
          res.end(answer.body === null ? undefined : Buffer.from(answer.body, 'base64'));
        },
        () => res.writeHead(503).end(),
      );
    });
  });
  front.listen(port, '127.0.0.1');
  await once(front, 'listening');
  return front;
}
