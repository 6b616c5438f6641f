import { IMPORT_MAX_BYTES } from '@blog/contracts';
import { ObjectTooLargeError, type ObjectStorage } from '@blog/server-kit';
import type { Request, Response } from 'express';
import { randomUUID } from 'node:crypto';
import { ApiError } from '../common/api-error.js';
import { readMultipart } from '../common/multipart-form.js';

export interface ReceivedImport {
  fileKey: string;
  fields: Record<string, string>;
}

const noFile = () => new ApiError(400, 'Send the export in the field "file"');

/**
 * The import form: one file in the field `file`, streamed to storage as it arrives (never
 * held in memory) under private/imports/, at most IMPORT_MAX_BYTES, and its text fields.
 * Anything wrong (no file, two files, too large, the client gone) leaves nothing stored.
 */
export async function receiveImport(
  req: Request,
  res: Response,
  storage: ObjectStorage,
): Promise<ReceivedImport> {
  const key = `private/imports/${randomUUID()}`;
  let stored: Promise<void> | null = null;
  const fields = await readMultipart(req, res, {
    limits: { files: 1, fields: 10, fieldSize: 256 * 1024 },
    tooManyFiles: new ApiError(400, 'Send one file'),
    onFile: (field, stream, _info, { fail, signal }) => {
      if (field !== 'file') {
        stream.resume();
        return fail(noFile());
      }
      stored = storage
        .put(key, stream, { contentType: 'application/octet-stream', maxBytes: IMPORT_MAX_BYTES, signal })
        .then(() => undefined)
        .catch((error: unknown) => {
          stream.resume();
          fail(
            error instanceof ObjectTooLargeError
              ? new ApiError(413, 'An import file may be at most 2 GB')
              : error,
          );
        });
    },
    pending: () => stored ?? Promise.resolve(),
    missing: () => (stored ? undefined : noFile()),
  }).catch(async (error: unknown) => {
    await storage.delete(key).catch(() => undefined);
    throw error instanceof ApiError ? error : new ApiError(500, 'The file could not be stored');
  });
  return { fileKey: key, fields };
}
