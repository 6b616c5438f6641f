import { ErrorText, type PostWriteCommand, type UploadedFile } from '@blog/contracts';
import { MediaFileRefused, storeMediaOriginal, type ObjectStorage } from '@blog/server-kit';
import type { Request, Response } from 'express';
import { createHash, type Hash } from 'node:crypto';
import { Readable } from 'node:stream';
import { ApiError } from '../common/api-error.js';
import { readMultipart } from '../common/multipart-form.js';

const MAX_FILES = 50;
const MAX_FIELDS = 50;
const MAX_FIELD_BYTES = 1024 * 1024;

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

/**
 * Receives the post form (docs/api.md) and streams each file straight to storage as it
 * arrives: the type comes from the content (magic bytes), HEIC/HEIF is refused by type or
 * name, each file is capped at 100 MB. If anything fails (a bad file after good ones, the
 * client going away) every file already stored is deleted and nothing is returned.
 * With `store: false` files are only read and hashed: the digest of a retry whose first
 * answer is already stored. `maxFiles` and `tooManyFiles`: another form's cap (a note's pictures).
 */
export async function receivePostForm(
  req: Request,
  res: Response,
  storage: ObjectStorage,
  {
    store = true,
    maxFiles = MAX_FILES,
    tooManyFiles = new ApiError(413, `At most ${MAX_FILES} files per post`),
  }: { store?: boolean; maxFiles?: number; tooManyFiles?: ApiError } = {},
): Promise<ReceivedPostForm> {
  const files: UploadedFile[] = [];
  const digest: FormDigest = { fields: [], files: [] };
  let chain: Promise<void> = Promise.resolve();
  /** File parts not yet read to their end: a failure ends them, so the chain settles. */
  const open = new Set<Readable>();

  const receiveFile = async (
    field: string,
    raw: Readable,
    name: string,
    declaredType: string,
    signal: AbortSignal,
  ) => {
    const hash = createHash('sha256');
    const counted = { size: 0 };
    const stream = hashing(raw, hash, counted);
    if (store) await storeFile(stream, name, declaredType, signal);
    else for await (const _chunk of stream); // read through: only the hash is kept
    digest.files.push({ field, name, size: counted.size, sha256: hash.digest('hex') });
  };

  const storeFile = async (stream: Readable, name: string, declaredType: string, signal: AbortSignal) => {
    try {
      files.push(await storeMediaOriginal(storage, stream, { name, declaredType, signal }));
    } catch (error) {
      if (error instanceof MediaFileRefused) throw new ApiError(error.status, error.message);
      throw error;
    }
  };

  const fields = await readMultipart(req, res, {
    limits: { files: maxFiles, fields: MAX_FIELDS, fieldSize: MAX_FIELD_BYTES },
    tooManyFiles,
    tooManyFields: new ApiError(413, `At most ${MAX_FIELDS} fields per post`),
    onFile: (field, stream, info, { fail, signal }) => {
      const name = (info.filename ?? 'file').slice(0, 255);
      open.add(stream);
      stream.once('close', () => open.delete(stream));
      chain = chain.then(() =>
        receiveFile(field, stream, name, info.mimeType, signal).catch((error: unknown) => {
          stream.resume();
          fail(error);
        }),
      );
    },
    pending: () => chain,
    // A part cut off with its request never ends by itself (Node 24 no longer errors it):
    // end it, so the file being stored fails and every stored one is deleted.
    onFailure: () => {
      for (const stream of open) stream.destroy();
    },
  }).catch(async (error: unknown) => {
    await storage.deleteMany(files.map((f) => f.key)).catch(() => undefined);
    if (error instanceof ApiError) throw error;
    throw new ApiError(500, ErrorText.internal);
  });
  digest.fields = Object.entries(fields).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return { form: { fields, files }, digest };
}
