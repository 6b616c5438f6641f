import { z } from 'zod';

/**
 * Safe retries for the admin's writes: a request sent with an `Idempotency-Key` is done once;
 * the same key again gets the first answer back instead of a second post.
 */
export const IDEMPOTENCY_HEADER = 'idempotency-key';
/** Set on an answer that was replayed from the key's first request. */
export const IDEMPOTENT_REPLAYED_HEADER = 'idempotent-replayed';
/** How long the server remembers a key and its answer. */
export const IDEMPOTENCY_TTL_HOURS = 24;
export const IDEMPOTENCY_KEY_MAX = 200;

export const IdempotencyErrors = {
  invalidKey: `Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_MAX} visible characters`,
  /** The key's first request is finishing at this moment (rare: its row was just purged or taken). */
  inProgress: 'A request with this Idempotency-Key is still being handled; try again in a moment',
  reused: 'This Idempotency-Key was already used for a different request; send a new key for a new request',
} as const;

export const idempotencyKeySchema = z
  .string()
  .min(1, IdempotencyErrors.invalidKey)
  .max(IDEMPOTENCY_KEY_MAX, IdempotencyErrors.invalidKey)
  // Header values: visible ASCII and spaces, no control characters.
  .regex(/^[\x20-\x7e]+$/, IdempotencyErrors.invalidKey);

/** What a write carries to its service when the client sent a key. */
export interface IdempotencyRequest {
  key: string;
  /** A hash of the whole request (route, fields, files' bytes): the same key must mean the same request. */
  fingerprint: string;
}

export const idempotencyRequestSchema = z.object({
  key: idempotencyKeySchema,
  fingerprint: z.string().regex(/^[0-9a-f]{64}$/, 'fingerprint must be a SHA-256 hex digest'),
});

/**
 * How services answer the admin's writes: the answer, and whether it is the first request's
 * answer replayed (the gateway then deletes the files the retry brought).
 */
export interface IdempotentAnswer<T> {
  answer: T;
  replayed: boolean;
}

/** What the gateway asks before it stores a keyed request's files: is there an answer already? */
export interface StoredIdempotentAnswer<T = unknown> {
  fingerprint: string;
  answer: T;
}

/** Whether a request may get a key's stored answer: only the very request that was answered. */
export function isSameRequest(stored: StoredIdempotentAnswer, fingerprint: string): boolean {
  return stored.fingerprint === fingerprint;
}
