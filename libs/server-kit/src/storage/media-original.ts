import { FileErrors, isHeic, isImageOrVideo, MAX_FILE_BYTES, type UploadedFile } from '@blog/contracts';
import { fileTypeFromBuffer } from 'file-type';
import { Readable } from 'node:stream';
import { newObjectKey } from './keys.js';
import { ObjectTooLargeError, type ObjectStorage } from './object-storage.js';

/**
 * Where the owner's originals go: a private key, never served nor listed publicly; the
 * media worker makes what the site serves from it (under `media/`).
 */
export const ORIGINALS_PREFIX = 'private/originals';

/** Enough bytes for file-type to recognise every image and video container. */
const SNIFF_BYTES = 4100;

/** A file refused by the upload rules: 400 (its type) or 413 (its size), with the message to show. */
export class MediaFileRefused extends Error {
  constructor(
    readonly status: 400 | 413,
    message: string,
  ) {
    super(message);
  }
}

/** Reads the first bytes of a stream and gives back a stream of all of it. */
export function peek(source: Readable, size: number): Promise<{ head: Buffer; body: Readable }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    const finish = () => {
      source.off('readable', onReadable);
      source.off('end', finish);
      source.off('error', reject);
      const head = Buffer.concat(chunks);
      async function* all() {
        yield head;
        for await (const chunk of source) yield chunk as Buffer;
      }
      resolve({ head, body: Readable.from(all(), { objectMode: false }) });
    };
    const onReadable = () => {
      let chunk: Buffer | null;
      while (length < size && (chunk = source.read() as Buffer | null) !== null) {
        chunks.push(chunk);
        length += chunk.length;
      }
      if (length >= size) finish();
    };
    source.on('readable', onReadable);
    source.once('end', finish);
    source.once('error', reject);
  });
}

/**
 * The one rule for a media original, uploaded or imported: the type comes from the content
 * (magic bytes), HEIC/HEIF is refused by type or name, only images and videos pass, at most
 * MAX_FILE_BYTES (100 MB). Stored under ORIGINALS_PREFIX (or at `key`); nothing is left
 * behind when it is refused.
 */
export async function storeMediaOriginal(
  storage: ObjectStorage,
  stream: Readable,
  options: { name: string; declaredType?: string; signal?: AbortSignal; key?: (ext: string) => string },
): Promise<UploadedFile> {
  const { name, declaredType } = options;
  if (isHeic(name, declaredType)) throw new MediaFileRefused(400, FileErrors.heic(name));
  const { head, body } = await peek(stream, SNIFF_BYTES);
  const detected = await fileTypeFromBuffer(head);
  if (detected && isHeic(`x.${detected.ext}`, detected.mime))
    throw new MediaFileRefused(400, FileErrors.heic(name));
  if (!detected || !isImageOrVideo(detected.mime))
    throw new MediaFileRefused(400, FileErrors.unsupported(name));
  const key = options.key?.(detected.ext) ?? newObjectKey(ORIGINALS_PREFIX, detected.ext);
  try {
    const { size } = await storage.put(key, body, {
      contentType: detected.mime,
      maxBytes: MAX_FILE_BYTES,
      signal: options.signal,
    });
    return {
      key,
      type: detected.mime.startsWith('video/') ? 'video' : 'image',
      mimeType: detected.mime,
      name,
      size,
    };
  } catch (error) {
    if (error instanceof ObjectTooLargeError) throw new MediaFileRefused(413, FileErrors.tooLarge(name));
    throw error;
  }
}
