import { extname } from 'node:path';

const BY_EXTENSION: Record<string, string> = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
  svg: 'image/svg+xml',
  mp4: 'video/mp4',
  m4v: 'video/mp4',
  mov: 'video/quicktime',
  webm: 'video/webm',
  mkv: 'video/x-matroska',
  ogv: 'video/ogg',
  mp3: 'audio/mpeg',
  json: 'application/json',
  txt: 'text/plain',
  pdf: 'application/pdf',
};

export const DEFAULT_CONTENT_TYPE = 'application/octet-stream';

/** The usual type for a key's extension; application/octet-stream when unknown. */
export function contentTypeForKey(key: string): string {
  return BY_EXTENSION[extname(key).slice(1).toLowerCase()] ?? DEFAULT_CONTENT_TYPE;
}

const CONTENT_TYPE =
  /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+(\s*;\s*[a-z0-9!#$&^_.+-]+=("[^"\r\n]*"|[a-z0-9!#$&^_.+-]+))*$/i;

/** A syntactically valid media type (no CR/LF or other header-breaking characters). */
export function assertValidContentType(contentType: string): void {
  if (typeof contentType !== 'string' || contentType.length > 200 || !CONTENT_TYPE.test(contentType)) {
    throw new TypeError(`Invalid content type: ${JSON.stringify(contentType)}`);
  }
}
