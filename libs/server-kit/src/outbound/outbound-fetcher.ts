import { lookup as dnsLookup } from 'node:dns/promises';
import {
  request as httpRequest,
  type ClientRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
} from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import { isForbiddenAddress, OutboundAllowList } from './address-policy.js';

/**
 * The one message for an address that is refused, unreachable, closed or silent at connect:
 * any difference between them would let an import report map the internal network.
 */
export const OUTBOUND_REFUSED = 'refused: private address or unreachable';

/**
 * Why a fetch failed. `message` is safe to show a user. `kind` is for the caller's retry
 * decision only and must not reach a user: `refused` (the policy said no) and `unreachable`
 * (DNS, connection refused or timed out before connecting) carry the same message.
 */
export type OutboundErrorKind =
  'invalid' | 'refused' | 'unreachable' | 'timeout' | 'too-large' | 'redirects' | 'network';

export class OutboundFetchError extends Error {
  override name = 'OutboundFetchError';
  constructor(
    readonly kind: OutboundErrorKind,
    message: string,
  ) {
    super(message);
  }

  /** A later try may succeed: the network failed, not the rules or the address. */
  get retryable(): boolean {
    return this.kind === 'unreachable' || this.kind === 'timeout' || this.kind === 'network';
  }
}

export interface ResolvedAddress {
  address: string;
  family: number;
}

export interface OutboundFetchOptions {
  method?: string;
  headers?: Record<string, string>;
  /** Sent again on a 307/308 redirect, dropped on a 301/302/303 that turns the request into GET. */
  body?: string | Uint8Array;
  /** Shortcut for the Accept header. */
  accept?: string;
  /** The body stream fails past this many bytes (a larger Content-Length fails at once). Default 10 MB. */
  maxBytes?: number;
  /** For everything: DNS, connects, every redirect and the whole body. Default 30 s. */
  timeoutMs?: number;
  /** Redirects followed (each one checked again); a further one fails. 0: the 3xx is returned. Default 5. */
  maxRedirects?: number;
  /** The operator's exceptions (OUTBOUND_ALLOW). Default: none. */
  allow?: OutboundAllowList;
  /** Ports reached on a public address; an allowed host or address may use any. Default 80 and 443. */
  ports?: readonly number[];
  /** Default "Personal blog": see outboundUserAgent. */
  userAgent?: string;
  signal?: AbortSignal;
  /** Name resolution, every address of a name (tests replace it; default the system's, dns.lookup). */
  resolve?: (hostname: string) => Promise<ResolvedAddress[]>;
}

export interface OutboundResponse {
  /** The address that answered, after redirects. */
  url: string;
  status: number;
  headers: IncomingHttpHeaders;
  /** The body, capped at maxBytes and within the time left; destroy it when not read. */
  body: Readable;
}

export const OUTBOUND_DEFAULTS = {
  maxBytes: 10 * 1024 * 1024,
  timeoutMs: 30_000,
  maxRedirects: 5,
  ports: [80, 443] as readonly number[],
  userAgent: 'Personal blog',
};

/** A plain user agent that names the blog: `Title (+https://blog.example)`. */
export function outboundUserAgent(title: string | undefined, siteUrl: string | undefined): string {
  // A header is ASCII: accents fall off their letters (Café -> Cafe), the rest is dropped.
  const name =
    title
      ?.normalize('NFKD')
      .replace(/[^\x20-\x7e]/g, '')
      .replace(/\s+/g, ' ')
      .trim()
      .slice(0, 100) || OUTBOUND_DEFAULTS.userAgent;
  return siteUrl ? `${name} (+${siteUrl})` : name;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

const systemResolve = async (hostname: string): Promise<ResolvedAddress[]> =>
  dnsLookup(hostname, { all: true, order: 'verbatim' });

const refused = () => new OutboundFetchError('refused', OUTBOUND_REFUSED);
const unreachable = () => new OutboundFetchError('unreachable', OUTBOUND_REFUSED);
const timedOut = () => new OutboundFetchError('timeout', 'timed out');

/**
 * Fetches a URL that a user or a remote server chose, so that it cannot reach inside: the
 * host is resolved here and refused when ANY of its addresses is private or reserved (a
 * name with one public and one private address is how rebinding tricks start), the
 * connection goes to the addresses checked (no second lookup), every redirect is checked
 * the same way, and bytes, time and redirects are capped. See address-policy.ts for the
 * ranges and OUTBOUND_ALLOW.
 */
export async function outboundFetch(
  input: string | URL,
  options: OutboundFetchOptions = {},
): Promise<OutboundResponse> {
  const maxBytes = options.maxBytes ?? OUTBOUND_DEFAULTS.maxBytes;
  const maxRedirects = options.maxRedirects ?? OUTBOUND_DEFAULTS.maxRedirects;
  const allow = options.allow ?? new OutboundAllowList();
  const ports = options.ports ?? OUTBOUND_DEFAULTS.ports;
  const resolve = options.resolve ?? systemResolve;

  let url = parseUrl(input);
  // One deadline for the whole fetch; `onExpiry` ends what runs at that moment.
  let expired = false;
  let onExpiry: () => void = () => undefined;
  const timer = setTimeout(() => {
    expired = true;
    onExpiry();
  }, options.timeoutMs ?? OUTBOUND_DEFAULTS.timeoutMs);
  const onAbort = () => {
    clearTimeout(timer);
    expired = true;
    onExpiry();
  };
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const finish = () => {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
  };
  /** Rejects with `error()` at the deadline. */
  const beforeDeadline = <T>(promise: Promise<T>, error: () => OutboundFetchError): Promise<T> =>
    new Promise<T>((resolvePromise, reject) => {
      if (expired) return reject(error());
      onExpiry = () => reject(error());
      promise.then(resolvePromise, reject);
    });

  let method = (options.method ?? 'GET').toUpperCase();
  let body = options.body;
  const headers: Record<string, string> = { ...lowerCaseKeys(options.headers) };
  headers['user-agent'] = options.userAgent ?? OUTBOUND_DEFAULTS.userAgent;
  if (options.accept) headers.accept = options.accept;
  delete headers.host; // always the URL's own

  try {
    for (let hop = 0; ; hop++) {
      const addresses = await beforeDeadline(checkedAddresses(url, allow, ports, resolve), unreachable);
      const response = await send(url, addresses, method, headers, body, (req, connected) => {
        onExpiry = () => req.destroy(connected() ? timedOut() : unreachable());
      });
      const location = response.headers.location;
      if (REDIRECTS.has(response.statusCode ?? 0) && location && maxRedirects > 0) {
        response.destroy();
        if (hop >= maxRedirects) throw new OutboundFetchError('redirects', 'too many redirects');
        const next = parseUrl(location, url);
        if (next.origin !== url.origin) {
          // Credentials meant for one host are not handed to the next.
          delete headers.authorization;
          delete headers.cookie;
        }
        const status = response.statusCode!;
        if (status === 303 || ((status === 301 || status === 302) && method === 'POST')) {
          if (method !== 'HEAD') method = 'GET';
          body = undefined;
          delete headers['content-type'];
          delete headers['content-length'];
        }
        url = next;
        continue;
      }
      const length = Number(response.headers['content-length']);
      if (Number.isFinite(length) && length > maxBytes) {
        response.destroy();
        throw new OutboundFetchError('too-large', `larger than ${maxBytes} bytes`);
      }
      const capped = cappedBody(response, maxBytes, finish);
      onExpiry = () => capped.destroy(timedOut());
      return {
        url: url.href,
        status: response.statusCode ?? 0,
        headers: response.headers,
        body: capped,
      };
    }
  } catch (error) {
    finish();
    throw error;
  }
}

/** An absolute http(s) URL (relative ones against `base`), or an OutboundFetchError. */
function parseUrl(input: string | URL, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(input, base);
  } catch {
    throw new OutboundFetchError('invalid', `not a URL: ${String(input).slice(0, 200)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new OutboundFetchError('invalid', `only http and https addresses are fetched (${url.protocol})`);
  if (url.username || url.password)
    throw new OutboundFetchError('invalid', 'addresses with a user name or password are not fetched');
  return url;
}

/**
 * The addresses the connection may use. The WHATWG parser already turned 2130706433,
 * 0x7f.1 or 127.1 into 127.0.0.1, so a literal reaches here in its plain form.
 */
async function checkedAddresses(
  url: URL,
  allow: OutboundAllowList,
  ports: readonly number[],
  resolve: (hostname: string) => Promise<ResolvedAddress[]>,
): Promise<ResolvedAddress[]> {
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const literal = isIP(hostname);
  let addresses: ResolvedAddress[];
  if (literal) addresses = [{ address: hostname, family: literal }];
  else {
    try {
      addresses = await resolve(hostname);
    } catch {
      throw unreachable();
    }
    if (!addresses.length) throw unreachable();
  }
  const hostAllowed = !literal && allow.allowsHost(hostname);
  const allowed = (address: string) => hostAllowed || allow.allowsAddress(address);
  if (addresses.some(({ address }) => !allowed(address) && isForbiddenAddress(address))) throw refused();
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  if (!ports.includes(port) && !addresses.every(({ address }) => allowed(address)))
    throw new OutboundFetchError('refused', `refused: port ${port} (only ${ports.join(' and ')})`);
  return addresses;
}

function send(
  url: URL,
  addresses: ResolvedAddress[],
  method: string,
  headers: Record<string, string>,
  body: string | Uint8Array | undefined,
  started: (req: ClientRequest, connected: () => boolean) => void,
): Promise<IncomingMessage> {
  // The connection takes the checked addresses: no second DNS answer can differ from them.
  const lookup: LookupFunction = (_hostname, options, callback) => {
    if (options.all) callback(null, addresses);
    else callback(null, addresses[0]!.address, addresses[0]!.family);
  };
  return new Promise((resolvePromise, reject) => {
    let connected = false;
    const req = (url.protocol === 'https:' ? httpsRequest : httpRequest)({
      protocol: url.protocol,
      hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: url.port || undefined,
      path: `${url.pathname}${url.search}`,
      method,
      headers:
        body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      lookup,
      agent: false, // a fresh connection each time: no kept-alive socket chosen by an earlier check
    });
    req.once('socket', (socket) => {
      if (!socket.connecting) connected = true;
      else socket.once('connect', () => (connected = true));
    });
    req.once('response', resolvePromise);
    // Kept for the request's life: a late socket error after the answer must not go unhandled.
    req.on('error', (error) => {
      if (error instanceof OutboundFetchError) reject(error);
      // Closed, refused, unreachable: one answer. After connecting the host is known to answer.
      else reject(connected ? new OutboundFetchError('network', 'network error') : unreachable());
    });
    started(req, () => connected);
    req.end(body);
  });
}

/** The response body that fails past `maxBytes` or when the connection drops mid-way. */
function cappedBody(response: IncomingMessage, maxBytes: number, done: () => void): Readable {
  let seen = 0;
  const body = new Readable({
    read() {
      response.resume();
    },
    destroy(error, callback) {
      done();
      response.destroy();
      callback(error);
    },
  });
  response.on('data', (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > maxBytes) body.destroy(new OutboundFetchError('too-large', `larger than ${maxBytes} bytes`));
    else if (!body.push(chunk)) response.pause();
  });
  response.once('end', () => {
    done();
    body.push(null);
  });
  response.once('close', () => {
    if (!response.complete && !body.destroyed)
      body.destroy(new OutboundFetchError('network', 'network error'));
  });
  response.on('error', () => undefined); // reported through 'close' above
  return body;
}

function lowerCaseKeys(headers: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
}
