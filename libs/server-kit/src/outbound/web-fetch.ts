import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { OutboundAllowList } from './address-policy.js';
import { OUTBOUND_DEFAULTS, outboundFetch, OutboundFetchError } from './outbound-fetcher.js';

export interface WebFetchOptions {
  /** Caps each response body (default 1 MB: documents and inbox answers are small). */
  maxBytes?: number;
  /** Default 15 s. */
  timeoutMs?: number;
  /** Used when the request sets no User-Agent of its own. */
  userAgent?: string;
}

/**
 * A WHATWG fetch() on outboundFetch, for libraries that take or call `fetch` (Fedify's loaders and its
 * delivery POSTs): the same address policy, caps and OUTBOUND_ALLOW exceptions. Redirects are returned,
 * not followed: a signed POST must not be re-sent elsewhere, and document loaders follow them
 * themselves (each hop through here again). A refusal is a TypeError, as fetch() throws for network
 * errors, with the OutboundFetchError as its cause.
 */
export function webFetch(allow: OutboundAllowList, options: WebFetchOptions = {}): typeof fetch {
  return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const body = request.body ? new Uint8Array(await request.arrayBuffer()) : undefined;
    const headers: Record<string, string> = {};
    request.headers.forEach((value, key) => (headers[key] = value));
    let res;
    try {
      res = await outboundFetch(request.url, {
        method: request.method,
        headers,
        body,
        allow,
        maxRedirects: 0,
        maxBytes: options.maxBytes ?? 1024 * 1024,
        timeoutMs: options.timeoutMs ?? 15_000,
        userAgent: headers['user-agent'] ?? options.userAgent ?? OUTBOUND_DEFAULTS.userAgent,
        signal: init?.signal ?? request.signal,
      });
    } catch (error) {
      if (error instanceof OutboundFetchError) throw new TypeError(error.message, { cause: error });
      throw error;
    }
    const responseHeaders = new Headers();
    for (const [key, value] of Object.entries(res.headers)) {
      if (Array.isArray(value)) value.forEach((v) => responseHeaders.append(key, v));
      else if (value !== undefined) responseHeaders.set(key, value);
    }
    // A Response with these statuses may not carry a body (the constructor throws).
    const noBody = [101, 204, 205, 304].includes(res.status) || request.method === 'HEAD';
    if (noBody) res.body.destroy();
    const response = new Response(
      noBody
        ? null
        : (Readable.toWeb(res.body) as unknown as ReadableStream<Uint8Array> & NodeReadableStream),
      { status: res.status, headers: responseHeaders },
    );
    // Callers read response.url (the document's address, relative redirects).
    Object.defineProperty(response, 'url', { value: res.url });
    return response;
  };
}
