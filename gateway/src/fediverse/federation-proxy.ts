import {
  carriesProof,
  claimedServer,
  ErrorText,
  FEDERATION_INBOX_PATH,
  FEDERATION_MAX_BODY_BYTES,
  FEDERATION_MAX_HEADER_NAME,
  FEDERATION_MAX_HEADER_VALUE,
  FEDERATION_MAX_HEADERS,
  FEDERATION_MAX_JSON_DEPTH,
  FEDERATION_MAX_JSON_VALUES,
  FederationErrors,
  isFederationRequest,
  jsonShapeRefusal,
  Patterns,
  signatureClaim,
  type FederationHttpAnswer,
  type FederationHttpRequest,
  type SignatureClaim,
} from '@blog/contracts';
import type { JsonLogger } from '@blog/server-kit';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { ApiError } from '../common/api-error.js';
import type { GatewayConfig } from '../config.js';
import type { ServiceClients } from '../rpc/service-clients.js';
import { FederationLimits } from './federation-limits.js';

const METHODS = new Set(['GET', 'HEAD', 'POST']);
/** What an inbox takes: ActivityStreams JSON (Mastodon sends activity+json; some ld+json; a few plain json). */
const ACTIVITY_BODY = /^application\/(?:activity\+json|ld\+json|json)\s*(?:;|$)/i;
/** Hop-by-hop headers, and cookies (the federation has no use for a reader's session). */
const NOT_FORWARDED = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'proxy-authorization',
  'proxy-connection',
  'cookie',
]);
/** Headers of social's answer the gateway writes itself. */
const NOT_ANSWERED = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length']);
/** The contracts' bounds on forwarded headers (federationHttpRequestSchema). */
/** A body that drips slower than this is cut (408): a stranger must not hold a connection open. */
const BODY_READ_TIMEOUT_MS = 10_000;
const RETRY_AFTER_SECONDS = '5';

/**
 * A path whose answer depends on Accept (a post's stable URL: the Article for ActivityPub
 * clients, the page for browsers), so caches in front must key it by Accept too.
 */
const negotiated = (path: string) =>
  isFederationRequest(path, 'application/activity+json') && !isFederationRequest(path, undefined);

/** The address of the site as other servers know it: the launchers' default when SITE_URL is unset. */
export function federationOrigin(config: GatewayConfig): string {
  return config.SITE_URL ?? `http://localhost:${config.PORT}`;
}

type Refusal = { status: number; error: string; headers?: Record<string, string> };

/**
 * The gateway's side of the federation: it runs no Fedify and holds no keys. Every request
 * `isFederationRequest` picks is checked here (method, the limits on strangers, header and body
 * caps) and handed to the social service, whose answer is written back; `pass` lets the blog's
 * own routes answer (the HTML page, its 404 or 410). Mounted before the JSON body parser (the
 * raw body goes on, for its Digest) and before the public cache.
 */
export class FederationProxy {
  private readonly origin: string;

  constructor(
    private readonly services: ServiceClients,
    private readonly config: GatewayConfig,
    private readonly logger: JsonLogger,
    private readonly limits = new FederationLimits(),
  ) {
    this.origin = federationOrigin(config);
  }

  middleware(): RequestHandler {
    return (req: Request, res: Response, next: NextFunction) => {
      if (negotiated(req.path)) res.vary('Accept');
      if (!isFederationRequest(req.path, req.headers.accept)) return next();
      this.handle(req, res, next).catch((error: unknown) =>
        res.headersSent ? res.destroy(error as Error) : next(error),
      );
    };
  }

  private async handle(req: Request, res: Response, next: NextFunction): Promise<void> {
    const checked = this.check(req);
    if ('error' in checked) return refuse(req, res, checked);
    let body: Buffer | undefined;
    if (req.method === 'POST') {
      const read = await readCapped(req, FEDERATION_MAX_BODY_BYTES, BODY_READ_TIMEOUT_MS);
      if (read === 'gone') return;
      if (read === 'too large') return refuse(req, res, { status: 413, error: ErrorText.bodyTooLarge });
      if (read === 'too slow') return refuse(req, res, { status: 408, error: FederationErrors.bodyTooSlow });
      const refusal = checked.inbox && bodyRefusal(read, checked.claim);
      if (refusal) return refuse(req, res, refusal);
      body = read;
    }
    const request: FederationHttpRequest = {
      method: req.method as FederationHttpRequest['method'],
      // SITE_URL, never Host: the signature covers the target URI and the ids are built on it.
      url: new URL(req.originalUrl, this.origin).href,
      headers: checked.headers,
      body: body?.toString('base64'),
    };
    let answer: FederationHttpAnswer;
    try {
      answer = await this.services.call('social', Patterns.social.http, request, this.config.RPC_TIMEOUT_MS);
    } catch (error) {
      if (error instanceof ApiError && error.getStatus() < 500)
        return refuse(req, res, { status: error.getStatus(), error: errorText(error) });
      this.logger.event('warn', 'federation request not answered', {
        method: req.method,
        path: req.path,
        reason: error instanceof Error ? error.message : String(error),
      });
      return refuse(req, res, {
        status: 503,
        error: ErrorText.serviceUnavailable,
        headers: { 'Retry-After': RETRY_AFTER_SECONDS },
      });
    }
    if (answer.pass) return next();
    if (answer.signer) this.limits.countVerified(answer.signer);
    res.status(answer.status);
    for (const [name, value] of answer.headers) {
      const key = name.toLowerCase();
      if (key === 'vary') res.vary(value);
      else if (!NOT_ANSWERED.has(key)) res.append(name, value);
    }
    // The body comes base64, like the request's (it may be any bytes).
    if (answer.body === null || req.method === 'HEAD') res.end();
    else res.end(Buffer.from(answer.body, 'base64'));
  }

  /**
   * What the gateway refuses before anything is read or forwarded; else the headers to forward,
   * and for an inbox POST the claim of its signature headers (null: none that parses).
   */
  private check(
    req: Request,
  ): Refusal | { headers: [string, string][]; inbox: boolean; claim: SignatureClaim | null } {
    if (!METHODS.has(req.method))
      return { status: 405, error: FederationErrors.methodNotAllowed, headers: { Allow: 'GET, HEAD, POST' } };
    const address = req.ip ?? req.socket.remoteAddress ?? '';
    const inbox = req.method === 'POST' && FEDERATION_INBOX_PATH.test(req.path);
    const claim = inbox ? signatureClaim((name) => headerValue(req, name)) : null;
    const verdict = inbox
      ? this.limits.admitInbox(address, claimedServer(claim))
      : this.limits.admitRead(address);
    if (!verdict.allowed)
      return {
        status: 429,
        error: FederationErrors.tooManyRequests,
        headers: { 'Retry-After': String(verdict.retryAfter) },
      };
    const headers = forwardedHeaders(req);
    if (!headers) return { status: 431, error: FederationErrors.headersTooLarge };
    if (req.method !== 'POST') return { headers, inbox, claim };
    if (inbox && !ACTIVITY_BODY.test(req.headers['content-type'] ?? ''))
      return { status: 415, error: FederationErrors.unsupportedMediaType };
    if (Number(req.headers['content-length'] ?? 0) > FEDERATION_MAX_BODY_BYTES)
      return { status: 413, error: ErrorText.bodyTooLarge };
    return { headers, inbox, claim };
  }
}

const headerValue = (req: Request, name: string): string | undefined => {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/**
 * An inbox body's cheap refusals, before any JSON-LD work or fetch: nested too deep or too many
 * values (JSON-LD expansion costs grow with both), or neither a signature header that parses nor
 * an object integrity proof (FEP-8b32) in the body. The body is parsed only in that last case.
 */
function bodyRefusal(body: Buffer, claim: SignatureClaim | null): Refusal | null {
  const shape = jsonShapeRefusal(body, FEDERATION_MAX_JSON_DEPTH, FEDERATION_MAX_JSON_VALUES);
  if (shape === 'too deep') return { status: 400, error: FederationErrors.nestedTooDeep };
  if (shape === 'too many values') return { status: 400, error: FederationErrors.tooManyValues };
  if (claim) return null;
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    return { status: 400, error: ErrorText.malformedJson };
  }
  return carriesProof(json) ? null : { status: 401, error: FederationErrors.unsigned };
}

/** The request's headers as the contracts carry them (lower-case names); null past their bounds. */
function forwardedHeaders(req: Request): [string, string][] | null {
  const headers: [string, string][] = [];
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (NOT_FORWARDED.has(name)) continue;
    const value = raw[i + 1]!;
    if (name.length > FEDERATION_MAX_HEADER_NAME || value.length > FEDERATION_MAX_HEADER_VALUE) return null;
    headers.push([name, value]);
  }
  return headers.length > FEDERATION_MAX_HEADERS ? null : headers;
}

function errorText(error: ApiError): string {
  const body = error.getResponse();
  return typeof body === 'object' && body !== null && 'error' in body ? String(body.error) : error.message;
}

/**
 * The gateway's own answer. A POST whose body is left unread closes the connection: Node then
 * drops the socket after the answer instead of reading the rest of what a stranger sends.
 */
function refuse(req: Request, res: Response, { status, error, headers = {} }: Refusal): void {
  if (req.method === 'POST' && !req.complete) res.setHeader('Connection', 'close');
  res.status(status).set(headers).json({ error });
}

/**
 * The body, at most `max` bytes: past it (a chunked body has no Content-Length to check first)
 * reading stops at once and nothing more is kept; a body still arriving after `timeoutMs` is cut.
 */
function readCapped(
  req: Request,
  max: number,
  timeoutMs: number,
): Promise<Buffer | 'too large' | 'too slow' | 'gone'> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (outcome: Buffer | 'too large' | 'too slow' | 'gone') => {
      clearTimeout(timer);
      req.off('data', onData).off('end', onEnd).off('error', onGone).off('close', onGone);
      if (!Buffer.isBuffer(outcome)) req.pause();
      resolve(outcome);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) finish('too large');
      else chunks.push(chunk);
    };
    const onEnd = () => finish(Buffer.concat(chunks, size));
    // The client hung up (or the socket failed) before the body ended: nobody to answer.
    const onGone = () => finish('gone');
    const timer = setTimeout(() => finish('too slow'), timeoutMs);
    req.on('data', onData).on('end', onEnd).on('error', onGone).on('close', onGone);
  });
}
