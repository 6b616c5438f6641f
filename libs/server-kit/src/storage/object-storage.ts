import type { Readable } from 'node:stream';

export interface PutOptions {
  /** Stored with the object and sent back as Content-Type when served. */
  contentType: string;
  /** Refuses (and leaves nothing behind) once the body passes this many bytes. */
  maxBytes?: number;
  /** Aborting it fails the put and leaves nothing behind. */
  signal?: AbortSignal;
}

export interface PutResult {
  key: string;
  size: number;
}

/** Inclusive byte range; `end` omitted means "to the last byte". */
export interface ByteRange {
  start: number;
  end?: number;
}

export interface GetResult {
  /** The bytes (the requested range only, when one was given). Destroy it when not read to the end. */
  body: Readable;
  /** Size of the whole object. */
  size: number;
  contentType: string;
  /** The range actually returned (end clamped to the last byte), when one was asked for. */
  range?: { start: number; end: number };
}

export interface ObjectStat {
  size: number;
  contentType: string;
}

/**
 * The one way every process touches media files. Keys are made by the server
 * (`newObjectKey`) and checked by `assertValidKey` on every call; an invalid key throws
 * InvalidKeyError. Objects never change once written: a new version gets a new key.
 */
export interface ObjectStorage {
  /** 'local' or 's3', for logs and health. */
  readonly kind: 'local' | 's3';
  /** Creates the root folder or the bucket when missing. Safe to call more than once. */
  ensureReady(): Promise<void>;
  /**
   * Streams `body` into the store and makes it visible only when complete: a failed or
   * aborted put (source error, `signal`, `maxBytes`) leaves nothing behind.
   */
  put(key: string, body: Readable | Buffer, options: PutOptions): Promise<PutResult>;
  /** null when the key does not exist; throws RangeNotSatisfiableError for a range past the end. */
  get(key: string, range?: ByteRange): Promise<GetResult | null>;
  stat(key: string): Promise<ObjectStat | null>;
  /**
   * A second object at `toKey` with the bytes and content type of `fromKey`, made inside the
   * store (nothing passes through this process on S3); null when `fromKey` does not exist.
   */
  copy(fromKey: string, toKey: string): Promise<PutResult | null>;
  /** Idempotent: deleting a missing key is not an error. */
  delete(key: string): Promise<void>;
  deleteMany(keys: string[]): Promise<void>;
  /** Every key starting with `prefix` (all keys when omitted), sorted. */
  list(prefix?: string): Promise<string[]>;
  /** `/uploads/${key}`. */
  publicUrl(key: string): string;
}

/** The asked range starts past the end of the object (or the object is empty). */
export class RangeNotSatisfiableError extends Error {
  override name = 'RangeNotSatisfiableError';
  constructor(readonly size: number) {
    super(`Range not satisfiable (object size ${size})`);
  }
}

/** The body passed `maxBytes`; nothing was stored. */
export class ObjectTooLargeError extends Error {
  override name = 'ObjectTooLargeError';
  constructor(readonly maxBytes: number) {
    super(`Object larger than ${maxBytes} bytes`);
  }
}

/** Validates a range against a known size and returns it with the end clamped. */
export function resolveRange(range: ByteRange, size: number): { start: number; end: number } {
  const { start } = range;
  if (!Number.isSafeInteger(start) || start < 0) throw new RangeError(`Invalid range start: ${start}`);
  if (range.end !== undefined && (!Number.isSafeInteger(range.end) || range.end < start)) {
    throw new RangeError(`Invalid range end: ${range.end}`);
  }
  if (start >= size) throw new RangeNotSatisfiableError(size);
  return { start, end: Math.min(range.end ?? size - 1, size - 1) };
}
