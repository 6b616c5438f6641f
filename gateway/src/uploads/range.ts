/** What a Range header asks of an object of a known size. */
export type RangeRequest =
  { kind: 'none' } | { kind: 'range'; start: number; end: number } | { kind: 'unsatisfiable' };

const SPEC = /^(\d*)-(\d*)$/;

/**
 * Parses a single `Range: bytes=...` header (RFC 9110 §14.2): `a-b`, `a-` and the suffix
 * form `-n`. A range the object cannot satisfy, or a malformed bytes range, is
 * 'unsatisfiable' (answered 416). Other units and multi-range requests are 'none': the
 * whole object is sent, which the RFC allows.
 */
export function parseRange(header: string | undefined, size: number): RangeRequest {
  if (header === undefined) return { kind: 'none' };
  const eq = header.indexOf('=');
  if (eq < 0) return { kind: 'unsatisfiable' };
  if (header.slice(0, eq).trim().toLowerCase() !== 'bytes') return { kind: 'none' };
  const specs = header.slice(eq + 1).split(',');
  if (specs.length > 1) return { kind: 'none' };
  const match = SPEC.exec(specs[0].trim());
  if (!match || (match[1] === '' && match[2] === '')) return { kind: 'unsatisfiable' };
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'range', start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(match[1]);
  const end = match[2] === '' ? size - 1 : Number(match[2]);
  if (end < start || start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'range', start, end: Math.min(end, size - 1) };
}

/** True when an If-None-Match header matches the ETag (weak comparison, as for GET/HEAD). */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return ifNoneMatch.split(',').some((tag) => tag.trim() === '*' || opaque(tag) === opaque(etag));
}
