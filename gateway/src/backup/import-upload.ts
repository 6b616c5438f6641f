import { IMPORT_MAX_BYTES } from '@blog/contracts';
import { ObjectTooLargeError, type ObjectStorage } from '@blog/server-kit';
import type busboy from 'busboy';
import type { Request, Response } from 'express';
import { randomUUID } from 'node:crypto';
import { ApiError } from '../common/api-error.js';
import { multipartParser } from '../posts/multipart-upload.js';

export interface ReceivedImport {
  fileKey: string;
  fields: Record<string, string>;
}

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
  const fields: Record<string, string> = {};
  const key = `private/imports/${randomUUID()}`;
  let stored: Promise<void> | null = null;
  const abort = new AbortController();
  let failure: unknown;

  await new Promise<void>((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = multipartParser(req, { files: 1, fields: 10, fieldSize: 256 * 1024 });
    } catch (error) {
      reject(error);
      return;
    }
    const fail = (error: unknown) => {
      if (failure) return;
      failure = error;
      abort.abort();
      req.unpipe(parser);
      res.setHeader('Connection', 'close');
      void (stored ?? Promise.resolve()).catch(() => undefined).finally(() => reject(failure));
    };
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) return fail(new ApiError(413, `Field "${name}" is too large`));
      fields[name] = value;
    });
    parser.on('file', (field, stream) => {
      if (failure || field !== 'file') {
        stream.resume();
        if (!failure) fail(new ApiError(400, 'Send the export in the field "file"'));
        return;
      }
      stored = storage
        .put(key, stream, {
          contentType: 'application/octet-stream',
          maxBytes: IMPORT_MAX_BYTES,
          signal: abort.signal,
        })
        .then(() => undefined)
        .catch((error: unknown) => {
          stream.resume();
          fail(
            error instanceof ObjectTooLargeError
              ? new ApiError(413, 'An import file may be at most 2 GB')
              : error,
          );
        });
    });
    parser.on('filesLimit', () => fail(new ApiError(400, 'Send one file')));
    parser.on('error', () => fail(new ApiError(400, 'Malformed multipart body')));
    parser.on('close', () => {
      void (stored ?? Promise.resolve()).then(() => {
        if (failure) return;
        if (!stored) fail(new ApiError(400, 'Send the export in the field "file"'));
        else resolve();
      });
    });
    req.on('close', () => {
      if (!req.complete) fail(new ApiError(400, 'Upload interrupted'));
    });
    req.pipe(parser);
  }).catch(async (error: unknown) => {
    await storage.delete(key).catch(() => undefined);
    throw error instanceof ApiError ? error : new ApiError(500, 'The file could not be stored');
  });
  return { fileKey: key, fields };
}
