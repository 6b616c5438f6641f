import {
  IDEMPOTENCY_HEADER,
  IDEMPOTENT_REPLAYED_HEADER,
  IdempotencyErrors,
  idempotencyKeySchema,
  isSameRequest,
  type IdempotencyRequest,
  type IdempotentAnswer,
  type StoredIdempotentAnswer,
} from '@blog/contracts';
import type { Request, Response } from 'express';
import { createHash } from 'node:crypto';
import { ApiError } from './api-error.js';

/** The client's Idempotency-Key, checked; undefined when the request has none. */
export function idempotencyKeyOf(req: Request): string | undefined {
  const raw = req.headers[IDEMPOTENCY_HEADER];
  if (raw === undefined) return undefined;
  const parsed = idempotencyKeySchema.safeParse(raw);
  if (!parsed.success) throw new ApiError(400, IdempotencyErrors.invalidKey);
  return parsed.data;
}

/** A SHA-256 of what makes the request this request: its route and its (normalised) body. */
export function fingerprintOf(route: string, body: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify([route, body ?? null]))
    .digest('hex');
}

/** The key and fingerprint a keyed write sends its service (undefined without a key). */
export function idempotencyOf(req: Request, route: string, body?: unknown): IdempotencyRequest | undefined {
  const key = idempotencyKeyOf(req);
  return key ? { key, fingerprint: fingerprintOf(route, body) } : undefined;
}

/** The first request's answer, when this one is the same request; 422 when it is another. */
export function replay<T>(res: Response, stored: StoredIdempotentAnswer<T>, fingerprint: string): T {
  if (!isSameRequest(stored, fingerprint)) throw new ApiError(422, IdempotencyErrors.reused);
  res.setHeader(IDEMPOTENT_REPLAYED_HEADER, 'true');
  return stored.answer;
}

/** A service's write answer for the client; a replayed one is marked so. */
export function sendAnswer<T>(res: Response, result: IdempotentAnswer<T>): T {
  if (result.replayed) res.setHeader(IDEMPOTENT_REPLAYED_HEADER, 'true');
  return result.answer;
}
