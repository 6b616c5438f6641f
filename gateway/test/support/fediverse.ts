/**
 * What the fediverse specs (fediverse.http, fediverse.hostile) share: requests written on a raw
 * socket (a body the gateway cuts short, a Content-Length it refuses before reading, a chunked
 * body that never ends), a stack whose gateway and social agree on SITE_URL, and reads of the
 * site timed while something else runs.
 */
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { startTestStack, type TestStack } from './test-stack.js';

/** The public address both the gateway and social are given (ids are built on it, never on Host). */
export const SITE_URL = 'https://blog.example';
export const ACTIVITY_JSON = 'application/activity+json';

export function startFediverseStack(extraEnv: Record<string, string> = {}): Promise<TestStack> {
  return startTestStack({ SITE_URL, ...extraEnv });
}

export interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  /** From the first byte sent to the answer's end. */
  ms: number;
}

export interface RawInit {
  method?: string;
  headers?: Record<string, string>;
  /** A body; `endless`: a chunked body sent until the answer comes. */
  body?: Buffer | string | 'endless';
  /** Gives up after this long (the test then fails with the reason). */
  timeoutMs?: number;
}

/**
 * One request on its own connection. The answer is taken as soon as it arrives, even when the
 * server stops reading the body and closes the connection (the client's writes then fail, as
 * they should).
 */
export function raw(stack: TestStack, path: string, init: RawInit = {}): Promise<RawAnswer> {
  const { port } = new URL(stack.baseUrl);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = httpRequest({
      host: '127.0.0.1',
      port: Number(port),
      path,
      method: init.method ?? 'GET',
      headers: init.headers,
      agent: false,
    });
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error(`no answer to ${init.method ?? 'GET'} ${path} within ${init.timeoutMs ?? 10_000} ms`));
    }, init.timeoutMs ?? 10_000);
    req.on('response', (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      const done = () => {
        clearTimeout(timer);
        req.destroy();
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          ms: performance.now() - started,
        });
      };
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', done);
      res.on('error', done);
      res.on('aborted', done);
    });
    req.on('error', (error) => {
      // A write failing after the server answered and hung up is expected: the answer counts.
      if (answered) return;
      clearTimeout(timer);
      reject(error);
    });
    if (init.body === 'endless') {
      const chunk = Buffer.alloc(64 * 1024, '[');
      const pump = () => {
        while (!answered && !req.destroyed && req.write(chunk));
        if (!answered && !req.destroyed) req.once('drain', pump);
      };
      pump();
    } else req.end(init.body);
  });
}

export interface ReadsMeanwhile {
  /** How many reads of the post list were answered, and the slowest. */
  reads: number;
  slowestMs: number;
  failures: number;
}

/** Runs `work` while the post list is read every 50 ms: its result and how the reads fared. */
export async function whileReading<T>(
  stack: TestStack,
  work: () => Promise<T>,
): Promise<{ result: T; reads: ReadsMeanwhile }> {
  const times: number[] = [];
  let failures = 0;
  let reading = true;
  const reader = (async () => {
    while (reading) {
      const started = performance.now();
      try {
        const response = await fetch(`${stack.baseUrl}/api/posts?limit=1`);
        await response.arrayBuffer();
        if (response.status !== 200) failures++;
      } catch {
        failures++;
      }
      times.push(performance.now() - started);
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  let result: T;
  try {
    result = await work();
  } finally {
    reading = false;
    // The read under way when the work ended counts too.
    await reader;
  }
  return { result, reads: { reads: times.length, slowestMs: Math.max(0, ...times), failures } };
}

/** A `Signature` header (draft-cavage) whose keyId is `keyId`; the signature itself is junk. */
export function signatureHeader(keyId: string): string {
  return `keyId="${keyId}",algorithm="rsa-sha256",headers="(request-target) host date digest",signature="${Buffer.from('junk').toString('base64')}"`;
}

/**
 * The limits count per clock minute: a test that fills one waits for a new minute when fewer
 * than `needMs` are left, so the count cannot start over half-way.
 */
export async function freshMinute(needMs = 15_000): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < needMs) await new Promise((r) => setTimeout(r, left + 50));
}

/** Polls until `check` answers something truthy, and answers it; fails naming `what` after `ms`. */
export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined | null | false>,
  ms = 30_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A POST to the blog's shared inbox, signed by a peer account as its server sends one. */
export async function deliverSigned(
  stack: TestStack,
  peer: { signedPost(url: string, activity: unknown, key: CryptoKey, keyId: string): Promise<Request> },
  from: { rsa: CryptoKeyPair; keyId: string },
  activity: unknown,
): Promise<RawAnswer> {
  const signed = await peer.signedPost(`${SITE_URL}/ap/inbox`, activity, from.rsa.privateKey, from.keyId);
  const headers: Record<string, string> = {};
  signed.headers.forEach((value, key) => (headers[key] = value));
  return raw(stack, '/ap/inbox', { method: 'POST', headers, body: await signed.text() });
}
