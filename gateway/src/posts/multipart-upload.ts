import { ErrorText, type PostWriteCommand, type UploadedFile } from '@blog/contracts';
import { MediaFileRefused, storeMediaOriginal, type ObjectStorage } from '@blog/server-kit';
import busboy from 'busboy';
import type { Request, Response } from 'express';
import { createHash, type Hash } from 'node:crypto';
import { Readable } from 'node:stream';
import { ApiError } from '../common/api-error.js';

const MAX_FILES = 50;
const MAX_FIELDS = 50;
const MAX_FIELD_BYTES = 1024 * 1024;

class ClientGoneError extends Error {}

/** What makes a form this form, for Idempotency-Key checks: its fields and its files' bytes. */
export interface FormDigest {
  fields: [string, string][];
  files: { field: string; name: string; size: number; sha256: string }[];
}

export interface ReceivedPostForm {
  form: PostWriteCommand;
  digest: FormDigest;
}

/** The stream's bytes, unchanged, counted into `hash` as they pass. */
function hashing(source: Readable, hash: Hash, counted: { size: number }): Readable {
  async function* pass() {
    for await (const chunk of source) {
      hash.update(chunk as Buffer);
      counted.size += (chunk as Buffer).length;
      yield chunk as Buffer;
    }
  }
  return Readable.from(pass(), { objectMode: false });
}

/** A multipart body's parser with these limits; 400 when the request is not multipart. */
export function multipartParser(req: Request, limits: busboy.Limits): busboy.Busboy {
  try {
    return busboy({ headers: req.headers, limits });
  } catch {
    throw new ApiError(400, 'Expected a multipart/form-data body');
  }
}

/**
 * Receives the post form (docs/api.md) and streams each file straight to storage as it
 * arrives: the type comes from the content (magic bytes), HEIC/HEIF is refused by type or
 * name, each file is capped at 100 MB. If anything fails (a bad file after good ones, the
 * client going away) every file already stored is deleted and nothing is returned.
 * With `store: false` files are only read and hashed: the digest of a retry whose first
 * answer is already stored.
 */
export async function receivePostForm(
  req: Request,
  res: Response,
  storage: ObjectStorage,
  { store = true }: { store?: boolean } = {},
): Promise<ReceivedPostForm> {
  const fields: Record<string, string> = {};
  const files: UploadedFile[] = [];
  const digest: FormDigest = { fields: [], files: [] };
  const abort = new AbortController();
  let failure: unknown;
  let chain: Promise<void> = Promise.resolve();
  /** File parts not yet read to their end: a failure ends them, so the chain settles. */
  const open = new Set<Readable>();

  const receiveFile = async (field: string, raw: Readable, name: string, declaredType: string) => {
    const hash = createHash('sha256');
    const counted = { size: 0 };
    const stream = hashing(raw, hash, counted);
    if (store) await storeFile(stream, name, declaredType);
    else for await (const _chunk of stream); // read through: only the hash is kept
    digest.files.push({ field, name, size: counted.size, sha256: hash.digest('hex') });
  };

  const storeFile = async (stream: Readable, name: string, declaredType: string) => {
    try {
      files.push(await storeMediaOriginal(storage, stream, { name, declaredType, signal: abort.signal }));
    } catch (error) {
      if (error instanceof MediaFileRefused) throw new ApiError(error.status, error.message);
      throw error;
    }
  };

  await new Promise<void>((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = multipartParser(req, { files: MAX_FILES, fields: MAX_FIELDS, fieldSize: MAX_FIELD_BYTES });
    } catch (error) {
      reject(error);
      return;
    }
    const fail = (error: unknown) => {
      if (failure) return;
      failure = error;
      abort.abort();
      req.unpipe(parser);
      // A part cut off with its request never ends by itself (Node 24 no longer errors it):
      // end it, so the file being stored fails and every stored one is deleted.
      for (const stream of open) stream.destroy();
      // Stop reading a body we no longer want: the socket closes after the error answer.
      res.setHeader('Connection', 'close');
      chain.finally(() => reject(failure));
    };
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) return fail(new ApiError(413, `Field "${name}" is too large`));
      fields[name] = value;
    });
    parser.on('file', (field, stream, info) => {
      if (failure) return stream.resume();
      const name = (info.filename ?? 'file').slice(0, 255);
      open.add(stream);
      stream.once('close', () => open.delete(stream));
      chain = chain.then(() =>
        receiveFile(field, stream, name, info.mimeType).catch((error: unknown) => {
          stream.resume();
          fail(error);
        }),
      );
    });
    parser.on('filesLimit', () => fail(new ApiError(413, `At most ${MAX_FILES} files per post`)));
    parser.on('fieldsLimit', () => fail(new ApiError(413, `At most ${MAX_FIELDS} fields per post`)));
    parser.on('error', () => fail(new ApiError(400, 'Malformed multipart body')));
    parser.on('close', () => {
      void chain.then(() => (failure ? undefined : resolve()));
    });
    req.on('close', () => {
      if (!req.complete) fail(new ClientGoneError('client disconnected'));
    });
    req.pipe(parser);
  }).catch(async (error: unknown) => {
    await storage.deleteMany(files.map((f) => f.key)).catch(() => undefined);
    if (error instanceof ClientGoneError) throw new ApiError(400, 'Upload interrupted');
    if (error instanceof ApiError) throw error;
    throw new ApiError(500, ErrorText.internal);
  });
  digest.fields = Object.entries(fields).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return { form: { fields, files }, digest };
}
