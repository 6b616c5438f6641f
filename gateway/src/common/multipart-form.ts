import busboy from 'busboy';
import type { Request, Response } from 'express';
import type { Readable } from 'node:stream';
import { ApiError } from './api-error.js';

/** What a file part's reader is given: how to fail the whole form, and the signal a failure aborts. */
export interface MultipartContext {
  fail(error: unknown): void;
  signal: AbortSignal;
}

/** One form's own choices: its limits, their answers, and what it does with each file. */
export interface MultipartForm {
  limits: busboy.Limits;
  /** The answer when more than `limits.files` files come. */
  tooManyFiles: ApiError;
  /** The answer when more than `limits.fields` fields come; unset, the extra fields are dropped. */
  tooManyFields?: ApiError;
  /** A file part, while nothing has failed: the caller reads it to its end (or resumes it). */
  onFile(field: string, stream: Readable, info: busboy.FileInfo, context: MultipartContext): void;
  /** The files' work still under way: the form answers, or fails, only once it has settled. */
  pending(): Promise<unknown>;
  /** Called once, on the first failure (e.g. to end parts a cut-off request never ends). */
  onFailure?(): void;
  /** Once the body is read and the files' work done: the form's failure as a whole, if any (a missing file). */
  missing?(): ApiError | undefined;
}

/**
 * Reads a multipart body with `form`'s limits and answers its text fields once every file's
 * work is done. The first failure wins: the body stops being read, the signal aborts, the
 * socket closes after the error answer, and the promise rejects only after the files' work
 * settled, so the caller then deletes whatever was stored. Not multipart, a malformed body or
 * a client gone half-way is a 400; a field over `limits.fieldSize` a 413.
 */
export function readMultipart(
  req: Request,
  res: Response,
  form: MultipartForm,
): Promise<Record<string, string>> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers, limits: form.limits });
    } catch {
      reject(new ApiError(400, 'Expected a multipart/form-data body'));
      return;
    }
    const fields: Record<string, string> = {};
    const abort = new AbortController();
    let failed = false;
    const fail = (error: unknown) => {
      if (failed) return;
      failed = true;
      abort.abort();
      req.unpipe(parser);
      form.onFailure?.();
      // Stop reading a body we no longer want: the socket closes after the error answer.
      res.setHeader('Connection', 'close');
      void form
        .pending()
        .catch(() => undefined)
        .finally(() => reject(error));
    };
    const context: MultipartContext = { fail, signal: abort.signal };
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) return fail(new ApiError(413, `Field "${name}" is too large`));
      fields[name] = value;
    });
    parser.on('file', (field, stream, info) => {
      if (failed) return stream.resume();
      form.onFile(field, stream, info, context);
    });
    parser.on('filesLimit', () => fail(form.tooManyFiles));
    parser.on('fieldsLimit', () => {
      if (form.tooManyFields) fail(form.tooManyFields);
    });
    parser.on('error', () => fail(new ApiError(400, 'Malformed multipart body')));
    parser.on('close', () => {
      void form.pending().then(() => {
        if (failed) return;
        const missing = form.missing?.();
        if (missing) fail(missing);
        else resolve(fields);
      }, fail);
    });
    req.on('close', () => {
      if (!req.complete) fail(new ApiError(400, 'Upload interrupted'));
    });
    req.pipe(parser);
  });
}
