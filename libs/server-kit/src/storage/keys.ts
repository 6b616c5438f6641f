import { uploadsPath } from '@blog/contracts';
import { randomUUID } from 'node:crypto';

/** Longest key accepted, in characters (all keys are ASCII). */
export const MAX_KEY_LENGTH = 512;

/** Longest segment: file systems allow 255 bytes per name, and stores add suffixes (temp, metadata). */
export const MAX_SEGMENT_LENGTH = 200;

/** Keys under this prefix (the owner's originals) are never served publicly. */
export const PRIVATE_PREFIX = 'private/';

const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

export class InvalidKeyError extends Error {
  override name = 'InvalidKeyError';
  constructor(
    readonly key: unknown,
    reason: string,
  ) {
    super(
      `Invalid object key ${JSON.stringify(typeof key === 'string' ? key.slice(0, 80) : key)}: ${reason}`,
    );
  }
}

function keyProblem(key: unknown): string | null {
  if (typeof key !== 'string') return 'not a string';
  if (key.length === 0) return 'empty';
  if (key.length > MAX_KEY_LENGTH) return `longer than ${MAX_KEY_LENGTH} characters`;
  if (key.startsWith('/')) return 'absolute';
  for (const segment of key.split('/')) {
    if (segment === '') return 'empty segment';
    if (segment.length > MAX_SEGMENT_LENGTH)
      return `a segment is longer than ${MAX_SEGMENT_LENGTH} characters`;
    if (segment === '.' || segment === '..') return 'dot segment';
    // A leading dot is refused too: the local store keeps its temp and metadata files under dot-names.
    if (!SEGMENT.test(segment)) return 'segments are [A-Za-z0-9._-] and do not start with "."';
  }
  return null;
}

/**
 * The one check every key passes before it touches storage: relative, segments of
 * [A-Za-z0-9._-] joined by '/', no empty, '.' or '..' segment, no segment starting
 * with '.', segments of at most 200 characters, at most 512 characters in all. Throws InvalidKeyError otherwise.
 */
export function assertValidKey(key: unknown): asserts key is string {
  const problem = keyProblem(key);
  if (problem) throw new InvalidKeyError(key, problem);
}

export function isValidKey(key: unknown): key is string {
  return keyProblem(key) === null;
}

/** True for keys never served publicly (compared case-insensitively, for case-insensitive disks). */
export function isPrivateKey(key: string): boolean {
  return key.slice(0, PRIVATE_PREFIX.length).toLowerCase() === PRIVATE_PREFIX;
}

/** List prefixes: '' or a key-shaped string, optionally ending in '/'. */
export function assertValidPrefix(prefix: string): void {
  if (prefix === '') return;
  assertValidKey(prefix.endsWith('/') ? prefix.slice(0, -1) : prefix);
}

const EXTENSION = /^[A-Za-z0-9]{1,16}$/;

/**
 * A fresh server-made key: `${prefix}/${yyyy}/${mm}/${uuid}.${ext}` (UTC date). The
 * extension comes from the detected content type, never from the client's file name.
 */
export function newObjectKey(prefix: string, extension: string, now: Date = new Date()): string {
  const cleanPrefix = prefix.replace(/\/+$/, '');
  assertValidKey(cleanPrefix);
  const ext = extension.replace(/^\./, '');
  if (!EXTENSION.test(ext)) throw new InvalidKeyError(extension, 'extension must be 1-16 letters or digits');
  const yyyy = String(now.getUTCFullYear()).padStart(4, '0');
  const mm = String(now.getUTCMonth() + 1).padStart(2, '0');
  const key = `${cleanPrefix}/${yyyy}/${mm}/${randomUUID()}.${ext.toLowerCase()}`;
  assertValidKey(key);
  return key;
}

/** The public path of a key (served by the gateway's /uploads handler). */
export function publicUploadUrl(key: string): string {
  assertValidKey(key);
  return uploadsPath(key);
}
